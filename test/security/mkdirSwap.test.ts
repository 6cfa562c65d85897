/**
 * Attack (round 9, left by round 8): `mkdir -p` of a state directory while a directory on its
 * way is swapped for a link. `ensurePrivateDir` checked each directory from the state dir down,
 * then made the path with a recursive `mkdir` by path: with `.pi` swapped for a link to another
 * account's directory between the two, the missing directories were created there (empty: the
 * next open was refused, but the directories stayed). Now on Linux each missing directory is made
 * in the one above it held open, and opened `O_NOFOLLOW` before the next is made in it. A second
 * process swaps `.pi` as fast as it can while this one makes fresh directories under
 * `.pi/memory` (sync and async); the other account's directory is watched (inotify) and nothing
 * is created in it. Linux (`/proc/self/fd`) only.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confineStateDir, ensurePrivateDir, ensurePrivateDirSync, isUnsafeFileError } from '../../src/adapters/fs/safeFile.js';
import { errnoCode } from '../../src/codecs/errno.js';
import { startDirSwapper, watchDir } from './support/dirSwapper.js';

const onLinux = process.platform === 'linux' && existsSync('/proc/self/fd');

let root: string;
let project: string;
let victim: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'am-mkdirswap-'));
  project = path.join(root, 'project');
  victim = path.join(root, 'victim');
  mkdirSync(path.join(victim, 'memory'), { recursive: true });
  confineStateDir(path.join(project, '.pi'), project);
  ensurePrivateDirSync(path.join(project, '.pi', 'memory'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const tolerated = (error: unknown): boolean => isUnsafeFileError(error) || ['ENOENT', 'ENOTDIR', 'ELOOP'].includes(errnoCode(error) ?? '');

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

describe.runIf(onLinux)('mkdir -p of a state directory while a directory on its way is swapped for a link', () => {
  it('creates each directory in the real state dir or refuses; none where the link leads', async () => {
    const memory = path.join(project, '.pi', 'memory');
    const watchers = [watchDir(victim), watchDir(path.join(victim, 'memory'))];
    const swapper = await startDirSwapper(path.join(project, '.pi'), victim);
    let made = 0;
    let refused = 0;
    const deadline = Date.now() + 5_000;
    try {
      for (let round = 0; Date.now() < deadline && round < 50_000; round += 1) {
        const dir = path.join(memory, `d${round}`, 'inner');
        try {
          if (round % 2 === 0) ensurePrivateDirSync(dir);
          else await ensurePrivateDir(dir);
          made += 1;
        } catch (error) {
          if (!tolerated(error)) throw error;
          refused += 1;
        }
        if (round % 200 === 0) await settle();
      }
    } finally {
      await swapper.stop();
      await settle();
      for (const w of watchers) w.close();
    }
    expect(made).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(watchers.flatMap((w) => w.seen)).toEqual([]);
    expect(readdirSync(path.join(victim, 'memory'))).toEqual([]);
    expect(readdirSync(victim)).toEqual(['memory']);
  }, 60_000);
});
