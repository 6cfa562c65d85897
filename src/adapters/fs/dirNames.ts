/**
 * The names in a directory, none when it does not exist yet: the queue's set-aside files and the
 * memory browser's address files are both looked for in a directory a first run may not have made.
 */
import { readdirSync } from 'node:fs';
import { errnoCode } from '../../codecs/errno.js';

export const dirNamesSync = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
};
