/**
 * Writes a config file for memory_config: atomically (temp file, fsync, rename, directory
 * fsync) and only if the file still holds the bytes the patch was computed from, so a
 * concurrent edit is never overwritten. A file that is not valid JSON is never rewritten.
 */
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { writeAtomic } from './atomicFile.js';
import { ensurePrivateDir, isUnsafeFileError } from './safeFile.js';
import { readConfigFile, type ConfigFileState } from '../../config/load.js';
import type { FileScope } from '../../config/resolve.js';
import type { ConfigFilePort } from '../../effects/ports/configFiles.js';
import { errnoCode } from '../../codecs/errno.js';

export interface ConfigWriteError {
  readonly _tag: 'ConfigWriteError';
  readonly message: string;
}

/** Reads the file now (fresh, not from the loaded config). */
const readConfigForEdit = (scope: FileScope, file: string): ConfigFileState => readConfigFile(scope, file);

/**
 * Replaces `file` with `data` as pretty JSON, if its content still hashes to `expectedToken`
 * (`absent` when it did not exist).
 */
export const writeConfigFile = async (file: string, scope: FileScope, expectedToken: string, data: unknown): Promise<E.Either<ConfigWriteError, void>> => {
  const fail = (message: string) => E.left<ConfigWriteError, void>({ _tag: 'ConfigWriteError', message });
  try {
    await ensurePrivateDir(path.dirname(file));
    // The old content is compared after the new one is durable, just before the rename.
    const written = await writeAtomic(file, `${JSON.stringify(data, null, 2)}\n`, { precondition: () => readConfigFile(scope, file).token === expectedToken });
    if (!written) return fail(`${file} changed while the patch was being applied; nothing was written. Call memory_config again.`);
    return E.right(undefined);
  } catch (cause) {
    if (isUnsafeFileError(cause)) return fail(`${cause.message}; nothing was written`);
    const code = errnoCode(cause) ?? 'error';
    return fail(`could not write ${file} (${code}); nothing was changed. Check the directory's permissions and free space.`);
  }
};

/** The port over files on disk. */
export const fileConfigFiles: ConfigFilePort = {
  read: readConfigForEdit,
  write: async (file, scope, token, data) => {
    const result = await writeConfigFile(file, scope, token, data);
    return E.isLeft(result) ? result.left.message : undefined;
  },
};
