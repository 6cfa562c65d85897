/**
 * The project's state dir (`.pi/memory`) as a disk the chaos run can break. As root a small
 * tmpfs is mounted over it for the whole run: a disk-full window fills it with a ballast file
 * until ENOSPC, a read-only window stacks a read-only bind mount of the dir over itself (a
 * plain `remount,ro` fails with EBUSY while a pi process holds a file open for writing; with the
 * stacked mount, new opens get EROFS and handles already open keep writing, as with a remount
 * on a disk whose writers were already open). Without root, the read-only window is a chmod and
 * there is no disk-full window (the report says so). Every mount is undone in `dispose`.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, open, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface StateDisk {
  /** `tmpfs`: mounted (disk-full and read-only windows real); `plain`: not root, chmod only. */
  readonly kind: 'tmpfs' | 'plain';
  fillUp(): Promise<void>;
  freeUp(): Promise<void>;
  readOnly(): Promise<void>;
  writable(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Takes the read-only bind mount off. A pi or server process may hold a directory open in it
 * for a moment (the state code reads through held directory handles), which makes `umount`
 * say "target is busy": try again for up to 3 s, then detach it lazily (new opens see the
 * writable disk; a handle opened while it was read-only stays read-only until it is closed).
 */
const unstack = async (dir: string): Promise<void> => {
  for (let attempt = 0; attempt < 30; attempt += 1) {
    try {
      await run('umount', [dir]);
      return;
    } catch (error) {
      if (!/busy/i.test(String((error as { stderr?: unknown }).stderr ?? error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await run('umount', ['-l', dir]);
};

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** Mounts a tmpfs of `sizeMb` over `dir` (created if missing) when running as root. */
export const openStateDisk = async (dir: string, ballastDir: string, sizeMb: number): Promise<StateDisk> => {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let mounted = 0;
  let ro = false;
  let kind: StateDisk['kind'] = 'plain';
  if (isRoot()) {
    try {
      await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir]);
      mounted = 1;
      kind = 'tmpfs';
    } catch {
      // No CAP_SYS_ADMIN (a container): fall back to chmod windows.
    }
  }
  const ballast = join(dir, '.chaos-ballast');
  await mkdir(ballastDir, { recursive: true });
  return {
    kind,
    fillUp: async () => {
      if (kind !== 'tmpfs') return;
      // One big write for the bulk, then small ones until the last block is gone.
      const handle = await open(ballast, 'a');
      try {
        const fs = await statfs(dir);
        const bulk = Math.max(0, fs.bavail * fs.bsize - 64 * 1024);
        const chunk = Buffer.alloc(1024 * 1024);
        for (let written = 0; written < bulk; written += chunk.length) await handle.write(chunk, 0, Math.min(chunk.length, bulk - written));
        const small = Buffer.alloc(4096);
        for (;;) await handle.write(small);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        await handle.close();
      }
    },
    freeUp: async () => {
      await rm(ballast, { force: true });
    },
    readOnly: async () => {
      if (ro) return;
      if (kind === 'tmpfs') {
        await run('mount', ['--bind', '-o', 'ro', dir, dir]);
        mounted += 1;
      } else {
        await chmod(dir, 0o500);
      }
      ro = true;
    },
    writable: async () => {
      if (!ro) return;
      if (kind === 'tmpfs') {
        await unstack(dir);
        mounted -= 1;
      } else {
        await chmod(dir, 0o700);
      }
      ro = false;
    },
    dispose: async () => {
      await rm(ballast, { force: true }).catch(() => undefined);
      if (kind !== 'tmpfs') {
        await chmod(dir, 0o700).catch(() => undefined);
        return;
      }
      // Lazy unmount: a SIGKILLed pi may still be closing a handle in there.
      for (; mounted > 0; mounted -= 1) await run('umount', ['-l', dir]);
    },
  };
};
