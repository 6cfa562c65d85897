import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import * as fc from 'fast-check';
import { initialTransition, transition } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { retainDeliveryMachine } from '../../../src/machines/retainDelivery/machine.js';
import type { RetainDeliveryEvent, RetainJob } from '../../../src/machines/retainDelivery/events.js';
import { pendingJobs, type DeliveryMode } from '../../../src/machines/retainDelivery/context.js';
import { requestItems, selectBatch } from '../../../src/machines/retainDelivery/batch.js';
import { decodeEvent, ev, run, type Snapshot } from './fold.js';

const job = (n: number, over: Partial<Record<string, unknown>> = {}): RetainJob =>
  ({
    jobId: `job-0000${n}`,
    bankId: 'bank-a',
    documentId: 'doc-1',
    updateMode: 'append',
    item: { content: `content ${n}`, tags: ['t'] },
    contentHash: `hash-${n}`,
    idempotencyKey: `key-${n}`,
    enqueuedAt: '2026-11-22T10:00:00.000Z',
    ...over,
  }) as RetainJob;

const enqueued = (jobs: RetainJob[], at = 1_000, replica?: boolean) => ev({ type: 'retain.enqueued', jobs, at, ...(replica === undefined ? {} : { replica }) });
const batch = (ids: string[], at = 1_100, owner = 'me') => ev({ type: 'retain.batchStarted', batch: { jobIds: ids, operationId: 'op-1', owner }, at });
const delivered = (ids: string[], at = 1_200) => ev({ type: 'retain.delivered', jobIds: ids, receipt: { operationId: 'op-1', itemsCount: ids.length, async: true }, at });

const start = (mode: DeliveryMode = 'immediate'): Snapshot => initialTransition(retainDeliveryMachine, { mode })[0];
const step = (snapshot: Snapshot, event: RetainDeliveryEvent) => {
  const [next, actions] = transition(retainDeliveryMachine, snapshot, event);
  return { next, types: actions.map((a) => a.type).filter((t) => !t.startsWith('xstate.')), actions };
};

