/**
 * The retain queue against the embedded server's faults: a flapping server (503, 429, dropped
 * connections), a wrong API key, and a journal damaged on disk.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { createMemoryTwin } from '../../src/adapters/server/memoryTwin.js';
import type { TraceRecord } from '../../src/effects/ports/trace.js';
import { openRetainQueue, type OpenRetainQueueOptions, type RetainQueue } from '../../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../../src/hosts/retainQueueStore.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { clientFor, newJob, tempQueueDir } from './support/queueFixtures.js';

const RETAIN = '/v1/default/banks/*/memories';
let flappy: TestServer;
let locked: TestServer;
const API_KEY = 'hs_right_key_0123456789abcdef';
const WRONG_KEY = 'hs_wrong_key_0123456789abcdef';
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  [flappy, locked] = await Promise.all([startTestServer({ persist: false }), startTestServer({ persist: false, apiKey: API_KEY })]);
  await clientFor(flappy.url).ensureBank('flap', { name: 'flap' })();
  await clientFor(flappy.url).ensureBank('disk', { name: 'disk' })();
  await clientFor(locked.url, API_KEY).ensureBank('auth', { name: 'auth' })();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await Promise.all([flappy.dispose(), locked.dispose()]);
});

const open = async (options: Partial<OpenRetainQueueOptions> & Pick<OpenRetainQueueOptions, 'server'>): Promise<{ queue: RetainQueue; queuePath: string }> => {
  const tmp = await tempQueueDir();
  const queue = await openRetainQueue({ ...fileRetainQueuePorts({ queuePath: tmp.queuePath }), mode: 'immediate', flushIntervalMs: 0, onWarning: () => undefined, ...options });
  cleanups.push(tmp.dispose, () => queue.close({ flush: false }));
  return { queue, queuePath: tmp.queuePath };
};

const documentText = async (server: TestServer, bank: string, doc: string, headers: Record<string, string> = {}): Promise<string> => {
  await server.idle();
  const res = await call(server, 'GET', `/v1/default/banks/${bank}/documents/${encodeURIComponent(doc)}`, undefined, headers);
  return res.status === 200 ? String(res.body.original_text) : '';
};

