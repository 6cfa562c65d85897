/**
 * Where a config value comes from, in a word a person reads beside it ("(user file)"): the
 * settings dialog's choices and the doctor's Server line say it alike.
 */
import type { ConfigSource } from './trust.js';

export const SOURCE_WORDS: Readonly<Record<ConfigSource, string>> = { default: 'default', user: 'user file', project: 'project file', env: 'environment' };