describe('retain-delivery machine: transitions and the effects they ask for', () => {
  it('starts idle and settled', () => {
    const [snapshot, actions] = initialTransition(retainDeliveryMachine, { mode: 'immediate' });
    expect(snapshot.value).toBe('idle');
    expect(actions.map((a) => a.type)).toContain('settled');
    expect(snapshot.context.depth).toBe(0);
  });

  it('immediate mode: an enqueue starts a batch; coalesced mode: it only queues', () => {
    const imm = step(start('immediate'), enqueued([job(1)]));
    expect(imm.next.value).toBe('selecting');
    expect(imm.types).toEqual(['startBatch']);
    const coal = step(start('coalesced'), enqueued([job(1)]));
    expect(coal.next.value).toBe('idle');
    expect(coal.types).toEqual([]);
    expect(coal.next.context.depth).toBe(1);
  });

  it('another process’s enqueue (a replica) is folded in without starting a delivery', () => {
    const { next, types } = step(start('immediate'), enqueued([job(1)], 1_000, true));
    expect(next.value).toBe('idle');
    expect(types).toEqual([]);
    expect(next.context.depth).toBe(1);
  });

  it('a started batch is delivered by the named effect with the batch as its parameter', () => {
    const selecting = run(start(), enqueued([job(1), job(2)]));
    const { next, actions } = step(selecting, batch(['job-00001', 'job-00002']));
    expect(next.value).toBe('delivering');
    const deliver = actions.find((a) => a.type === 'deliverBatch');
    expect(deliver?.params).toEqual({ batch: { jobIds: ['job-00001', 'job-00002'], operationId: 'op-1', owner: 'me' } });
  });

  it('a delivery removes the jobs, records the receipt, and continues while jobs remain (immediate)', () => {
    const delivering = run(start(), enqueued([job(1), job(2)]), batch(['job-00001']));
    const after = step(delivering, delivered(['job-00001']));
    expect(after.next.value).toBe('selecting');
    expect(after.types).toEqual(['startBatch']);
    expect(after.next.context.depth).toBe(1);
    expect(after.next.context.lastDelivery).toMatchObject({ at: 1_200, jobCount: 1 });
    expect(after.next.context.inFlight).toBeNull();
    const done = run(after.next, batch(['job-00002'], 1_300), delivered(['job-00002'], 1_400));
    expect(done.value).toBe('idle');
    expect(done.context.depth).toBe(0);
  });

  it('a retryable failure backs off with the deadline in context and keeps the batch for re-send', () => {
    const delivering = run(start(), enqueued([job(1)]), batch(['job-00001']));
    const failed = step(delivering, ev({ type: 'retain.failed', jobIds: ['job-00001'], failureClass: 'retry', reason: 'unreachable', retryAt: 5_000, at: 1_200 }));
    expect(failed.next.value).toBe('backingOff');
    expect(failed.actions.find((a) => a.type === 'scheduleRetry')?.params).toEqual({ retryAt: 5_000 });
    expect(failed.next.context).toMatchObject({ failures: 1, retryAt: 5_000, depth: 1 });
    expect(failed.next.context.inFlight?.jobIds).toEqual(['job-00001']);
    expect(selectBatch(failed.next.context)).toEqual({ jobIds: ['job-00001'], adoptedOperationId: 'op-1' });
    // Too early: stays. An automatic flush waits; a user's flush goes now.
    const early = step(failed.next, ev({ type: 'retain.timerFired', at: 4_999 }));
    expect(early.next.value).toBe('backingOff');
    expect(early.actions.find((a) => a.type === 'scheduleRetry')?.params).toEqual({ retryAt: 5_000 });
    expect(step(failed.next, ev({ type: 'retain.flushRequested', at: 2_000 })).next.value).toBe('backingOff');
    expect(step(failed.next, ev({ type: 'retain.flushRequested', at: 2_000, force: true })).next.value).toBe('selecting');
    const due = step(failed.next, ev({ type: 'retain.timerFired', at: 5_000 }));
    expect(due.next.value).toBe('selecting');
    expect(due.types).toEqual(['startBatch']);
  });

  it('401/403/404/410 pause the queue with the reason; jobs stay and new ones queue; resume delivers', () => {
    const delivering = run(start(), enqueued([job(1)]), batch(['job-00001']));
    const paused = step(delivering, ev({ type: 'retain.paused', jobIds: ['job-00001'], reason: 'HTTP 401: bad key', at: 1_200 }));
    expect(paused.next.value).toBe('paused');
    expect(paused.types).toContain('settled');
    expect(paused.next.context).toMatchObject({ pausedReason: 'HTTP 401: bad key', depth: 1, failures: 0 });
    const more = run(paused.next, enqueued([job(2)], 1_300), ev({ type: 'retain.flushRequested', at: 1_400 }));
    expect(more.value).toBe('paused');
    expect(more.context.depth).toBe(2);
    const resumed = step(more, ev({ type: 'retain.resumed', at: 1_500 }));
    expect(resumed.next.value).toBe('selecting');
    expect(resumed.next.context.pausedReason).toBeNull();
  });

  it('dead letters leave the queue with the server reason; a batch answered in parts stays open until the last part', () => {
    const delivering = run(start('coalesced'), enqueued([job(1), job(2, { documentId: 'doc-2' })]), ev({ type: 'retain.flushRequested', at: 1_050 }), batch(['job-00001', 'job-00002']));
    const part = step(delivering, ev({ type: 'retain.deadLettered', jobIds: ['job-00001'], reason: 'HTTP 422: bad', status: 422, at: 1_200 }));
    expect(part.next.value).toBe('delivering');
    expect(part.types).toEqual([]);
    expect(part.next.context.deadLetters).toEqual([{ job: job(1), reason: 'HTTP 422: bad', status: 422, at: 1_200 }]);
    const last = step(part.next, delivered(['job-00002'], 1_300));
    expect(last.next.value).toBe('idle');
    expect(last.next.context.depth).toBe(0);
    const requeued = step(last.next, ev({ type: 'retain.requeued', jobIds: ['job-00001'], at: 1_400 }));
    expect(requeued.next.context.deadLetters).toEqual([]);
    expect(pendingJobs(requeued.next.context).map((j) => j.jobId)).toEqual(['job-00001']);
  });

  it('dropping a dead letter removes it for good, mid-delivery too, and queues nothing', () => {
    const delivering = run(start('coalesced'), enqueued([job(1), job(2, { documentId: 'doc-2' })]), ev({ type: 'retain.flushRequested', at: 1_050 }), batch(['job-00001', 'job-00002']));
    const part = step(delivering, ev({ type: 'retain.deadLettered', jobIds: ['job-00001'], reason: 'HTTP 422: bad', status: 422, at: 1_200 }));
    const dropped = step(part.next, ev({ type: 'retain.deadLettersDropped', jobIds: ['job-00001'], at: 1_250 }));
    expect(dropped.next.value).toBe('delivering');
    expect(dropped.types).toEqual([]);
    expect(dropped.next.context.deadLetters).toEqual([]);
    expect(pendingJobs(dropped.next.context).map((j) => j.jobId)).not.toContain('job-00001');
  });

  it('shutdown while a batch is out drains: waits for its outcome, starts nothing new', () => {
    const delivering = run(start(), enqueued([job(1), job(2)]), batch(['job-00001']));
    const draining = step(delivering, ev({ type: 'retain.shutdown', at: 1_150 }));
    expect(draining.next.value).toBe('draining');
    expect(draining.types).toEqual([]);
    const done = step(draining.next, delivered(['job-00001']));
    expect(done.next.value).toBe('idle');
    expect(done.types).toEqual(['settled']);
    expect(done.next.context.depth).toBe(1);
  });

  it('a batch another process has out: this process asks for the lease again on its own flush or job, and waits idle when refused', () => {
    const opened = ev({ type: 'retain.opened', owner: 'me', at: 900 });
    const watching = run(start(), opened, enqueued([job(1)], 1_000, true), batch(['job-00001'], 1_100, 'other'));
    expect(watching.value).toBe('delivering');
    // Its own batch is not this process's to send: no effect asked for but the (ignored) mirror.
    const flushed = step(watching, ev({ type: 'retain.flushRequested', at: 1_150 }));
    expect(flushed.next.value).toBe('selecting');
    expect(flushed.types).toEqual(['startBatch']);
    const refused = step(flushed.next, ev({ type: 'retain.batchSkipped', reason: 'process 7 is delivering this queue', at: 1_160 }));
    expect(refused.next.value).toBe('idle');
    expect(refused.next.context.inFlight?.owner).toBe('other');
    // A restart folds the batch as out and asks once: refused, it waits idle rather than for good.
    expect(step(watching, ev({ type: 'retain.batchSkipped', reason: 'busy', at: 1_160 })).next.value).toBe('idle');
    const ownJob = step(watching, enqueued([job(2)], 1_170));
    expect(ownJob.next.value).toBe('selecting');
    // The other process's outcome, folded later, clears the batch.
    const later = run(refused.next, ev({ type: 'retain.delivered', jobIds: ['job-00001'], receipt: { operationId: 'op-1', itemsCount: 1, async: true }, replica: true, at: 1_300 }));
    expect(later.context.inFlight).toBeNull();
    expect(later.context.depth).toBe(0);
  });

  it('its own batch out, a flush, a job or a stray skip change nothing: one send at a time', () => {
    const mine = run(start(), ev({ type: 'retain.opened', owner: 'me', at: 900 }), enqueued([job(1)]), batch(['job-00001'], 1_100, 'me'));
    for (const event of [ev({ type: 'retain.flushRequested', at: 1_150 }), enqueued([job(2)], 1_160), ev({ type: 'retain.batchSkipped', reason: 'x', at: 1_170 })]) {
      const next = step(mine, event);
      expect(next.next.value).toBe('delivering');
      expect(next.types).toEqual([]);
    }
    // A fold of the journal (no `opened`) reads no batch as anyone's: it stays as written.
    const folded = run(start(), enqueued([job(1)]), batch(['job-00001'], 1_100, 'other'), enqueued([job(2)], 1_200));
    expect(folded.value).toBe('delivering');
  });

  it('an answered batch is not adopted again: the next choice starts afresh', () => {
    const context = run(start(), enqueued([job(1), job(2)]), batch(['job-00001'])).context;
    expect(selectBatch(context)).toEqual({ jobIds: ['job-00001'], adoptedOperationId: 'op-1' });
    const answered = { ...context, pending: [[job(2)]], depth: 1 };
    expect(selectBatch(answered)).toEqual({ jobIds: ['job-00002'] });
  });

  it('a compacted journal’s snapshot restores jobs, dead letters, pause and backoff without delivering', () => {
    const snap = (pausedReason: string | null, retryAt: number | null) =>
      ev({ type: 'retain.snapshot', jobs: [job(1)], deadLetters: [], inFlight: null, pausedReason, retryAt, failures: 2, at: 900 });
    expect(step(start(), snap(null, null)).next.value).toBe('idle');
    expect(step(start(), snap(null, null)).types).toEqual([]);
    expect(step(start(), snap('HTTP 403', null)).next.value).toBe('paused');
    const backing = step(start(), snap(null, 9_000));
    expect(backing.next.value).toBe('backingOff');
    expect(backing.actions.find((a) => a.type === 'scheduleRetry')?.params).toEqual({ retryAt: 9_000 });
  });

  it('time only moves forward in context, from event data', () => {
    const s = run(start('coalesced'), enqueued([job(1)], 5_000), enqueued([job(2)], 4_000));
    expect(s.context.now).toBe(5_000);
  });
});

