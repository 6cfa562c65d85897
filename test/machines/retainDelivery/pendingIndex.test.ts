/**
 * The pending-id index behind dedupe (context.ts: id sets per run of chunks, grown in place as
 * the queue grows at its end) answers exactly as a plain list would, whatever the order of
 * enqueues, deliveries and refills, and when an older snapshot is folded on again. Deliveries
 * are large enough that delivered ids are forgotten (RECENT_KEYS): a pending set that still held
 * a delivered id would then drop that job when it is queued again.
 */
import * as fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { initialTransition } from 'xstate';
import { batchOperationId, prepareJobs } from '../../../src/effects/retainDelivery/jobs.js';
import { nodeIds } from '../../../src/adapters/ids/nodeIds.js';
import { CHUNK_SIZE, pendingJobs, recentIds, RECENT_KEYS } from '../../../src/machines/retainDelivery/context.js';
import { retainDeliveryMachine } from '../../../src/machines/retainDelivery/machine.js';
import { retainEvents, type RetainJob } from '../../../src/machines/retainDelivery/events.js';
import { ev, run, type Snapshot } from './fold.js';

// More jobs than the machine remembers as delivered, over many chunks.
const POOL = RECENT_KEYS + 4 * CHUNK_SIZE + 77;
const pool = ((): RetainJob[] => {
  const prepared = prepareJobs(
    Array.from({ length: POOL }, (_, i) => ({ bankId: 'bank-a', documentId: `doc-${i % 7}`, updateMode: 'append' as const, item: { content: `turn ${i}` }, identity: `run#${i}` })),
    1_000,
    nodeIds.digest,
  );
  if (E.isLeft(prepared)) throw new Error(prepared.left);
  return prepared.right;
})();

type Step = { kind: 'enqueue'; from: number; count: number } | { kind: 'deliver'; offset: number; count: number; pick: number[] } | { kind: 'rewind'; back: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('enqueue' as const), from: fc.nat(POOL - 1), count: fc.integer({ min: 1, max: 3000 }) }) },
  // A run of pending jobs from anywhere in the queue (not only its front), and a few more.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('deliver' as const), offset: fc.nat(9000), count: fc.nat(2500), pick: fc.array(fc.nat(9000), { maxLength: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), back: fc.integer({ min: 1, max: 4 }) }) },
);

const deliver = (snapshot: Snapshot, ids: string[], at: number): Snapshot => {
  const wanted = new Set(ids);
  const jobs = pendingJobs(snapshot.context).filter((job) => wanted.has(job.jobId));
  return run(
    snapshot,
    ev(retainEvents.batchStarted({ batch: { jobIds: ids, operationId: batchOperationId(jobs, nodeIds.digest), owner: 'b' }, at })),
    ev(retainEvents.delivered({ jobIds: ids, receipt: { operationId: null, itemsCount: ids.length, async: true }, at: at + 1 })),
  );
};
const enqueue = (snapshot: Snapshot, jobs: RetainJob[], at: number): Snapshot => run(snapshot, ev(retainEvents.enqueued({ jobs, at })));
const fresh = (): Snapshot => initialTransition(retainDeliveryMachine, { mode: 'coalesced' })[0];

/** What the queue should hold: pending ids in order. */
interface Model {
  readonly pending: readonly string[];
}

