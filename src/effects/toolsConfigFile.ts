/**
 * Writes a config file for memory_config: atomically (temp file, fsync, rename, directory
 * fsync) and only if the file still holds the bytes the patch was computed from, so a
 * concurrent edit is never overwritten. A file that is not valid JSON is never rewritten.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { readConfigFile, type ConfigFileState } from '../config/load.js';
import type { FileScope } from '../config/resolve.js';

export interface ConfigWriteError {
  readonly _tag: 'ConfigWriteError';
  readonly message: string;
}

const fsyncDir = async (dir: string): Promise<void> => {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms cannot open a directory for fsync; the rename is still atomic.
  }
};

/** Reads the file now (fresh, not from the loaded config). */
export const readConfigForEdit = (scope: FileScope, file: string): ConfigFileState => readConfigFile(scope, file);

/**
 * Replaces `file` with `data` as pretty JSON, if its content still hashes to `expectedToken`
 * (`absent` when it did not exist).
 */
export const writeConfigFile = async (file: string, scope: FileScope, expectedToken: string, data: unknown): Promise<E.Either<ConfigWriteError, void>> => {
  const fail = (message: string) => E.left<ConfigWriteError, void>({ _tag: 'ConfigWriteError', message });
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    const now = readConfigFile(scope, file);
    if (now.token !== expectedToken) {
      await rm(temp, { force: true });
      return fail(`${file} changed while the patch was being applied; nothing was written. Call memory_config again.`);
    }
    await rename(temp, file);
    await fsyncDir(dir);
    return E.right(undefined);
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => undefined);
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    return fail(`could not write ${file} (${code}); nothing was changed. Check the directory's permissions and free space.`);
  }
};