describe('retain-delivery batching (pure)', () => {
  const contextOf = (jobs: RetainJob[], mode: DeliveryMode = 'coalesced') => run(start(mode), enqueued(jobs)).context;

  it('stops at a bank change and at a document that cannot merge; merges compatible appends', () => {
    const jobs = [job(1), job(2), job(3, { documentId: 'doc-2' }), job(4, { item: { content: 'x', tags: ['other'] } }), job(5)];
    expect(selectBatch(contextOf(jobs)).jobIds).toEqual(['job-00001', 'job-00002', 'job-00003']);
    expect(selectBatch(contextOf([job(1), job(2, { bankId: 'bank-b' })])).jobIds).toEqual(['job-00001']);
    expect(selectBatch(contextOf([job(1, { updateMode: 'replace' }), job(2, { updateMode: 'replace' })])).jobIds).toEqual(['job-00001']);
    const items = requestItems(jobs.slice(0, 3));
    expect(items).toEqual([
      { content: 'content 1\ncontent 2', tags: ['t'], document_id: 'doc-1', update_mode: 'append' },
      { content: 'content 3', tags: ['t'], document_id: 'doc-2', update_mode: 'append' },
    ]);
  });

  it('respects the item and size limits, but always takes one job', () => {
    const jobs = Array.from({ length: 10 }, (_, i) => job(i, { documentId: `d-${i}` }));
    expect(selectBatch(contextOf(jobs), { maxItems: 3, maxContentChars: 1_000 }).jobIds).toHaveLength(3);
    expect(selectBatch(contextOf([job(1, { item: { content: 'x'.repeat(50) } })]), { maxItems: 3, maxContentChars: 10 }).jobIds).toHaveLength(1);
  });

  it('property: a batch is a prefix of the queue, one bank, and per document in queue order', () => {
    const arbJob = fc.record({ bank: fc.constantFrom('b1', 'b2'), doc: fc.constantFrom('d1', 'd2', 'd3'), mode: fc.constantFrom('append', 'replace'), tag: fc.constantFrom('x', 'y') });
    fc.assert(
      fc.property(fc.array(arbJob, { minLength: 1, maxLength: 30 }), (specs) => {
        const jobs = specs.map((s, i) => job(i, { bankId: s.bank, documentId: s.doc, updateMode: s.mode, item: { content: `c${i}`, tags: [s.tag] } }));
        const chosen = selectBatch(contextOf(jobs)).jobIds;
        expect(chosen.length).toBeGreaterThan(0);
        expect(chosen).toEqual(jobs.slice(0, chosen.length).map((j) => j.jobId));
        expect(new Set(jobs.slice(0, chosen.length).map((j) => j.bankId)).size).toBe(1);
        // One item per document in the request (the server refuses repeats in an async batch).
        const items = requestItems(jobs.slice(0, chosen.length));
        expect(new Set(items.map((i) => i.document_id)).size).toBe(items.length);
      }),
      { numRuns: 300 },
    );
  });

  it('property: the event decoder never throws and names the field it rejects', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.record({ type: fc.constantFrom('retain.enqueued', 'retain.failed', 'retain.paused'), at: fc.anything(), jobIds: fc.anything() })), (input) => {
        const decoded = decodeEvent(input);
        if (E.isLeft(decoded)) expect(decoded.left.message).toMatch(/^test event: field /);
      }),
      { numRuns: 500 },
    );
  });
});

