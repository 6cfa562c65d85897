/** The breaker state survives a process: a new client starts open when another found the server dead. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBreaker, forgetBreaker } from '../../../src/adapters/server/breaker.js';
import { breakerFile } from '../../../src/adapters/server/breakerFile.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import type { ClockPort } from '../../../src/effects/ports/clock.js';
import { startFaultServer, type FaultServer } from '../../helpers/faultServer.js';

const fixedClock = (now: number): ClockPort => ({ now: () => now, setTimer: () => () => undefined });

describe('breaker file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'breaker-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each transition and restores it in a new breaker', async () => {
    const path = join(dir, 'memory', 'server-health.json');
    const first = createBreaker(fixedClock(1_000), { threshold: 1, coolDownMs: 500 }, breakerFile(path, 'http://a'));
    first.record('noAnswer', false);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ v: 1, baseUrl: 'http://a', state: { state: 'open', failures: 1, retryAt: 1_500 } });
    const second = createBreaker(fixedClock(1_200), { threshold: 1, coolDownMs: 500 }, breakerFile(path, 'http://a'));
    expect(second.admit()).toEqual({ admitted: false, retryAt: 1_500 });
  });

  it("a retry time a jumped clock wrote (hours ahead) holds a new process off for one cool-down at most", async () => {
    const path = join(dir, 'jumped.json');
    // Another process's clock ran three hours ahead when it opened the breaker.
    createBreaker(fixedClock(10_800_000), { threshold: 1, coolDownMs: 500 }, breakerFile(path, 'http://a')).record('noAnswer', false);
    const honest = createBreaker(fixedClock(1_000), { threshold: 1, coolDownMs: 500 }, breakerFile(path, 'http://a'));
    expect(honest.admit()).toEqual({ admitted: false, retryAt: 1_500 });
    // The bounded time is written back: the file no longer tells anyone to wait three hours.
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ state: { state: 'open', retryAt: 1_500 } });
  });

  it("this process's clock jumping back does not stretch its own cool-down", () => {
    let now = 10_000_000;
    const breaker = createBreaker({ now: () => now, setTimer: () => () => undefined }, { threshold: 1, coolDownMs: 500 });
    breaker.record('noAnswer', false);
    now -= 3_600_000;
    expect(breaker.admit()).toEqual({ admitted: false, retryAt: now + 500 });
    now += 500;
    expect(breaker.admit()).toEqual({ admitted: true, probe: true });
  });

  it('starts closed for another base URL or an unreadable file', async () => {
    const path = join(dir, 'other.json');
    createBreaker(fixedClock(0), { threshold: 1, coolDownMs: 500 }, breakerFile(path, 'http://a')).record('noAnswer', false);
    expect(createBreaker(fixedClock(0), undefined, breakerFile(path, 'http://b')).state()).toEqual({ state: 'closed', failures: 0 });
    await writeFile(path, '{"v":1,"baseUrl":');
    expect(createBreaker(fixedClock(0), undefined, breakerFile(path, 'http://a')).state()).toEqual({ state: 'closed', failures: 0 });
  });

  it('restores a half-open state as open with its probe due', async () => {
    const path = join(dir, 'half.json');
    await writeFile(path, JSON.stringify({ v: 1, baseUrl: 'http://a', state: { state: 'halfOpen', failures: 3, retryAt: 10 } }));
    const breaker = createBreaker(fixedClock(20), undefined, breakerFile(path, 'http://a'));
    expect(breaker.admit()).toEqual({ admitted: true, probe: true });
  });

  it('never throws when the file cannot be written', async () => {
    // A regular file where the directory should be: mkdir fails with ENOTDIR.
    const blocker = join(dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const persistence = breakerFile(join(blocker, 'memory', 'health.json'), 'http://a');
    expect(() => persistence.save({ state: 'open', failures: 1, retryAt: 1 })).not.toThrow();
    expect(persistence.load()).toBeUndefined();
  });
});

describe('breaker file between clients', () => {
  let faults: FaultServer;
  let dir: string;
  beforeAll(async () => {
    faults = await startFaultServer();
    dir = await mkdtemp(join(tmpdir(), 'breaker-client-'));
  });
  afterAll(async () => {
    await faults.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lets a new process fail fast on a server the previous one found dead', async () => {
    const healthFile = join(dir, 'server-health.json');
    const options = { baseUrl: faults.url, timeoutMs: 2_000, healthFile, breaker: { threshold: 2, coolDownMs: 60_000 }, retry: { attempts: 1, baseMs: 1, capMs: 1 } };
    const first = createMemoryServer(options);
    faults.script({ kind: 'reset' }, { kind: 'reset' });
    await first.recall('b', { query: 'q' })();
    await first.recall('b', { query: 'q' })();
    expect(first.breaker().state).toBe('open');

    // A new host process: nothing shared in memory, only the file.
    forgetBreaker(faults.url);
    const second = createMemoryServer(options);
    const result = await second.recall('b', { query: 'q' })();
    expect(E.isLeft(result) && result.left._tag).toBe('circuitOpen');
    expect(faults.requests).toHaveLength(2);
  });
});