const untilEmpty = async (queue: RetainQueue, rounds = 200): Promise<void> => {
  for (let i = 0; i < rounds && queue.status().depth > 0; i += 1) {
    await queue.flush({ deadline: Date.now() + 2_000 });
    if (queue.status().depth > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('retain queue against a flapping server (embedded server faults)', () => {
  it('resumes after 503s, 429s and dropped connections, keeps per-document order, delivers once, and bounds its backoff', async () => {
    const trace: TraceRecord[] = [];
    const capMs = 80;
    const { queue } = await open({
      server: clientFor(flappy.url),
      backoff: { baseMs: 10, capMs },
      batchLimits: { maxItems: 3, maxContentChars: 100_000 },
      trace: { write: (record) => void trace.push(record) },
    });
    // One kind of trouble per phase, each while jobs are being delivered.
    const phases = [
      { method: 'POST', path: RETAIN, kind: 'status', status: 503, times: 3 },
      { method: 'POST', path: RETAIN, kind: 'status', status: 429, retryAfterSeconds: 0, times: 2 },
      { method: 'POST', path: RETAIN, kind: 'drop', times: 2 },
      { method: 'POST', path: RETAIN, kind: 'status', status: 502, times: 2 },
    ] as const;
    let n = 0;
    for (const fault of phases) {
      flappy.setFaults([fault]);
      for (let k = 0; k < 6; k += 1, n += 1) {
        await queue.enqueue([newJob(`flap <mk:${n}>`, { bankId: 'flap' as never, documentId: `doc-${n % 4}` as never, item: { content: `flap <mk:${n}>` } })]);
      }
      await untilEmpty(queue);
      expect(queue.status(), JSON.stringify({ fault, status: queue.status() })).toMatchObject({ depth: 0, deadLetters: 0 });
    }
    flappy.setFaults([]);

    for (let d = 0; d < 4; d += 1) {
      const text = await documentText(flappy, 'flap', `doc-${d}`);
      const markers = [...text.matchAll(/<mk:(\d+)>/g)].map((m) => Number(m[1]));
      const expected = Array.from({ length: 6 }, (_, k) => k * 4 + d);
      expect(markers, `doc-${d}: in order, each once`).toEqual(expected);
    }
    // The machine decides each retry time (decide.ts): the retry it schedules after each failure.
    const failures: { at: number; retryAt: number }[] = [];
    let failedAt: number | undefined;
    for (const r of trace) {
      const data = r.data as { type?: string; at?: number; action?: string; params?: { retryAt?: number | null } };
      if (r.kind === 'event' && data.type === 'retain.failed') failedAt = data.at;
      if (r.kind === 'effect' && data.action === 'scheduleRetry' && failedAt !== undefined && typeof data.params?.retryAt === 'number') {
        failures.push({ at: failedAt, retryAt: data.params.retryAt });
        failedAt = undefined;
      }
    }
    expect(failures.length).toBeGreaterThanOrEqual(3 + 2 + 2 + 2);
    for (const f of failures) {
      expect(f.retryAt - f.at).toBeGreaterThanOrEqual(0);
      expect(f.retryAt - f.at).toBeLessThanOrEqual(capMs);
    }
  });
});

describe('retain queue with a wrong API key (embedded server auth)', () => {
  it('pauses on 401 keeping every job, never shows the key, and delivers after resume with the right key', async () => {
    const { queue, queuePath } = await open({ server: clientFor(locked.url, WRONG_KEY) });
    await queue.enqueue([newJob('auth <mk:1>', { bankId: 'auth' as never }), newJob('auth <mk:2>', { bankId: 'auth' as never })]);
    const report = await queue.flush({ deadline: Date.now() + 5_000 });
    expect(report.state).toBe('paused');
    const status = queue.status();
    expect(status).toMatchObject({ depth: 2, state: 'paused' });
    expect(status.pausedReason).toMatch(/401/);
    expect(status.pausedReason).toMatch(/apiKeyEnv/);
    const visible = JSON.stringify(status) + (await readFile(queuePath, 'utf8'));
    expect(visible).not.toContain(WRONG_KEY);
    expect(visible).not.toContain(API_KEY);

    await queue.resume({ server: clientFor(locked.url, API_KEY) });
    await untilEmpty(queue);
    expect(queue.status()).toMatchObject({ depth: 0, state: 'idle' });
    const text = await documentText(locked, 'auth', 'doc-1', { Authorization: `Bearer ${API_KEY}` });
    expect(text.split('<mk:1>')).toHaveLength(2);
    expect(text.split('<mk:2>')).toHaveLength(2);
  });
});

describe('retain queue with a journal damaged on disk', () => {
  it('quarantines a corrupt middle record and a torn tail, reports them, and delivers every intact job', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    const writer = await openRetainQueue({ ...fileRetainQueuePorts({ queuePath: tmp.queuePath }), server: createMemoryTwin(), mode: 'coalesced', flushIntervalMs: 0, onWarning: () => undefined });
    for (let n = 1; n <= 4; n += 1) await writer.enqueue([newJob(`disk <mk:${n}>`, { bankId: 'disk' as never, documentId: `d-${n}` as never })]);
    await writer.close({ flush: false });

    const lines = (await readFile(tmp.queuePath, 'utf8')).split('\n');
    const second = lines.findIndex((line) => line.includes('<mk:2>'));
    expect(second).toBeGreaterThan(0);
    lines[second] = (lines[second] ?? '').replace('<mk:2>', '<mk:X>'); // parses, checksum no longer matches
    await writeFile(tmp.queuePath, lines.join('\n'));
    await appendFile(tmp.queuePath, '{"v":1,"seq":9,"type":"retain.enq'); // a writer died mid-line

    const warnings: string[] = [];
    const queue = await openRetainQueue({ ...fileRetainQueuePorts({ queuePath: tmp.queuePath }), server: clientFor(flappy.url), mode: 'immediate', flushIntervalMs: 0, onWarning: (m) => warnings.push(m) });
    cleanups.push(() => queue.close({ flush: false }));
    expect(queue.status().damaged).toBe(2);
    expect(warnings.join('\n')).toMatch(/checksum mismatch/);
    expect(warnings.join('\n')).toMatch(/torn last line/);
    const quarantine = await readFile(tmp.queuePath.replace(/\.jsonl$/, '.quarantine.jsonl'), 'utf8');
    expect(quarantine.trim().split('\n')).toHaveLength(2);
    await untilEmpty(queue);
    // The three intact jobs, and not the corrupt one.
    for (const n of [1, 3, 4]) expect(await documentText(flappy, 'disk', `d-${n}`)).toContain(`<mk:${n}>`);
    expect(await documentText(flappy, 'disk', 'd-2')).not.toMatch(/<mk:[2X]>/);
    // New jobs go after the repaired tail and read back intact.
    await queue.enqueue([newJob('disk <mk:5>', { bankId: 'disk' as never, documentId: 'd-5' as never })]);
    await untilEmpty(queue);
    expect(await documentText(flappy, 'disk', 'd-5')).toContain('<mk:5>');
  });
});

describe('the queue owns retries (the client makes one attempt per send)', () => {
  it('one 503 is a retain.failed with a backoff, not a retry hidden inside the client, even when the client would retry', async () => {
    // A client with its own default retries (3 attempts): the queue's sends still go out once.
    const client = createMemoryServer({ baseUrl: flappy.url, timeoutMs: 5_000, breaker: { threshold: 1_000, coolDownMs: 100 } });
    const trace: TraceRecord[] = [];
    const { queue } = await open({ server: client, backoff: { baseMs: 50, capMs: 100 }, trace: { write: (record) => void trace.push(record) } });
    flappy.setFaults([{ method: 'POST', path: RETAIN, kind: 'status', status: 503, times: 1 }]);
    await queue.enqueue([newJob('owned <mk:900>', { bankId: 'flap' as never, documentId: 'owned' as never, item: { content: 'owned <mk:900>' } })]);
    await untilEmpty(queue);
    flappy.setFaults([]);
    const types = trace.filter((r) => r.kind === 'event').map((r) => (r.data as { type?: string }).type);
    expect(types.filter((t) => t === 'retain.failed')).toHaveLength(1);
    expect(types.filter((t) => t === 'retain.delivered')).toHaveLength(1);
    expect((await documentText(flappy, 'flap', 'owned')).split('<mk:900>')).toHaveLength(2);
  });
});
