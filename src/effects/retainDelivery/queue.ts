/**
 * The durable retain queue: the retain-delivery gate wired to its journal, the memory server
 * and a delivery lease.
 *
 * - `enqueue` resolves only once the jobs are fsync'd in the journal (queue-first retain).
 * - Only the holder of the delivery lease sends; other processes on the same project append
 *   and fold in the holder's records. A batch and its key are journaled before the first send,
 *   so whoever re-sends it after a crash uses the same key (the server drops the repeat).
 * - Retries back off with jitter; 401/403/404/410 pause (jobs kept) until `resume()`;
 *   400/422 dead-letter with the server's reason.
 * Over ports only: the store (journal, lease, receipts, dead letters; `src/hosts/retainQueueStore.ts`
 * builds it on files), ids (job keys, the owner tag), the clock, the memory server.
 * This file wires the parts, each with one job: `lease.ts`, `journalSync.ts`, `compaction.ts`,
 * `batchStart.ts`, `delivery.ts`, `timers.ts`, `queueGate.ts`; what a caller asks of the open
 * queue (flush, enqueue, dead letters, close) is `operations.ts`; what happens next is read off
 * the gate (`machines/retainDelivery/selectors.ts`). See docs/queue.md.
 */
import { defaultBatchLimits } from '../../machines/retainDelivery/batch.js';
import { retainEvents } from '../../machines/retainDelivery/events.js';
import { leftWaiting } from '../../machines/retainDelivery/selectors.js';
import { systemClock } from '../ports/clock.js';
import { batchStarts } from './batchStart.js';
import { compactIfLong } from './compaction.js';
import { background, dispatch, errorText, snapshotOf, type QueueCore } from './core.js';
import { delivery } from './delivery.js';
import { foreignSync, gateJournalOf } from './journalSync.js';
import { keepLease } from './lease.js';
import { queueGate } from './queueGate.js';
import { closeQueue, dropDeadLetters, enqueueJobs, enqueueJobsSync, flushQueue, recheckQueue, requeueDeadLetters, type QueueParts } from './operations.js';
import { statusOf, type QueueStatus } from './status.js';
import { periodicFlush, retryTimer } from './timers.js';
import type { OpenRetainQueueOptions, RetainQueue } from './contract.js';

export type { RetainJob, DeadLetter } from '../../machines/retainDelivery/events.js';
export type { RetainItem } from '../../machines/retainDelivery/events.js';
export type { QueueStatus, FlushReport, QueueState } from './status.js';
export type { NewRetainJob } from './jobs.js';
export type { OpenRetainQueueOptions, RetainQueue } from './contract.js';

export const openRetainQueue = async (options: OpenRetainQueueOptions): Promise<RetainQueue> => {
  const clock = options.clock ?? systemClock;
  const warn = options.onWarning ?? ((message: string) => process.emitWarning(message, { code: 'AGENT_MEMORY_QUEUE' }));
  const digest = options.ids.digest;
  const ownerTag = options.ids.uuid().slice(0, 8);
  const store = await options.store({
    onJournalDamage: (damage) => warn(`retain queue: ${damage.reason}`),
    onReceiptsDamage: (message) => warn(`retain receipts: ${message}`),
  });
  const { journal } = store;
  const core: QueueCore = {
    clock,
    store,
    owner: `${store.processName}:${ownerTag}`,
    warn,
    gate: undefined,
    server: options.server,
    closing: false,
    closed: false,
    damaged: 0,
    counters: { delivered: 0, deadLettered: 0 },
    probeRequested: false,
    abort: new AbortController(),
  };
  const now = (): number => clock.now();
  const compact = (): Promise<void> => compactIfLong(core, journal, options.compactAbove ?? 2_000);
  const lease = keepLease(store.lease, clock);
  const sync = foreignSync(core, journal, () => lifecycle.rebuild());
  const starts = batchStarts(core, { lease, sync, compact, limits: options.batchLimits ?? defaultBatchLimits, digest });
  const deliveries = delivery(core, { asyncRetain: options.async ?? true, random: options.random ?? Math.random });
  const retry = retryTimer(core);
  const listeners = new Set<(s: QueueStatus) => void>();
  const currentStatus = (): QueueStatus => {
    const snapshot = snapshotOf(core);
    return statusOf(snapshot.value, snapshot.context, core.damaged, core.counters);
  };
  const gateJournal = gateJournalOf(journal);
  const lifecycle = queueGate(
    core,
    { starts, delivery: deliveries, retry },
    {
      journal: options.wrapJournal === undefined ? gateJournal : options.wrapJournal(gateJournal),
      mode: options.mode,
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      ...(options.trace === undefined ? {} : { trace: options.trace }),
      onSnapshot: () => {
        const status = currentStatus();
        for (const listener of listeners) listener(status);
      },
    },
  );

  await lifecycle.start();
  // What a process that stopped left: its backoff timer died with it, and a pause may have been
  // caused by a key that is fixed now. Try at once (one attempt; a failure backs off or pauses
  // again) rather than wait on a dead process's deadline or on a resume nobody will send.
  const openedWith = leftWaiting(snapshotOf(core));
  // A log much longer than its live set (many delivered jobs) is rewritten now, so the next
  // process that opens it folds the live set, not the history.
  await compact().catch((error: unknown) => warn(`retain queue: compaction skipped: ${errorText(error)}`));
  const stopInterval = options.mode === 'coalesced' && options.flushIntervalMs > 0 ? periodicFlush(core, options.flushIntervalMs) : undefined;

  // Jobs waiting when the queue opens are tried once even if the shared breaker is open.
  if (snapshotOf(core).context.depth > 0) core.probeRequested = true;
  if (openedWith !== undefined) background(core, `retrying after a stopped process's ${openedWith}`, () => recheckQueue(core));

  const parts: QueueParts = {
    drained: () => deliveries.drained(),
    cancelRetry: () => retry.cancel(),
    stopInterval,
    unsubscribe: () => lifecycle.unsubscribe(),
    releaseLease: async () => {
      await lease.release();
    },
  };
  return {
    enqueue: (input) => enqueueJobs(core, input, digest),
    enqueueSync: (input) => enqueueJobsSync(core, journal, input, digest),
    flush: (o) => flushQueue(core, o),
    recheck: (o) => recheckQueue(core, o),
    status: currentStatus,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    deadLetters: async () => snapshotOf(core).context.deadLetters,
    requeueDeadLetters: (ids) => requeueDeadLetters(core, ids),
    dropDeadLetters: (ids) => dropDeadLetters(core, ids),
    resume: async (o = {}) => {
      if (o.server !== undefined) core.server = o.server;
      await dispatch(core, retainEvents.resumed({ at: now() }));
    },
    close: (o) => closeQueue(core, parts, o),
  };
};