describe('pending-id index', () => {
  it('drops exactly the copies a plain list would, through growth, refills, deliveries and folds from older snapshots', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 30 }), (steps) => {
        const history: { snapshot: Snapshot; model: Model }[] = [{ snapshot: initialTransition(retainDeliveryMachine, { mode: 'coalesced' })[0], model: { pending: [] } }];
        let at = 1_000;
        for (const s of steps) {
          const { snapshot, model } = history[history.length - 1] as { snapshot: Snapshot; model: Model };
          at += 10;
          if (s.kind === 'rewind') {
            // Fold on from an older snapshot: the index must not answer from the newer one's sets.
            history.push(history[Math.max(0, history.length - 1 - s.back)] as { snapshot: Snapshot; model: Model });
            continue;
          }
          if (s.kind === 'enqueue') {
            const jobs = Array.from({ length: s.count }, (_, i) => pool[(s.from + i * 3) % POOL] as RetainJob);
            const next = run(snapshot, ev(retainEvents.enqueued({ jobs, at })));
            // A copy: pending, or delivered lately (the machine's own record of that is trusted here).
            const seen = new Set([...model.pending, ...recentIds(snapshot.context)]);
            const added: string[] = [];
            for (const job of jobs) {
              if (seen.has(job.jobId)) continue;
              seen.add(job.jobId);
              added.push(job.jobId);
            }
            history.push({ snapshot: next, model: { pending: [...model.pending, ...added] } });
          } else {
            const picked = s.pick.map((p) => model.pending[p % Math.max(1, model.pending.length)]).filter((id): id is string => id !== undefined);
            const offset = s.offset % Math.max(1, model.pending.length);
            const ids = [...new Set([...model.pending.slice(offset, offset + s.count), ...picked])];
            if (ids.length === 0) continue;
            const wanted = new Set(ids);
            const jobs = pendingJobs(snapshot.context).filter((job) => wanted.has(job.jobId));
            const next = run(
              snapshot,
              ev(retainEvents.batchStarted({ batch: { jobIds: ids, operationId: batchOperationId(jobs, nodeIds.digest), owner: 'b' }, at })),
              ev(retainEvents.delivered({ jobIds: ids, receipt: { operationId: null, itemsCount: ids.length, async: true }, at: at + 1 })),
            );
            const delivered = new Set(ids);
            history.push({ snapshot: next, model: { pending: model.pending.filter((id) => !delivered.has(id)) } });
          }
          const latest = history[history.length - 1] as { snapshot: Snapshot; model: Model };
          expect(pendingJobs(latest.snapshot.context).map((job) => job.jobId)).toEqual(latest.model.pending);
          expect(latest.snapshot.context.depth).toBe(latest.model.pending.length);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('takes back jobs delivered from the middle and the end of the queue once the delivery is forgotten', () => {
    const head = pool.slice(0, POOL - 100);
    const spare = pool.slice(POOL - 100);
    let snapshot = enqueue(fresh(), head, 1_000);
    // An enqueue builds the index; ten jobs from a middle chunk and ten from the last one are
    // delivered; the next enqueue asks the index again.
    snapshot = enqueue(snapshot, spare.slice(99, 100), 1_500);
    const middle = [...head.slice(5 * CHUNK_SIZE, 5 * CHUNK_SIZE + 10), ...head.slice(11 * CHUNK_SIZE, 11 * CHUNK_SIZE + 10)];
    snapshot = deliver(snapshot, middle.map((job) => job.jobId), 2_000);
    snapshot = enqueue(snapshot, spare.slice(0, 1), 2_100);
    // More deliveries than the machine remembers, each followed by an enqueue, until the ten are
    // forgotten: 50 jobs from each of ten middle chunks a round, so no chunk empties and the
    // chunks stay where they were (a stale set would survive that).
    const rounds = Math.ceil((RECENT_KEYS + middle.length) / 500);
    for (let round = 0, at = 3_000; round < rounds; round += 1, at += 100) {
      const ids: string[] = [];
      for (let chunk = 1; chunk <= 10; chunk += 1) {
        const from = chunk * CHUNK_SIZE + (chunk === 5 ? 10 : 0) + round * 50;
        ids.push(...head.slice(from, from + 50).map((job) => job.jobId));
      }
      snapshot = deliver(snapshot, ids, at);
      snapshot = enqueue(snapshot, spare.slice(round + 1, round + 2), at + 50);
    }
    expect(recentIds(snapshot.context)).not.toContain(middle[0]?.jobId);
    // Offered again, they are new jobs: queued, not dropped as copies.
    const before = snapshot.context.depth;
    snapshot = enqueue(snapshot, middle, 9_000);
    expect(snapshot.context.depth).toBe(before + middle.length);
    expect(pendingJobs(snapshot.context).slice(-middle.length).map((job) => job.jobId)).toEqual(middle.map((job) => job.jobId));
  });

  it('takes back jobs delivered from the end of the queue once forgotten, though the end was refilled since', () => {
    // Two chunks; an enqueue builds the index; ten jobs at the end are delivered, then another enqueue.
    let snapshot = enqueue(fresh(), pool.slice(0, 600), 1_000);
    snapshot = enqueue(snapshot, pool.slice(600, 601), 1_100);
    const tail = pool.slice(590, 600);
    snapshot = deliver(snapshot, tail.map((job) => job.jobId), 1_200);
    snapshot = enqueue(snapshot, pool.slice(601, 602), 1_300);
    // Rounds of new jobs queued at the end and delivered from there, more than the machine
    // remembers: the last chunk shrinks and regrows, the first never changes.
    let next = 602;
    for (let round = 0, at = 2_000; (round - 1) * 450 < RECENT_KEYS; round += 1, at += 100) {
      const batch = pool.slice(next, next + 450);
      next += 450;
      snapshot = enqueue(snapshot, batch, at);
      snapshot = deliver(snapshot, batch.map((job) => job.jobId), at + 10);
      snapshot = enqueue(snapshot, [], at + 50);
    }
    expect(recentIds(snapshot.context)).not.toContain(tail[0]?.jobId);
    const before = snapshot.context.depth;
    snapshot = enqueue(snapshot, tail, 9_000);
    expect(snapshot.context.depth).toBe(before + tail.length);
  });
});

describe('pending chunks', () => {
  it('hold jobs frozen all the way down: a reader of a snapshot cannot change a queued item', () => {
    const prepared = prepareJobs(
      [{ bankId: 'bank-a', documentId: 'doc-f', updateMode: 'append' as const, item: { content: 'turn', tags: ['a'], metadata: { k: 'v' }, entities: [{ text: 'rollup' }] }, identity: 'freeze#1' }],
      1_000,
      nodeIds.digest,
    );
    if (E.isLeft(prepared)) throw new Error(prepared.left);
    const [job] = pendingJobs(enqueue(fresh(), prepared.right, 2_000).context);
    if (job === undefined) throw new Error('the job was not queued');
    const entity = job.item.entities?.[0];
    for (const part of [job, job.item, job.item.tags, job.item.metadata, job.item.entities, entity]) expect(Object.isFrozen(part)).toBe(true);
  });
});
