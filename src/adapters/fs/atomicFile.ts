/**
 * Durable file writes shared by every adapter that keeps state on disk (queue, receipts,
 * config files, tool sidecars): one way to replace a file atomically and make it survive a
 * power cut.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { checkParent } from './safeFile.js';

/** Makes a created or renamed entry durable; best effort where directories cannot be synced. */
export const fsyncDirectory = async (dir: string): Promise<void> => {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw error;
  } finally {
    await handle?.close();
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
  const temp = `${file}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    await fs.writeFile(temp, data, { mode: 0o600, flag: 'wx', flush: true });
    if (options.precondition !== undefined && !options.precondition()) {
      await fs.rm(temp, { force: true });
      return false;
    }
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await fsyncDirectory(path.dirname(file));
  return true;
};
