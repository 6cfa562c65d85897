/**
 * Attack (round 9, left by round 8): the queue's lock and its owner draft made by path while
 * the state directory is swapped for a link. Round 8 put every state file's open, create, rename
 * and remove behind the directory held open (`stateDirSwap.test.ts`), but the inter-process lock
 * (`retain-queue.lock`: a draft `….owner` written, hard-linked to the lock's name, removed; a
 * stale lock renamed to a tombstone and removed; its heartbeat touched), the journal's set-aside
 * rename and the queue key's temp file were still made by path: with `.pi` swapped for a link to
 * another account's directory between two calls, the drafts, locks and tombstones were created,
 * renamed and removed there, and a file of that account's named like the lock was taken for a
 * stale lock and deleted. A second process swaps `.pi` as fast as it can while this one takes and
 * lets go of the real lock, opens the real journal with its owner mark, and appends; the other
 * account's directory is watched (inotify): nothing is created, changed or removed in it. Linux
 * (`/proc/self/fd`) only.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDirLock } from '../../src/adapters/fs/dirLock.js';
import { confineStateDir, ensurePrivateDirSync, isUnsafeFileError } from '../../src/adapters/fs/safeFile.js';
import { openJsonlJournal } from '../../src/adapters/queue/jsonlJournal.js';
import { errnoCode } from '../../src/codecs/errno.js';
import { startDirSwapper, watchDir } from './support/dirSwapper.js';

const onLinux = process.platform === 'linux' && existsSync('/proc/self/fd');

let root: string;
let project: string;
let victimMemory: string;

const VICTIM_TEXT = "the other account's own file\n";
// Named as memory names its own files: the lock, the journal, its owner mark.
const VICTIM_FILES = ['retain-queue.lock', 'retain-queue.jsonl', 'retain-queue.owner', 'notes.txt'];

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'am-lockswap-'));
  project = path.join(root, 'project');
  victimMemory = path.join(root, 'victim', 'memory');
  mkdirSync(victimMemory, { recursive: true });
  for (const name of VICTIM_FILES) writeFileSync(path.join(victimMemory, name), VICTIM_TEXT);
  confineStateDir(path.join(project, '.pi'), project);
  ensurePrivateDirSync(path.join(project, '.pi', 'memory'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const tolerated = (error: unknown): boolean =>
  isUnsafeFileError(error) || ['ENOENT', 'ENOTDIR', 'ELOOP'].includes(errnoCode(error) ?? '') || /timed out after|could not write|refusing/.test(String(error));

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

describe.runIf(onLinux)('the queue lock while the state directory is swapped for a link', () => {
  it('takes, refreshes and lets go of its lock, and opens and appends to its journal, without touching the directory the link leads to', async () => {
    const memory = path.join(project, '.pi', 'memory');
    const watcher = watchDir(victimMemory);
    const swapper = await startDirSwapper(path.join(project, '.pi'), path.join(root, 'victim'));
    let taken = 0;
    let refused = 0;
    const deadline = Date.now() + 6_000;
    try {
      for (let round = 0; Date.now() < deadline && round < 50_000; round += 1) {
        try {
          if (round % 50 === 0) {
            const journal = await openJsonlJournal({ path: path.join(memory, 'retain-queue.jsonl'), lockTimeoutMs: 50, owner: { mark: 'a'.repeat(64), trust: false } });
            await journal.close();
          } else {
            // A short stale time: a lock left by a refused release is claimed as stale (rename to a tombstone, remove).
            const lock = createDirLock({ path: path.join(memory, 'retain-queue.lock'), staleMs: 1, retryMs: 1 });
            const held = lock.acquireSync(50);
            await held.refresh();
            held.releaseSync();
          }
          taken += 1;
        } catch (error) {
          if (!tolerated(error)) throw error;
          refused += 1;
        }
        // Let the watcher's events in.
        if (round % 200 === 0) await settle();
      }
    } finally {
      await swapper.stop();
      await settle();
      watcher.close();
    }
    expect(taken).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(watcher.seen).toEqual([]);
    for (const name of VICTIM_FILES) expect(readFileSync(path.join(victimMemory, name), 'utf8'), name).toBe(VICTIM_TEXT);
    expect(readdirSync(victimMemory).sort()).toEqual([...VICTIM_FILES].sort());
  }, 60_000);
});