describe('retain-delivery paths (xstate/graph)', () => {
  it('reaches every state from idle with the gate’s events', () => {
    const events = [
      enqueued([job(1)]),
      batch(['job-00001']),
      delivered(['job-00001']),
      ev({ type: 'retain.failed', jobIds: ['job-00001'], failureClass: 'retry', reason: 'x', retryAt: 5_000, at: 1_200 }),
      ev({ type: 'retain.paused', jobIds: ['job-00001'], reason: 'HTTP 401', at: 1_200 }),
      ev({ type: 'retain.resumed', at: 1_300 }),
      ev({ type: 'retain.timerFired', at: 6_000 }),
      ev({ type: 'retain.shutdown', at: 1_150 }),
      ev({ type: 'retain.batchSkipped', reason: 'busy', at: 1_100 }),
    ];
    const paths = getShortestPaths(retainDeliveryMachine, {
      events,
      input: { mode: 'immediate' },
      // Compared by state and the facts guards read; job copies and times would make it infinite.
      serializeState: (state) => {
        const c = (state as Snapshot).context;
        return JSON.stringify([(state as Snapshot).value, Math.min(c.depth, 2), c.inFlight?.jobIds ?? null, c.pausedReason !== null, c.retryAt]);
      },
      limit: 5_000,
    });
    const reached = new Set(paths.map((p) => String((p.state as Snapshot).value)));
    expect([...reached].sort()).toEqual(['backingOff', 'delivering', 'draining', 'idle', 'paused', 'selecting']);
    const route = (state: string) => paths.find((p) => (p.state as Snapshot).value === state)?.steps.map((s) => s.event.type);
    // A batch can start from idle: a restarted process adopting a dead one's batch does that.
    expect(route('delivering')).toEqual(['xstate.init', 'retain.batchStarted']);
    expect(route('paused')).toEqual(['xstate.init', 'retain.batchStarted', 'retain.paused']);
    expect(route('draining')).toEqual(['xstate.init', 'retain.enqueued', 'retain.shutdown']);
  });
});
