/**
 * The machine drops a copy of a job it already holds: pending, dead-lettered or lately
 * delivered (ids are derived from the job, so a run offered twice has one id), in any
 * order the processes' records are folded in, and through a compaction.
 */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { initialTransition } from 'xstate';
import { retainDeliveryMachine } from '../../../src/machines/retainDelivery/machine.js';
import { retainEvents, type RetainDeliveryEvent, type RetainJob } from '../../../src/machines/retainDelivery/events.js';
import { pendingJobs, recentIds, RECENT_KEYS } from '../../../src/machines/retainDelivery/context.js';
import { batchOperationId, prepareJobs } from '../../../src/effects/retainDelivery/jobs.js';
import { nodeIds } from '../../../src/adapters/ids/nodeIds.js';
import { ev, run, type Snapshot } from './fold.js';

const { digest } = nodeIds;

const start = (): Snapshot => initialTransition(retainDeliveryMachine, { mode: 'coalesced' })[0];

/** Jobs as `enqueue` prepares them, for one run `key` (the identity the session passes). */
const runJobs = (key: string, contents: string[], now = 1_000): RetainJob[] => {
  const prepared = prepareJobs(
    contents.map((content, i) => ({ bankId: 'bank-a', documentId: 'doc-1', updateMode: 'append', item: { content }, identity: `${key}#${i}` })),
    now,
    digest,
  );
  if (E.isLeft(prepared)) throw new Error(prepared.left);
  return prepared.right;
};
const enqueued = (jobs: RetainJob[], at = 1_000, replica = false) => ev(retainEvents.enqueued({ jobs, at, ...(replica ? { replica } : {}) }));
const delivered = (jobs: RetainJob[], at = 1_200) => ev(retainEvents.delivered({ jobIds: jobs.map((j) => j.jobId), receipt: { operationId: null, itemsCount: jobs.length, async: true }, at }));
/** A batch of `jobs` started by some process, then delivered. */
const sent = (jobs: RetainJob[], at = 1_100): RetainDeliveryEvent[] => [
  ev(retainEvents.batchStarted({ batch: { jobIds: jobs.map((j) => j.jobId), operationId: batchOperationId(jobs, digest), owner: 'b' }, at })),
  delivered(jobs, at + 100),
];

