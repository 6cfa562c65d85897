/**
 * The in-memory twin of `ConfigFilePort`: files are strings by path, read and parsed exactly
 * as on disk (`configFileStateOf`), written only while their token still matches.
 */
import { configFileStateOf } from '../../config/load.js';
import type { ConfigFilePort } from '../../effects/ports/configFiles.js';

export interface MemoryConfigFiles extends ConfigFilePort {
  /** The raw text of `file`, or undefined when it does not exist. */
  text(file: string): string | undefined;
  /** Puts raw text in place (a user's edit, a broken file). */
  put(file: string, text: string): void;
}

export const createMemoryConfigFiles = (initial: Readonly<Record<string, string>> = {}): MemoryConfigFiles => {
  const files = new Map<string, string>(Object.entries(initial));
  return {
    text: (file) => files.get(file),
    put: (file, text) => {
      files.set(file, text);
    },
    read: (scope, file) => configFileStateOf(scope, file, files.get(file)),
    write: async (file, scope, expectedToken, data) => {
      if (configFileStateOf(scope, file, files.get(file)).token !== expectedToken) {
        return `${file} changed while the patch was being applied; nothing was written. Call memory_config again.`;
      }
      files.set(file, `${JSON.stringify(data, null, 2)}\n`);
      return undefined;
    },
  };
};
