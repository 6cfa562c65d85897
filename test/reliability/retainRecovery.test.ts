/**
 * Recovery without anyone's help: a queue left paused by a 401 resumes when the key works (a
 * new process with the fixed key, a user's flush, a session start, `agent-memory flush`), and
 * a queue left backing off by a killed process delivers as soon as the next process opens it,
 * not when the dead process's timer would have fired. Embedded server, real processes.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { readOnlyJournal } from '../../src/adapters/queue/readJournal.js';
import { forgetBreaker } from '../../src/adapters/server/breaker.js';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { inspectQueue } from '../../src/effects/retainDelivery/inspect.js';
import { openRetainQueue, type RetainQueue } from '../../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../../src/hosts/retainQueueStore.js';
import type { HostMessage } from '../../src/effects/session/messages.js';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { bundleQueueChild, startQueueChild } from './support/childRunner.js';
import { markerCounts, notOnce } from './support/markers.js';
import { clientFor, newJob, tempQueueDir } from './support/queueFixtures.js';
import { waitUntil } from '../helpers/waitUntil.js';

const RETAIN = '/v1/default/banks/*/memories';
const API_KEY = 'hs_recover_right_0123456789abcdef';
const WRONG_KEY = 'hs_recover_wrong_0123456789abcdef';
let open: TestServer;
let locked: TestServer;
let script: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  [open, locked, script] = await Promise.all([startTestServer({ persist: false }), startTestServer({ persist: false, apiKey: API_KEY }), bundleQueueChild()]);
  for (const bank of ['fixed-key', 'flush-probe', 'dead-backoff', 'session-probe']) await clientFor(open.url).ensureBank(bank, { name: bank })();
  await clientFor(locked.url, API_KEY).ensureBank('fixed-key', { name: 'fixed-key' })();
  await clientFor(locked.url, API_KEY).ensureBank('cli-key', { name: 'cli-key' })();
}, 60_000);
afterEach(async () => {
  open.setFaults([]);
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await Promise.all([open.dispose(), locked.dispose()]);
});

const openQueue = async (queuePath: string, server: ReturnType<typeof clientFor>): Promise<RetainQueue> => {
  const queue = await openRetainQueue({ ...fileRetainQueuePorts({ queuePath }), server, mode: 'immediate', flushIntervalMs: 0, onWarning: () => undefined });
  cleanups.push(() => queue.close({ flush: false }));
  return queue;
};

const jobs = (bank: string, markers: number[]) => markers.map((n) => newJob(`recovery fact MK${n}`, { bankId: bank as never, documentId: `doc-${bank}` as never, item: { content: `recovery fact MK${n}` } }));

describe('a queue paused by a 401', () => {
  it('resumes by itself when a process with the fixed key opens it', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    const wrong = await openQueue(tmp.queuePath, clientFor(locked.url, WRONG_KEY));
    await wrong.enqueue(jobs('fixed-key', [1, 2]));
    expect((await wrong.flush({ deadline: Date.now() + 5_000 })).state).toBe('paused');
    await wrong.close({ flush: false });

    const fixed = await openQueue(tmp.queuePath, clientFor(locked.url, API_KEY));
    // Nobody calls resume or flush: opening is enough.
    const ms = await waitUntil(() => fixed.status().depth === 0 && fixed.status().state === 'idle', 5_000, 'delivered after reopening with the right key');
    console.log(`401 then fixed key: delivered ${ms} ms after the queue opened`);
    expect(ms).toBeLessThan(5_000);
    expect(notOnce(await markerCounts(locked, 'fixed-key', { apiKey: API_KEY }), [1, 2])).toEqual([]);
  });

  it('a flush re-probes the pause and delivers once the server takes the key', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    open.setFaults([{ method: 'POST', path: RETAIN, kind: 'status', status: 401 }]);
    const queue = await openQueue(tmp.queuePath, clientFor(open.url));
    await queue.enqueue(jobs('flush-probe', [10, 11]));
    expect((await queue.flush({ deadline: Date.now() + 5_000 })).state).toBe('paused');
    // Still refused: a flush tries once and stays paused, jobs kept.
    expect(await queue.flush({ deadline: Date.now() + 5_000 })).toMatchObject({ state: 'paused', remaining: 2 });
    open.setFaults([]);
    expect(await queue.flush({ deadline: Date.now() + 5_000 })).toMatchObject({ delivered: 2, remaining: 0, state: 'idle' });
    expect(notOnce(await markerCounts(open, 'flush-probe'), [10, 11])).toEqual([]);
  });

  it('a new session re-probes it (runtime), and agent-memory flush delivers with the fixed key', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    const project = path.join(tmp.dir, 'project');
    const home = path.join(tmp.dir, 'home');
    await mkdir(path.join(project, '.pi'), { recursive: true });
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    const userFile = (url: string) => writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: url, trustedOrigins: [url], apiKeyEnv: 'RECOVER_KEY' } }));

    // The runtime against a server that refuses every retain with 401, then takes it: a new session resumes.
    await userFile(open.url);
    await writeFile(path.join(project, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: 'session-probe' } }, scope: { projectId: 'session-probe' } }));
    open.setFaults([{ method: 'POST', path: RETAIN, kind: 'status', status: 401 }]);
    const runtime = await createMemoryRuntime({ cwd: project, home, env: { HOME: home, RECOVER_KEY: API_KEY }, shutdownFlushMs: 300 });
    cleanups.push(() => runtime.close());
    await waitUntil(() => runtime.status().setup.state === 'ready', 10_000, 'setup ready');
    await runtime.send({ type: 'session.started', sessionId: 'probe-1', reason: 'startup' });
    const user = (text: string): HostMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 1 });
    expect((await runtime.retainTurn([user('session fact MK20')]).settled).outcome).toBe('queued');
    await waitUntil(() => runtime.queue?.status().state === 'paused', 5_000, 'paused by the 401');
    open.setFaults([]);
    await runtime.send({ type: 'session.started', sessionId: 'probe-2', reason: 'new' });
    await waitUntil(() => runtime.queue?.status().depth === 0 && runtime.queue.status().state === 'idle', 5_000, 'resumed by the session start');
    expect(notOnce(await markerCounts(open, 'session-probe'), [20])).toEqual([]);
    await runtime.close();

    // A queue paused by the wrong key; the user fixes the key and runs agent-memory flush.
    await userFile(locked.url);
    await writeFile(path.join(project, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: 'cli-key' } }, scope: { projectId: 'cli-key' } }));
    const queuePath = path.join(project, '.pi', 'memory', 'retain-queue.jsonl');
    const wrong = await openQueue(queuePath, clientFor(locked.url, WRONG_KEY));
    await wrong.enqueue(jobs('cli-key', [30, 31]));
    expect((await wrong.flush({ deadline: Date.now() + 5_000 })).state).toBe('paused');
    await wrong.close({ flush: false });
    const flushed = await runCli(['flush', '--timeout-ms', '10000'], { cwd: project, env: { HOME: home, RECOVER_KEY: API_KEY } });
    expect(flushed.stdout, flushed.stdout + flushed.stderr).toMatch(/still queued 0/);
    expect(flushed.stdout).not.toMatch(/paused/);
    expect(notOnce(await markerCounts(locked, 'cli-key', { apiKey: API_KEY }), [30, 31])).toEqual([]);
  }, 60_000);
});

