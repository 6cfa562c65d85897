/**
 * Whether a process with this pid exists on this machine, by signal 0 (which sends nothing). With
 * the file primitives, since adapters share only adapters/fs: the directory lock and the browser's
 * run list both ask it.
 */
import { errnoCode } from '../../codecs/errno.js';

export const pidExists = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another account.
    return errnoCode(error) === 'EPERM';
  }
};
