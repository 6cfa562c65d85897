import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { createMemoryTwin, type MemoryTwin } from '../../../src/adapters/server/memoryTwin.js';
import { openJsonlJournal, nodeJournalFs, type JournalFs } from '../../../src/adapters/queue/jsonlJournal.js';
import type { JournalEntry, JournalPort } from '../../../src/effects/ports/journal.js';
import { openRetainQueue, type OpenRetainQueueOptions, type RetainQueue } from '../../../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../../../src/hosts/retainQueueStore.js';
import { createMemoryQueueStore, type MemoryQueueStoreTwin } from '../../../src/adapters/queue/memoryQueueStore.js';
import { nodeIds } from '../../../src/adapters/ids/nodeIds.js';
import { newJob, tempQueueDir } from '../../reliability/support/queueFixtures.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Queue options, plus the journal's file operations (a full disk) for the file store. */
type SetupOptions = Partial<OpenRetainQueueOptions> & { readonly journalFs?: JournalFs };

const setup = async (
  overrides: SetupOptions = {},
): Promise<{ queue: RetainQueue; twin: MemoryTwin; queuePath: string; reopen: (o?: SetupOptions) => Promise<RetainQueue> }> => {
  const tmp = await tempQueueDir();
  const twin = (overrides.server as MemoryTwin | undefined) ?? createMemoryTwin();
  const open = async (o: SetupOptions = {}): Promise<RetainQueue> => {
    const { journalFs, ...options } = { ...overrides, ...o };
    const queue = await openRetainQueue({
      ...fileRetainQueuePorts({ queuePath: tmp.queuePath, ...(journalFs === undefined ? {} : { journalFs }) }),
      server: twin,
      mode: 'immediate',
      flushIntervalMs: 0,
      backoff: { baseMs: 10, capMs: 40 },
      onWarning: () => undefined,
      ...options,
    });
    cleanups.push(() => queue.close({ flush: false }));
    return queue;
  };
  cleanups.push(tmp.dispose);
  return { queue: await open(), twin, queuePath: tmp.queuePath, reopen: open };
};

const soon = (ms = 5_000): number => Date.now() + ms;
const retainCalls = (twin: MemoryTwin) => twin.calls.filter((c) => c.op === 'retain');
const occurrences = (text: string | undefined, marker: string): number => (text ?? '').split(marker).length - 1;

