/**
 * The other account of the state-directory races: a child process that swaps a directory for a
 * link to a directory of its own and back, as fast as it can, until stopped. It plays someone
 * who may rename entries in the project directory (a shared checkout others may write).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, renameSync, rmSync, symlinkSync, watch, writeFileSync, type FSWatcher } from 'node:fs';

// Memory may recreate the directory in the instant it is away (a state dir that vanished is made
// again): such a directory is moved to a trash name, so the swapping goes on.
const SWAPPER = String.raw`
const fs = require('node:fs');
const [dir, real, link, stop, trash] = process.argv.slice(1);
const isLink = (p) => { try { return fs.lstatSync(p).isSymbolicLink(); } catch { return false; } };
const exists = (p) => { try { fs.lstatSync(p); return true; } catch { return false; } };
let made = 0;
const clear = () => { if (exists(dir) && !isLink(dir)) fs.renameSync(dir, trash + '-' + made++); };
let n = 0;
for (;;) {
  try { if (!exists(real) && !isLink(dir)) fs.renameSync(dir, real); clear(); if (isLink(link)) fs.renameSync(link, dir); } catch {}
  try { if (isLink(dir)) fs.renameSync(dir, link); clear(); if (exists(real)) fs.renameSync(real, dir); } catch {}
  if ((++n & 255) === 0 && fs.existsSync(stop)) break;
}
`;

export interface DirSwapper {
  /** Stops the child and puts the real directory back at its name. */
  stop(): Promise<void>;
}

/** Starts swapping `dir` with a link to `target`; resolves once it has been going 200 ms. */
export const startDirSwapper = async (dir: string, target: string): Promise<DirSwapper> => {
  const real = `${dir}-real`;
  const link = `${dir}-link`;
  const stopFile = `${dir}-stop`;
  const trash = `${dir}-made`;
  rmSync(stopFile, { force: true });
  rmSync(link, { force: true });
  symlinkSync(target, link);
  const child: ChildProcess = spawn(process.execPath, ['-e', SWAPPER, dir, real, link, stopFile, trash], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    stop: async () => {
      writeFileSync(stopFile, '');
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 5_000);
      });
      // Whichever half of a swap it stopped in: the real directory back at its name, no link left.
      if (existsSync(real)) {
        if (lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() === true) rmSync(dir);
        else if (existsSync(dir)) renameSync(dir, `${trash}-last`);
        renameSync(real, dir);
      }
      if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() === true) rmSync(link);
      rmSync(stopFile, { force: true });
    },
  };
};

/** Records every name created, changed or removed in `dir` (inotify) until closed. */
export const watchDir = (dir: string): { readonly seen: string[]; close(): void } => {
  const seen: string[] = [];
  const watcher: FSWatcher = watch(dir, (event, name) => seen.push(`${event} ${name ?? '?'}`));
  return { seen, close: () => watcher.close() };
};
