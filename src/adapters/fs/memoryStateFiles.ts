/**
 * The in-memory twin of `StateFilePort`: JSON documents by path, stored as the text the disk
 * adapter would write, so a reader gets a copy and never the writer's object.
 */
import { isLeft } from 'fp-ts/lib/Either.js';
import { parseJsonText } from '../../config/jsonText.js';
import type { StateFilePort } from '../../effects/ports/stateFiles.js';

export interface MemoryStateFiles extends StateFilePort {
  /** Puts raw text in place (a torn or hand-edited file). */
  put(file: string, text: string): void;
  /** The next write fails with this message (a full disk). */
  failNextWrite(message: string): void;
}

export const createMemoryStateFiles = (): MemoryStateFiles => {
  const files = new Map<string, string>();
  let failure: string | undefined;
  return {
    put: (file, text) => {
      files.set(file, text);
    },
    failNextWrite: (message) => {
      failure = message;
    },
    readJson: async (file) => {
      const text = files.get(file);
      if (text === undefined) return {};
      const parsed = parseJsonText(text);
      if (isLeft(parsed)) return { error: `${file}: invalid JSON at line ${parsed.left.line}:${parsed.left.column}: ${parsed.left.reason}` };
      return { value: parsed.right };
    },
    writeJson: async (file, data) => {
      if (failure !== undefined) {
        const message = failure;
        failure = undefined;
        return `could not write ${file} (${message}); check the directory's permissions and free space`;
      }
      files.set(file, `${JSON.stringify(data, null, 2)}\n`);
      return undefined;
    },
  };
};