describe('retain queue delivery', () => {
  it('delivers in immediate mode, in order, once, and says so in status', async () => {
    const { queue, twin } = await setup();
    const seen: string[] = [];
    queue.subscribe((s) => seen.push(s.state));
    await queue.enqueue([newJob('one m-1'), newJob('two m-2')]);
    const report = await queue.flush({ deadline: soon() });
    expect(report).toMatchObject({ remaining: 0, state: 'idle' });
    const text = twin.documentText('bank-a', 'doc-1') ?? '';
    expect(occurrences(text, 'm-1')).toBe(1);
    expect(text.indexOf('m-1')).toBeLessThan(text.indexOf('m-2'));
    expect(queue.status()).toMatchObject({ depth: 0, state: 'idle', deadLetters: 0 });
    expect(queue.status().lastDelivery?.jobCount).toBeGreaterThan(0);
    expect(seen).toContain('delivering');
  });

  it('sends each job under the idempotency key fixed at enqueue, async', async () => {
    const { queue, twin } = await setup();
    const [job] = await queue.enqueue([newJob('keyed m-k')]);
    await queue.flush({ deadline: soon() });
    const args = retainCalls(twin)[0]?.args as { operation_id?: string; async?: boolean };
    expect(args.operation_id).toBe(job?.idempotencyKey);
    expect(args.async).toBe(true);
  });

  it('coalesced mode waits for a flush and merges appends to one document into one item', async () => {
    const { queue, twin } = await setup({ mode: 'coalesced', flushIntervalMs: 60_000 });
    await queue.enqueue([newJob('c m-1')]);
    await queue.enqueue([newJob('c m-2')]);
    await queue.enqueue([newJob('other doc m-3', { documentId: 'doc-2' as never })]);
    expect(retainCalls(twin)).toHaveLength(0);
    expect(queue.status().depth).toBe(3);
    await queue.flush({ deadline: soon() });
    const calls = retainCalls(twin);
    expect(calls).toHaveLength(1);
    const items = (calls[0]?.args as { items: { document_id: string; content: string }[] }).items;
    expect(items.map((i) => i.document_id)).toEqual(['doc-1', 'doc-2']);
    expect(items[0]?.content).toBe('c m-1\nc m-2');
  });

  it('does not merge appends whose tags differ, and keeps their order across requests', async () => {
    const { queue, twin } = await setup({ mode: 'coalesced', flushIntervalMs: 60_000 });
    await queue.enqueue([newJob('t m-1'), newJob('t m-2', { item: { content: 't m-2', tags: ['other'] } })]);
    await queue.flush({ deadline: soon() });
    expect(retainCalls(twin)).toHaveLength(2);
    const text = twin.documentText('bank-a', 'doc-1') ?? '';
    expect(text.indexOf('m-1')).toBeLessThan(text.indexOf('m-2'));
  });

  it('retries transient failures with backoff, then delivers in order', async () => {
    const { queue, twin } = await setup();
    twin.inject({ op: 'retain', failure: { _tag: 'unreachable', message: 'ECONNREFUSED' }, times: 2 });
    await queue.enqueue([newJob('r m-1'), newJob('r m-2')]);
    const first = await queue.flush({ deadline: soon() });
    expect(first.state).toBe('backingOff');
    expect(queue.status().nextAttemptAt).toBeDefined();
    expect(queue.status().lastError).toContain('unreachable');
    // The retry timer fires by itself; wait for the queue to empty.
    for (let i = 0; i < 100 && queue.status().depth > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(queue.status()).toMatchObject({ depth: 0, state: 'idle' });
    const text = twin.documentText('bank-a', 'doc-1') ?? '';
    expect(occurrences(text, 'm-1')).toBe(1);
    expect(text.indexOf('m-1')).toBeLessThan(text.indexOf('m-2'));
    // The failed attempts and the success carried the same key: a lost answer is not a duplicate.
    const keys = retainCalls(twin).map((c) => (c.args as { operation_id: string }).operation_id);
    expect(new Set(keys).size).toBe(1);
  });

  it('pauses on 401 keeping every job, and delivers after resume()', async () => {
    const { queue, twin } = await setup();
    twin.inject({ op: 'retain', failure: { _tag: 'unauthorized', detail: 'invalid api key' } });
    await queue.enqueue([newJob('p m-1'), newJob('p m-2')]);
    const report = await queue.flush({ deadline: soon() });
    expect(report.state).toBe('paused');
    expect(queue.status()).toMatchObject({ depth: 2, state: 'paused' });
    expect(queue.status().pausedReason).toContain('401');
    await queue.enqueue([newJob('p m-3')]);
    expect(queue.status()).toMatchObject({ depth: 3, state: 'paused' });
    twin.clearFaults();
    await queue.resume();
    await queue.flush({ deadline: soon() });
    expect(queue.status()).toMatchObject({ depth: 0, state: 'idle' });
    expect(occurrences(twin.documentText('bank-a', 'doc-1'), 'm-3')).toBe(1);
  });

  it('dead-letters the one job the server refuses (422) with its reason, delivers the rest, and requeues on demand', async () => {
    const { queue, twin, queuePath } = await setup({ mode: 'coalesced', flushIntervalMs: 60_000 });
    await queue.enqueue([newJob('d m-1', { documentId: 'a' as never }), newJob('d m-2', { documentId: 'b' as never }), newJob('d m-3', { documentId: 'c' as never })]);
    // The batch fails, then the first job alone fails: that one is the bad one.
    twin.inject({ op: 'retain', failure: { _tag: 'invalidRequest', status: 422, detail: 'content too long' }, times: 2 });
    const report = await queue.flush({ deadline: soon() });
    expect(report).toMatchObject({ delivered: 2, deadLettered: 1, remaining: 0 });
    const dead = await queue.deadLetters();
    expect(dead).toHaveLength(1);
    expect(dead[0]?.reason).toContain('content too long');
    expect(dead[0]?.status).toBe(422);
    const deadFile = await readFile(queuePath.replace(/\.jsonl$/, '.dead.jsonl'), 'utf8');
    expect(deadFile).toContain('content too long');
    expect(twin.documentText('bank-a', 'b')).toContain('m-2');
    expect(await queue.requeueDeadLetters()).toBe(1);
    await queue.flush({ deadline: soon() });
    expect(twin.documentText('bank-a', 'a')).toContain('m-1');
    expect(queue.status().deadLetters).toBe(0);
  });

  it('rejects bad input naming the field and queues nothing', async () => {
    const { queue } = await setup();
    await expect(queue.enqueue([{ bankId: 'bad bank!', documentId: 'd', updateMode: 'append', item: { content: 'x' } } as never])).rejects.toThrow(/0\.bankId/);
    await expect(queue.enqueue([{ bankId: 'b', documentId: 'd', updateMode: 'sometimes', item: { content: 'x' } } as never])).rejects.toThrow(/updateMode/);
    expect(queue.status().depth).toBe(0);
  });

  it('redacts secrets before the job reaches the queue file', async () => {
    const { queue, queuePath, twin } = await setup({ mode: 'coalesced', flushIntervalMs: 60_000 });
    const secret = 'sk-live-abcdefghijklmnopqrstuvwxyz123456';
    await queue.enqueue([newJob(`my key is ${secret} m-s`, { item: { content: `my key is ${secret} m-s`, context: `token=${secret}` } })]);
    const file = await readFile(queuePath, 'utf8');
    expect(file).not.toContain(secret);
    expect(file).toContain('[REDACTED]');
    await queue.flush({ deadline: soon() });
    expect(twin.documentText('bank-a', 'doc-1')).not.toContain(secret);
  });

  it('keeps state across a restart: pending jobs, a pause and its reason', async () => {
    const { queue, twin, reopen } = await setup();
    twin.inject({ op: 'retain', failure: { _tag: 'forbidden', detail: 'no' } });
    await queue.enqueue([newJob('s m-1'), newJob('s m-2')]);
    await queue.flush({ deadline: soon() });
    await queue.close({ flush: false });
    const again = await reopen();
    // The opening process tries a pause it inherits once (the key may be fixed): it pauses again.
    for (let i = 0; i < 100 && again.status().state !== 'paused'; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(again.status()).toMatchObject({ depth: 2, state: 'paused' });
    expect(again.status().pausedReason).toBeDefined();
    twin.clearFaults();
    await again.resume();
    await again.flush({ deadline: soon() });
    expect(again.status().depth).toBe(0);
  });

  it('re-sends an unanswered batch after a crash under the same key, so nothing is appended twice', async () => {
    const twin = createMemoryTwin();
    // The server applies the batch, then the process "dies" before it records the delivery.
    const crashOnDelivered = (entries: readonly JournalEntry[]): boolean => entries.some((e) => e.type === 'retain.delivered');
    const dropDelivered = (journal: JournalPort): JournalPort => ({
      ...journal,
      append: (entries) => (crashOnDelivered(entries) ? Promise.reject(new Error('simulated crash')) : journal.append(entries)),
      appendSync: (entries) => {
        if (crashOnDelivered(entries)) throw new Error('simulated crash');
        return journal.appendSync?.(entries) ?? [];
      },
    });
    const { queue, reopen } = await setup({ server: twin, wrapJournal: dropDelivered });
    await queue.enqueue([newJob('once m-1'), newJob('once m-2', { documentId: 'doc-2' as never })]);
    await queue.flush({ deadline: Date.now() + 300 });
    expect(occurrences(twin.documentText('bank-a', 'doc-1'), 'm-1')).toBe(1);
    expect(queue.status().depth).toBe(2);
    await queue.close({ deadline: Date.now() + 100, flush: false });
    const again = await reopen({ wrapJournal: (j) => j });
    const report = await again.flush({ deadline: soon() });
    expect(again.status(), JSON.stringify({ report, status: again.status() })).toMatchObject({ depth: 0 });
    expect(occurrences(twin.documentText('bank-a', 'doc-1'), 'm-1')).toBe(1);
    expect(occurrences(twin.documentText('bank-a', 'doc-2'), 'm-2')).toBe(1);
    const keys = retainCalls(twin).map((c) => (c.args as { operation_id: string }).operation_id);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('a full disk fails the enqueue with a clear error, loses nothing acknowledged, and the queue works once space is back', async () => {
    let full = false;
    const flakyFs: JournalFs = {
      appendDurable: (file, data) => {
        if (!full) return nodeJournalFs.appendDurable(file, data);
        // Half the bytes land, then the disk is full: a torn write.
        nodeJournalFs.appendDurable(file, data.subarray(0, Math.floor(data.length / 2)));
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    };
    const { queue, queuePath, reopen } = await setup({ journalFs: flakyFs, mode: 'coalesced', flushIntervalMs: 60_000 });
    await queue.enqueue([newJob('ok m-1')]);
    full = true;
    await expect(queue.enqueue([newJob('lost m-2')])).rejects.toThrow(/disk is full.*|no space left/);
    expect(queue.status().depth).toBe(1);
    full = false;
    await queue.enqueue([newJob('ok m-3')]);
    expect(queue.status().depth).toBe(2);
    await queue.close({ flush: false });
    const journal = await openJsonlJournal({ path: queuePath });
    const loaded = await journal.load();
    await journal.close();
    expect(loaded.damage).toEqual([]);
    const again = await reopen({ journalFs: nodeJournalFs });
    expect(again.status().depth).toBe(2);
  });
});

describe('retain queue over the in-memory store twin', () => {
  const openOn = async (store: MemoryQueueStoreTwin, pid: number, server: MemoryTwin, o: Partial<OpenRetainQueueOptions> = {}): Promise<RetainQueue> => {
    const queue = await openRetainQueue({
      store: store.opener({ pid }),
      ids: nodeIds,
      server,
      mode: 'coalesced',
      flushIntervalMs: 0,
      backoff: { baseMs: 10, capMs: 40 },
      onWarning: () => undefined,
      ...o,
    });
    cleanups.push(() => queue.close({ flush: false }));
    return queue;
  };

  it('two processes on one queue: what either queued is delivered once, receipts kept, the journal compacted at reopen', async () => {
    const store = createMemoryQueueStore();
    const twin = createMemoryTwin();
    const a = await openOn(store, 1, twin);
    const b = await openOn(store, 2, twin);
    await a.enqueue([newJob('from a m-1')]);
    await b.enqueue([newJob('from b m-2', { documentId: 'doc-2' as never })]);
    await a.flush({ deadline: soon() });
    await b.flush({ deadline: soon() });
    expect(occurrences(twin.documentText('bank-a', 'doc-1'), 'm-1')).toBe(1);
    expect(occurrences(twin.documentText('bank-a', 'doc-2'), 'm-2')).toBe(1);
    expect(store.disk.receipts.length).toBeGreaterThan(0);
    await a.close({ flush: false });
    await b.close({ flush: false });
    // The lease goes back in the background once idle; close waits for it.
    expect(store.disk.leaseHolder).toBeUndefined();
    const again = await openOn(store, 3, twin, { compactAbove: 0 });
    expect(again.status()).toMatchObject({ depth: 0, state: 'idle' });
    expect(store.disk.records.map((r) => r.type)).toEqual(['retain.snapshot']);
  });

  it('a job the server refuses for good is dead-lettered into the store with the reason', async () => {
    const store = createMemoryQueueStore();
    const twin = createMemoryTwin();
    twin.inject({ op: 'retain', failure: { _tag: 'invalidRequest', status: 422, detail: 'item too large' }, times: 1 });
    const queue = await openOn(store, 1, twin, { mode: 'immediate' });
    await queue.enqueue([newJob('refused m-x')]);
    await queue.flush({ deadline: soon() });
    expect(queue.status()).toMatchObject({ depth: 0, deadLetters: 1 });
    const lines = store.disk.deadLetters.trim().split('\n').map((line) => JSON.parse(line) as { reason: string; status: number; job: { item: { content: string } } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 422, job: { item: { content: 'refused m-x' } } });
    expect(lines[0]?.reason).toContain('item too large');
  });
});

describe('retain queue: a batch another process has out', () => {
  /** The twin, but every retain waits until `release()`: a batch stays out as long as a test wants. */
  const holdingRetains = (twin: MemoryTwin): { server: MemoryTwin; release: () => void } => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server: MemoryTwin = {
      ...twin,
      retain: (bankId, req, o) => async () => {
        await gate;
        return twin.retain(bankId, req, o)();
      },
    };
    return { server, release };
  };
  const openOn = async (store: MemoryQueueStoreTwin, pid: number, server: MemoryTwin): Promise<RetainQueue> => {
    const queue = await openRetainQueue({ store: store.opener({ pid }), ids: nodeIds, server, mode: 'immediate', flushIntervalMs: 0, backoff: { baseMs: 10, capMs: 40 }, onWarning: () => undefined });
    cleanups.push(() => queue.close({ flush: false }));
    return queue;
  };
  const until = async (done: () => boolean, ms = 5_000): Promise<void> => {
    const end = Date.now() + ms;
    while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  };

  it('a process opened while another delivers does not wait on that batch for good: its own jobs arrive and its status settles', async () => {
    const store = createMemoryQueueStore();
    const twin = createMemoryTwin();
    const held = holdingRetains(twin);
    const a = await openOn(store, 1, held.server);
    await a.enqueue([newJob('live m-a')]);
    await until(() => a.status().state === 'delivering');
    // Opened mid-delivery: its fold ends inside the other process's batch.
    const b = await openOn(store, 2, twin);
    await b.enqueue([newJob('import m-b', { documentId: 'doc-2' as never })]);
    held.release();
    await a.flush({ deadline: soon() });
    await until(() => twin.documentText('bank-a', 'doc-2') !== undefined);
    expect(occurrences(twin.documentText('bank-a', 'doc-1'), 'm-a')).toBe(1);
    expect(occurrences(twin.documentText('bank-a', 'doc-2'), 'm-b')).toBe(1);
    const report = await b.flush({ deadline: soon(2_000) });
    expect(report).toMatchObject({ state: 'idle', remaining: 0 });
    expect(report.stoppedBecause).toBeUndefined();
  });

  it('a holder that lets the lease go and folds another process moving on to its next batch starts that batch itself', async () => {
    const store = createMemoryQueueStore();
    const twin = createMemoryTwin();
    const heldB = holdingRetains(twin);
    // A's second sync (the start of its second batch) waits until the test lets it go.
    let letAGo!: () => void;
    const aMayGo = new Promise<void>((resolve) => {
      letAGo = resolve;
    });
    let aSyncs = 0;
    let aBlocked = false;
    const openerA = store.opener({ pid: 1 });
    const a = await openRetainQueue({
      store: async (o) => {
        const inner = await openerA(o);
        const takeForeign = async () => {
          aSyncs += 1;
          if (aSyncs === 2) {
            aBlocked = true;
            await aMayGo;
          }
          return inner.journal.takeForeign();
        };
        return { ...inner, journal: { ...inner.journal, takeForeign } };
      },
      ids: nodeIds,
      server: twin,
      mode: 'immediate',
      flushIntervalMs: 0,
      onWarning: () => undefined,
    });
    cleanups.push(() => a.close({ flush: false }));
    // B, once it has let the lease go after its own batch, waits until A has sent its first
    // batch and started on its second: B's sync then folds A's outcome with a job still left.
    let afterRelease = async (): Promise<void> => undefined;
    const openerB = store.opener({ pid: 2 });
    const b = await openRetainQueue({
      store: async (o) => {
        const inner = await openerB(o);
        const tryAcquire = async () => {
          const held = await inner.lease.tryAcquire();
          return held === undefined ? undefined : { ...held, release: async () => (await held.release(), await afterRelease()) };
        };
        return { ...inner, lease: { ...inner.lease, tryAcquire } };
      },
      ids: nodeIds,
      server: heldB.server,
      mode: 'immediate',
      flushIntervalMs: 0,
      onWarning: () => undefined,
    });
    cleanups.push(() => b.close({ flush: false }));

    await b.enqueue([newJob('from b m-b1', { documentId: 'doc-b' as never })]);
    // Its batch is out (status says `delivering` while it still selects).
    await until(() => store.disk.records.some((r) => r.type === 'retain.batchStarted'));
    // Two banks: A's first batch takes only the first job.
    await a.enqueue([newJob('from a m-a1'), newJob('from a m-a2', { bankId: 'bank-b' as never, documentId: 'doc-2' as never })]);
    afterRelease = async () => {
      afterRelease = async () => undefined;
      void a.flush({ deadline: soon() });
      await until(() => aBlocked);
    };
    heldB.release();
    await until(() => twin.documentText('bank-a', 'doc-1') !== undefined && aBlocked);
    // B folded A's outcome with A's second job pending: it must not sit in `selecting` (which
    // status shows as `delivering`), but ask for the lease, be refused and wait idle.
    await until(() => b.status().lastSkip !== undefined, 2_000);
    expect(b.status().state).toBe('idle');
    expect(b.status().lastSkip).toContain('delivering this queue');
    letAGo();
    await until(() => twin.documentText('bank-b', 'doc-2') !== undefined);
    expect(occurrences(twin.documentText('bank-b', 'doc-2'), 'm-a2')).toBe(1);
    expect(occurrences(twin.documentText('bank-a', 'doc-1'), 'm-a1')).toBe(1);
    expect((await b.flush({ deadline: soon() })).remaining).toBe(0);
  });

  it('a process that saw another start a batch takes it over when that process is gone, under the same key', async () => {
    const store = createMemoryQueueStore();
    const twin = createMemoryTwin();
    const held = holdingRetains(twin);
    const a = await openRetainQueue({ store: store.opener({ pid: 1, leaseStaleMs: 200 }), ids: nodeIds, server: held.server, mode: 'immediate', flushIntervalMs: 0, onWarning: () => undefined });
    await a.enqueue([newJob('orphan m-o')]);
    await until(() => a.status().state === 'delivering');
    const b = await openRetainQueue({ store: store.opener({ pid: 2, leaseStaleMs: 200 }), ids: nodeIds, server: twin, mode: 'immediate', flushIntervalMs: 0, onWarning: () => undefined });
    cleanups.push(() => b.close({ flush: false }));
    // `a` is never heard of again (its send hangs, its lease goes stale): `b` re-sends the batch.
    await new Promise((r) => setTimeout(r, 400));
    const report = await b.flush({ deadline: soon(), force: true });
    expect(report).toMatchObject({ state: 'idle', remaining: 0 });
    expect(occurrences(twin.documentText('bank-a', 'doc-1'), 'm-o')).toBe(1);
    held.release();
  });
});
