/**
 * Starting a batch, and letting the lease go when delivery settles.
 *
 * Batch starts run one after another. Two at once in one process broke the lease: the first
 * found nothing to send and let the lease go (settled) while the second, which had shared its
 * hold, sent a batch; another process then took the lease and sent the same jobs under a
 * different batch key (the five-host test caught a turn on the server twice). Each start asks
 * the gate whether a batch is still due: one that an earlier start already answered does nothing.
 */
import { selectBatch, type BatchLimits } from '../../machines/retainDelivery/batch.js';
import { findPending } from '../../machines/retainDelivery/context.js';
import { retainEvents } from '../../machines/retainDelivery/events.js';
import { asksAgainAfterSkip, batchDue, holdsDelivery, idleWithWork, startsFromSync } from '../../machines/retainDelivery/selectors.js';
import type { IdsPort } from '../ports/ids.js';
import { batchOperationId } from './jobs.js';
import type { ForeignSync } from './journalSync.js';
import type { LeaseKeeper } from './lease.js';
import { background, dispatch, oneAtATime, snapshotOf, type QueueCore } from './core.js';

export interface BatchStarts {
  /** Starts a batch if one is still due when its turn comes (the gate's `startBatch`). */
  request(label: string): void;
  /** Delivery stopped (the gate's `settled`): lets the lease go and picks up what others queued. */
  settled(): Promise<void>;
}

export interface BatchStartParts {
  readonly lease: LeaseKeeper;
  readonly sync: ForeignSync;
  /** Compacts the journal when it has grown long (`compaction.ts`). */
  readonly compact: () => Promise<void>;
  readonly limits: BatchLimits;
  readonly digest: IdsPort['digest'];
}

export const batchStarts = (core: QueueCore, parts: BatchStartParts): BatchStarts => {
  const serial = oneAtATime();
  const now = (): number => core.clock.now();
  const skip = (reason: string): Promise<unknown> => dispatch(core, retainEvents.batchSkipped({ reason, at: now() }));

  const start = async (): Promise<void> => {
    if (core.closing) {
      await skip('shutting down');
      return;
    }
    if (!(await parts.lease.acquire())) {
      const holder = await parts.lease.holder();
      await skip(`${holder === undefined ? 'another process' : `process ${holder.pid}`} is delivering this queue`);
      return;
    }
    if ((await parts.sync()).outcome === 'rebuilt') {
      await dispatch(core, retainEvents.flushRequested({ at: now() }));
      return;
    }
    // The records just folded in may have changed the state (another process paused the queue,
    // or delivered what we meant to send); decide from the state after them. Letting the lease
    // go goes through `settled`, which also picks up jobs another process queued meanwhile.
    const snapshot = snapshotOf(core);
    if (holdsDelivery(snapshot)) {
      await settled();
      return;
    }
    const choice = selectBatch(snapshot.context, parts.limits);
    const jobs = findPending(snapshot.context, choice.jobIds);
    if (jobs.length === 0) {
      await skip('nothing to deliver');
      await settled();
      // A job of this process queued after the choice above (it landed in `selecting` and only
      // joined the queue) would otherwise wait for the next turn: the first pending job always
      // makes a batch, so this asks once more and cannot loop.
      if (!core.closing && asksAgainAfterSkip(snapshotOf(core))) await dispatch(core, retainEvents.flushRequested({ at: now() }));
      return;
    }
    // `close()` may have begun while this start waited on the lease and the sync: a closing
    // process starts nothing new. Sent now, the batch would be cut off at the close deadline
    // and left to another process to take over; left pending, the next holder sends it fresh.
    if (core.closing) {
      await skip('shutting down');
      return;
    }
    const batch = { jobIds: jobs.map((j) => j.jobId), operationId: choice.adoptedOperationId ?? batchOperationId(jobs, parts.digest), owner: core.owner };
    await dispatch(core, retainEvents.batchStarted({ batch, at: now() }));
  };

  const request = (label: string): void => {
    const run = serial.run(async () => {
      if (batchDue(snapshotOf(core), core.owner)) await start();
    });
    background(core, label, () => run);
  };

  const settled = async (): Promise<void> => {
    const released = await parts.lease.release();
    if (!released || core.closing) return;
    await parts.compact();
    // Another process may have queued jobs while we held the lease (its attempt was skipped,
    // and it counts on the holder): fold in what others wrote and deliver it. Our own appends
    // read past those records without folding them, so the file size alone does not tell.
    const sync = await parts.sync();
    const snapshot = snapshotOf(core);
    // Another process's outcome folded in here can move the fold on to `selecting` (jobs left):
    // a replica starts no effect, so start the batch from here.
    if (startsFromSync(snapshot)) {
      request('delivering what other processes queued');
      return;
    }
    if ((sync.outcome === 'rebuilt' || sync.folded > 0) && idleWithWork(snapshot)) await dispatch(core, retainEvents.flushRequested({ at: now() }));
  };

  return { request, settled };
};
