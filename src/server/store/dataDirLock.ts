/**
 * One server per data directory: `server.lock` names its owner. It is the shared directory
 * lock (the retain queue uses the same one), held for the server's lifetime: no heartbeat,
 * so only an owner that is gone (killed) makes it stale, and a restart after SIGKILL just works.
 */
import { join } from 'node:path';
import { createDirLock } from '../../adapters/fs/dirLock.js';

const LOCK_FILE = 'server.lock';

export const acquireDataDirLock = async (dir: string): Promise<() => Promise<void>> => {
  const lock = createDirLock({ path: join(dir, LOCK_FILE), staleMs: Number.POSITIVE_INFINITY });
  const held = await lock.tryAcquire();
  if (held !== undefined) return () => held.release();
  const owner = await lock.holder();
  if (owner?.pid === process.pid) {
    throw new Error(`server data: ${dir} is in use by another server in this process; close it or choose another data dir`);
  }
  const who = owner === undefined ? 'an unknown process' : `pid ${owner.pid} on ${owner.host}`;
  throw new Error(`server data: ${dir} is in use by another server (${who}); stop it or choose another --data-dir, or remove ${lock.path} if no server is running`);
};
