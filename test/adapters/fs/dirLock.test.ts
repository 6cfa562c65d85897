import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { createDirLock } from '../../../src/adapters/fs/dirLock.js';
import { processStartTicks } from '../../../src/adapters/fs/processStart.js';
import { tempQueueDir } from '../../reliability/support/queueFixtures.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const lockPath = async (): Promise<string> => {
  const tmp = await tempQueueDir();
  cleanups.push(tmp.dispose);
  return join(tmp.dir, 'retain-queue.lock');
};

/** The pid of a process that has exited (the kernel will not reuse it this soon). */
const deadPid = (): number => {
  const run = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(run.stdout.toString());
};

describe('dirLock', () => {
  it('excludes a second holder until the first releases', async () => {
    const path = await lockPath();
    const a = createDirLock({ path });
    const b = createDirLock({ path });
    const held = await a.tryAcquire();
    expect(held).toBeDefined();
    expect(await b.tryAcquire()).toBeUndefined();
    expect((await b.holder())?.pid).toBe(process.pid);
    await held?.release();
    const next = await b.tryAcquire();
    expect(next).toBeDefined();
    await next?.release();
  });

  it('takes over at once from a holder on this host whose process is gone', async () => {
    const path = await lockPath();
    await writeFile(path, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'dead', at: Date.now() }));
    const held = await createDirLock({ path }).tryAcquire();
    expect(held).toBeDefined();
    expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);
    await held?.release();
  });

  it('takes over at once from a holder on this host whose pid another process now has, never from a live holder', async () => {
    // A live process that is not the holder: the lock records a start before this one's.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    cleanups.push(async () => {
      other.kill();
    });
    const pid = other.pid ?? 0;
    let ticks: number | undefined;
    while ((ticks = processStartTicks(pid)) === undefined) await new Promise((r) => setTimeout(r, 10));
    const path = await lockPath();
    await writeFile(path, JSON.stringify({ pid, host: hostname(), token: 'reused', at: Date.now() - 3_600_000, startTicks: ticks - 500 }));
    const lock = createDirLock({ path });
    const held = await lock.tryAcquire();
    expect(held).toBeDefined();
    const written = JSON.parse(await readFile(path, 'utf8'));
    expect(written.startTicks).toBe(processStartTicks(process.pid));
    await held?.release();
    // The same pid with its own start is the holder, whatever its heartbeat's age.
    await writeFile(path, JSON.stringify({ pid, host: hostname(), token: 'live', at: Date.now() - 3_600_000, startTicks: ticks }));
    expect(await lock.tryAcquire()).toBeUndefined();
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('live');
  });

  it('takes over from a holder elsewhere only once its heartbeat has not moved for the stale time', async () => {
    const path = await lockPath();
    await writeFile(path, JSON.stringify({ pid: 1, host: 'another-host', token: 'remote', at: Date.now() }));
    // An old mtime alone proves nothing: this process's wall clock may have jumped.
    const old = new Date(Date.now() - 10_000);
    await utimes(path, old, old);
    const lock = createDirLock({ path, staleMs: 200 });
    expect(await lock.tryAcquire()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    const held = await lock.tryAcquire();
    expect(held).toBeDefined();
    await held?.release();
  });

  it('never takes over a holder whose heartbeat moves, whatever its mtime says (a wall clock that jumped)', async () => {
    const path = await lockPath();
    await writeFile(path, JSON.stringify({ pid: 1, host: 'another-host', token: 'remote', at: Date.now() }));
    const lock = createDirLock({ path, staleMs: 200 });
    // The holder's clock runs three hours behind: every heartbeat it writes looks ancient here.
    const behind = Date.now() - 3 * 3_600_000;
    for (let beat = 0; beat < 8; beat += 1) {
      const at = new Date(behind + beat * 60);
      await utimes(path, at, at);
      expect(await lock.tryAcquire()).toBeUndefined();
      await new Promise((r) => setTimeout(r, 60));
    }
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('remote');
  });

  it('release leaves alone a lock that someone else now holds; refresh reports the loss', async () => {
    const path = await lockPath();
    const lock = createDirLock({ path });
    const held = await lock.tryAcquire();
    await writeFile(path, JSON.stringify({ pid: process.pid, host: hostname(), token: 'someone-else', at: Date.now() }));
    expect(await held?.refresh()).toBe(false);
    await held?.release();
    expect((await stat(path)).isFile()).toBe(true);
  });

  it('acquire gives up after its timeout naming the lock and the holder', async () => {
    const path = await lockPath();
    const held = await createDirLock({ path }).tryAcquire();
    await expect(createDirLock({ path }).acquire(50)).rejects.toThrow(new RegExp(`waiting for the lock .*retain-queue.lock held by process ${process.pid}`));
    await held?.release();
  });
});
