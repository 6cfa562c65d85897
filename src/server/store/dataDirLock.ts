/**
 * One server per data directory: `server.lock` holds the owner's pid. A lock whose pid is no
 * longer alive (the server was killed) is taken over, so a restart after SIGKILL just works.
 */
import { open, readFile, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const LOCK_FILE = 'server.lock';
/** Directories locked by servers in this process (a pid check cannot tell them apart). */
const heldHere = new Set<string>();

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export const acquireDataDirLock = async (dir: string): Promise<() => Promise<void>> => {
  const path = join(dir, LOCK_FILE);
  const key = resolve(dir);
  if (heldHere.has(key)) throw new Error(`server data: ${dir} is in use by another server in this process; close it or choose another data dir`);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      heldHere.add(key);
      return async () => {
        heldHere.delete(key);
        await unlink(path).catch(() => undefined);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isSafeInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new Error(`server data: ${dir} is in use by another server (pid ${owner}); stop it or choose another --data-dir`, { cause: error });
      }
      await unlink(path).catch(() => undefined);
    }
  }
  throw new Error(`server data: could not lock ${dir}; remove ${path} if no server is running`);
};
