/**
 * The server's one way to replace a whole file durably (the snapshot, the saved search index):
 * a temp file (0600) filled by the caller, fsync, rename over the old one, directory fsync, so
 * a kill at any point leaves either the old file or the new one, never a torn one.
 */
import { open, rename } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

export const replaceFileDurably = async (dir: string, name: string, fill: (handle: FileHandle) => Promise<void>): Promise<void> => {
  const finalPath = join(dir, name);
  const tempPath = `${finalPath}.tmp`;
  const handle = await open(tempPath, 'w', 0o600);
  try {
    await fill(handle);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tempPath, finalPath);
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
};
