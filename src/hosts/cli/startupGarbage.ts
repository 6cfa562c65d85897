/**
 * One full collection of V8's heap, once a long-lived process has loaded what it serves. Start-up
 * leaves buffers, strings and arrays it read once (a bank's segment footer and its JSON, the saved
 * index's head and ids) in the old generation, where only a full collection frees them, and a
 * server answering recalls runs none for hundreds of requests: at 100k memories they kept about
 * 10 MB resident through a whole `server-peers` run. Node exposes `gc` only behind `--expose-gc`,
 * which a running process can turn on for the contexts it makes afterwards.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const collectStartupGarbage = (): void => {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  // Off again: no context made later (a test's, a library's) finds `gc` it did not ask for.
  setFlagsFromString('--no-expose-gc');
  if (typeof gc === 'function') gc();
};