describe('job keys', () => {
  it('are derived from the job: the same run, queued at another time by another process, has the same id and key', () => {
    const [a] = runJobs('s1:abc', ['hello'], 1_000);
    const [b] = runJobs('s1:abc', ['hello'], 99_000);
    expect(a?.jobId).toBe(b?.jobId);
    expect(a?.idempotencyKey).toBe(b?.idempotencyKey);
    expect(a?.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Another run, item or content is another job.
    const others = [runJobs('s1:abd', ['hello'])[0], runJobs('s1:abc', ['x', 'hello'])[1], runJobs('s1:abc', ['hello!'])[0]];
    for (const other of others) expect(other?.jobId).not.toBe(a?.jobId);
  });

  it('a batch key is the same for the same jobs in any order', () => {
    const jobs = runJobs('s1:k', ['one', 'two', 'three']);
    expect(batchOperationId(jobs, digest)).toBe(batchOperationId([...jobs].reverse(), digest));
    expect(batchOperationId(jobs, digest)).not.toBe(batchOperationId(jobs.slice(1), digest));
    expect(batchOperationId(jobs.slice(0, 1), digest)).toBe(jobs[0]?.idempotencyKey);
  });
});

describe('retain-delivery machine: dedupe by job key', () => {
  it('drops a copy of a pending job, also within one enqueue', () => {
    const jobs = runJobs('s1:a', ['one', 'two']);
    const s = run(start(), enqueued(jobs), enqueued(jobs, 1_001, true), enqueued([...jobs, ...jobs], 1_002));
    expect(s.context.depth).toBe(2);
    expect(pendingJobs(s.context).map((j) => j.jobId)).toEqual(jobs.map((j) => j.jobId));
  });

  it('drops a copy of a delivered job, whichever process folded what first', () => {
    const jobs = runJobs('s1:b', ['one']);
    // B queued and delivered it; A queues the same run afterwards.
    const late = run(start(), enqueued(jobs), ...sent(jobs), enqueued(jobs, 1_300, true));
    expect(late.context.depth).toBe(0);
    expect(recentIds(late.context)).toEqual(jobs.map((j) => j.jobId));
    // A queued its copy before it folded B's records: the delivery removes it all the same.
    const early = run(start(), enqueued(jobs), enqueued(jobs, 1_001, true), ...sent(jobs));
    expect(early.context.depth).toBe(0);
  });

  it('drops a copy of a dead-lettered or dropped job', () => {
    const jobs = runJobs('s1:c', ['bad']);
    const ids = jobs.map((j) => j.jobId);
    const flushed = run(start(), enqueued(jobs), ev(retainEvents.flushRequested({ at: 1_010 })), ev(retainEvents.batchStarted({ batch: { jobIds: ids, operationId: 'op', owner: 'me' }, at: 1_020 })));
    const dead = run(flushed, ev(retainEvents.deadLettered({ jobIds: ids, reason: 'invalid', status: 422, at: 1_030 })), enqueued(jobs, 1_040));
    expect(dead.context.depth).toBe(0);
    expect(dead.context.deadLetters).toHaveLength(1);
    const dropped = run(dead, ev(retainEvents.deadLettersDropped({ jobIds: ids, at: 1_050 })), enqueued(jobs, 1_060));
    expect(dropped.context.depth).toBe(0);
    expect(dropped.context.deadLetters).toHaveLength(0);
  });

  it('remembers a bounded number of delivered keys, the newest', () => {
    let s = start();
    const all: RetainJob[] = [];
    for (let i = 0; i < 10; i += 1) {
      const jobs = runJobs(`s:${i}`, Array.from({ length: 1_000 }, (_, k) => `c${k}`));
      all.push(...jobs);
      s = run(s, enqueued(jobs), ...sent(jobs));
    }
    const recent = recentIds(s.context);
    expect(recent.length).toBeLessThanOrEqual(RECENT_KEYS);
    expect(recent.length).toBeGreaterThan(RECENT_KEYS - 512);
    expect(recent.at(-1)).toBe(all.at(-1)?.jobId);
    // The newest delivered job offered again is dropped.
    expect(run(s, enqueued(all.slice(-1))).context.depth).toBe(0);
  });

  it('keeps the dedupe window through a compaction snapshot', () => {
    const jobs = runJobs('s1:d', ['one']);
    const ids = jobs.map((j) => j.jobId);
    const restored = run(start(), ev(retainEvents.snapshot({ jobs: [], deadLetters: [], inFlight: null, pausedReason: null, retryAt: null, failures: 0, recentKeys: ids, at: 2_000 })), enqueued(jobs, 2_100));
    expect(restored.context.depth).toBe(0);
  });

  it("another process's delivery removes the jobs in any state, so a fold never keeps a delivered job pending", () => {
    const jobs = runJobs('s1:e', ['one', 'two']);
    // A's batch was folded, then B's own shutdown and skipped batch moved the fold to idle.
    const idle = run(start(), enqueued(jobs), ev(retainEvents.batchStarted({ batch: { jobIds: jobs.map((j) => j.jobId), operationId: batchOperationId(jobs, digest), owner: 'a' }, at: 1_100 })), ev(retainEvents.shutdown({ at: 1_110 })), ev(retainEvents.batchSkipped({ reason: 'b is closing', at: 1_120 })));
    expect(idle.value).toBe('idle');
    const after = run(idle, delivered(jobs, 1_200));
    expect(after.context.depth).toBe(0);
    expect(after.context.inFlight).toBeNull();
    expect(run(after, enqueued(jobs, 1_300, true)).context.depth).toBe(0);
  });
});
