/**
 * Durable file writes shared by every adapter that keeps state on disk (queue, receipts,
 * config files, tool sidecars): one way to replace a file atomically and make it survive a
 * power cut.
 */
import { closeSync, fsyncSync, openSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { checkParent, inCheckedDir, tempNameFor } from './safeFile.js';
import { errnoCode } from '../../codecs/errno.js';

const directoryUnsyncable = (error: unknown): boolean => {
  const code = errnoCode(error);
  return code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL' || code === 'EBADF';
};

/** Makes a created or renamed entry durable; best effort where directories cannot be synced. */
const fsyncDirectory = async (dir: string): Promise<void> => {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (error) {
    if (!directoryUnsyncable(error)) throw error;
  } finally {
    await handle?.close();
  }
};

/** `fsyncDirectory`, synchronously (the journal's writes never yield while they hold its lock). */
export const fsyncDirectorySync = (dir: string): void => {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (error) {
    if (!directoryUnsyncable(error)) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};

export interface WriteAtomicOptions {
  /**
   * Checked after the new content is durable and just before the rename: returning false
   * drops the temp file and leaves `file` untouched (a compare-and-swap on the old content).
   */
  readonly precondition?: () => boolean;
}

/**
 * Writes `data` to `file` atomically: unique temp (0600, exclusive create: a planted name is
 * never followed), fsync, rename (which replaces a symbolic link, never its target), directory
 * fsync. A symlinked directory is refused. Resolves true when written, false when the
 * precondition refused; throws on I/O errors.
 */
export const writeAtomic = async (file: string, data: string | Buffer, options: WriteAtomicOptions = {}): Promise<boolean> => {
  await checkParent(file);
  // Created, written and renamed in the directory the walk checked (safeFile.ts `inCheckedDir`).
  const written = await inCheckedDir(file, async (at) => {
    const temp = tempNameFor(at);
    try {
      await fs.writeFile(temp, data, { mode: 0o600, flag: 'wx', flush: true });
      if (options.precondition !== undefined && !options.precondition()) {
        await fs.rm(temp, { force: true });
        return false;
      }
      await fs.rename(temp, at);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    return true;
  });
  if (!written) return false;
  await fsyncDirectory(path.dirname(file));
  return true;
};