describe('a queue left backing off by a killed process', () => {
  it('delivers as soon as the next process opens it, not when the dead timer would fire', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    open.setFaults([{ method: 'POST', path: RETAIN, kind: 'status', status: 503 }]);
    // A ten-minute backoff, then SIGKILL: its timer dies with it.
    const child = startQueueChild(script, { QUEUE_PATH: tmp.queuePath, SERVER_URL: open.url, BANK: 'dead-backoff', START: '40', COUNT: '3', MODE: 'immediate', BACKOFF_MS: '600000' });
    cleanups.push(() => child.kill());
    await waitUntil(async () => (await readFile(tmp.queuePath, 'utf8').catch(() => '')).includes('"type":"retain.failed"') && child.acked.length === 3, 20_000, 'the child backed off');
    await child.kill();
    // What the dead process left, as the read-only status folds it with the child's policy.
    const left = await inspectQueue(readOnlyJournal(tmp.queuePath), 'immediate', { baseMs: 600_000, capMs: 600_000 });
    expect(left.state).toBe('backingOff');
    const retryInMs = Date.parse(left.nextAttemptAt ?? '') - Date.now();
    expect(retryInMs).toBeGreaterThan(60_000);
    open.setFaults([]);

    const next = await openQueue(tmp.queuePath, clientFor(open.url));
    const ms = await waitUntil(() => next.status().depth === 0, 5_000, 'delivered after the next process opened the queue');
    console.log(`dead process's backoff: delivered ${ms} ms after the next open (its retry was ${Math.round(retryInMs / 1000)} s away)`);
    expect(ms).toBeLessThan(5_000);
    expect(notOnce(await markerCounts(open, 'dead-backoff', { pattern: /<mk:(\d+)>/g }), [40, 41, 42])).toEqual([]);
  }, 60_000);
});

describe('a queue whose shared breaker another process left open', () => {
  it('looks at the server once when it opens, and delivers though the breaker file says to wait ten minutes', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    await clientFor(open.url).ensureBank('breaker-probe', { name: 'breaker-probe' })();
    open.setFaults([{ method: 'POST', path: RETAIN, kind: 'status', status: 503 }]);
    const first = await openQueue(tmp.queuePath, clientFor(open.url));
    await first.enqueue(jobs('breaker-probe', [60, 61]));
    await waitUntil(async () => (await readFile(tmp.queuePath, 'utf8').catch(() => '')).includes('"type":"retain.failed"'), 10_000, 'the first process backed off');
    await first.close({ deadline: Date.now() + 500 });
    // What a process that saw the server die wrote for every other process: open for ten minutes.
    const healthFile = path.join(path.dirname(tmp.queuePath), 'server-health.json');
    await writeFile(healthFile, `${JSON.stringify({ v: 1, baseUrl: open.url, state: { state: 'open', failures: 3, retryAt: Date.now() + 600_000 } })}\n`);
    open.setFaults([]);
    // A new process: its breaker starts from the file.
    forgetBreaker(open.url);
    cleanups.push(async () => forgetBreaker(open.url));
    const server = createMemoryServer({ baseUrl: open.url, timeoutMs: 5_000, breaker: { threshold: 1, coolDownMs: 600_000 }, healthFile });
    expect(server.breaker().state).toBe('open');
    const next = await openQueue(tmp.queuePath, server);
    const ms = await waitUntil(() => next.status().depth === 0, 5_000, 'delivered after the next process opened the queue');
    expect(server.breaker().state).toBe('closed');
    expect(notOnce(await markerCounts(open, 'breaker-probe'), [60, 61])).toEqual([]);
    console.log(`shared breaker open for 10 min: delivered ${ms} ms after the next open`);
  }, 60_000);
});

