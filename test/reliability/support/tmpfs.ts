/**
 * A small tmpfs mounted inside one of the test's own temp dirs (root only), so a full or
 * read-only disk is real: the kernel answers ENOSPC and EROFS, not a twin. Unmounted by
 * `dispose`, which the tests call in `finally`.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export interface Tmpfs {
  readonly dir: string;
  /** Fills the disk with a filler file until ENOSPC; returns the filler's path. */
  fill(): string;
  /** Removes the filler. */
  free(): void;
  /**
   * `ro`: a read-only bind mount over the dir, so every open through its path gets EROFS (a
   * remount would fail while the runtime holds a trace file open); `rw` takes it off again.
   */
  readOnly(on: boolean): void;
  dispose(): void;
}

export const isRoot = (): boolean => process.getuid?.() === 0;

let mountable: boolean | undefined;
/**
 * Whether this process may mount a tmpfs: root alone is not enough in a container without
 * CAP_SYS_ADMIN. Probed once with a real mount in a temp dir.
 */
export const canMountTmpfs = (): boolean => {
  if (mountable !== undefined) return mountable;
  mountable = false;
  if (!isRoot()) return mountable;
  const probe = mkdtempSync(path.join(tmpdir(), 'am-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    mountable = true;
  } catch {
    mountable = false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
  return mountable;
};

export const mountTmpfs = (dir: string, sizeKb: number): Tmpfs => {
  if (!isRoot()) throw new Error('a real full or read-only disk needs root (mount -t tmpfs)');
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0700`, 'tmpfs', dir]);
  const filler = path.join(dir, 'zz-filler.bin');
  let mounted = true;
  let readOnlyLayer = false;
  return {
    dir,
    fill: () => {
      const chunk = Buffer.alloc(4096, 1);
      for (;;) {
        try {
          appendFileSync(filler, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
      // What is left below a page: fill it byte by byte.
      for (;;) {
        try {
          appendFileSync(filler, Buffer.alloc(1));
        } catch {
          break;
        }
      }
      return filler;
    },
    free: () => rmSync(filler, { force: true }),
    readOnly: (on) => {
      if (on === readOnlyLayer) return;
      if (on) {
        execFileSync('mount', ['--bind', dir, dir]);
        execFileSync('mount', ['-o', 'remount,ro,bind', dir]);
      } else execFileSync('umount', [dir]);
      readOnlyLayer = on;
    },
    dispose: () => {
      if (!mounted) return;
      mounted = false;
      if (readOnlyLayer) execFileSync('umount', ['-l', dir]);
      execFileSync('umount', ['-l', dir]);
    },
  };
};
