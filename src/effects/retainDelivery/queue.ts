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
 * `batchStart.ts`, `delivery.ts`, `timers.ts`, `queueGate.ts`; what happens next is read off
 * the gate (`machines/retainDelivery/selectors.ts`). See docs/queue.md.
 */
import * as E from 'fp-ts/lib/Either.js';
import { defaultBatchLimits } from '../../machines/retainDelivery/batch.js';
import { RetainDeliveryEvent, retainEvents, type RetainJob } from '../../machines/retainDelivery/events.js';
import { isOutOfDelivery, isSettled, leftWaiting } from '../../machines/retainDelivery/selectors.js';
import { systemClock } from '../ports/clock.js';
import type { MemoryServer } from '../ports/memoryServer.js';
import { toJson } from '../kernel/trace.js';
import { batchStarts } from './batchStart.js';
import { compactIfLong } from './compaction.js';
import { background, dispatch, errorText, gateOf, snapshotOf, type QueueCore } from './core.js';
import { delivery } from './delivery.js';
import { enqueuedEvents, type NewRetainJob } from './jobs.js';
import { foreignSync, gateJournalOf } from './journalSync.js';
import { keepLease } from './lease.js';
import { queueGate } from './queueGate.js';
import { flushReportOf, statusOf, type FlushReport, type QueueStatus } from './status.js';
import { periodicFlush, retryTimer } from './timers.js';
import { waitFor } from './waitFor.js';
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

  /** Ends a pause (it is tried again) or a backoff now; a no-op in any other state. */
  const recheck = async (o: { readonly server?: MemoryServer } = {}): Promise<void> => {
    if (core.closing) return;
    if (o.server !== undefined) core.server = o.server;
    core.probeRequested = true;
    const state = snapshotOf(core).value;
    if (state === 'paused') await dispatch(core, retainEvents.resumed({ at: now() }));
    else if (state === 'backingOff') await dispatch(core, retainEvents.flushRequested({ at: now(), force: true }));
  };
  // Jobs waiting when the queue opens are tried once even if the shared breaker is open.
  if (snapshotOf(core).context.depth > 0) core.probeRequested = true;
  if (openedWith !== undefined) background(core, `retrying after a stopped process's ${openedWith}`, () => recheck());

  const flush = async (o: { readonly deadline?: number; readonly force?: boolean; readonly recheckPause?: boolean } = {}): Promise<FlushReport> => {
    const before = core.counters;
    if (o.force === true) core.probeRequested = true;
    // A user's flush tries a paused queue again: the key may have been fixed since.
    if (o.recheckPause !== false && snapshotOf(core).value === 'paused') await dispatch(core, retainEvents.resumed({ at: now() }));
    await dispatch(core, retainEvents.flushRequested({ at: now(), ...(o.force === true ? { force: true } : {}) }));
    const how = await waitFor(core, isSettled, o.deadline);
    const snapshot = snapshotOf(core);
    return flushReportOf(snapshot.value, snapshot.context, how, { before, after: core.counters }, now());
  };

  const enqueueSync = (input: readonly NewRetainJob[]): readonly RetainJob[] => {
    const { jobs, events } = enqueuedEvents(input, now(), digest);
    for (const event of events) {
      if (core.closed) {
        // This process's gate has stopped (pi can end a run after the session shut down): the
        // record goes to the shared journal only, and the next process to fold it (another live
        // one, or the next start) delivers it.
        const decoded = RetainDeliveryEvent.decode(event);
        if (E.isLeft(decoded)) throw new Error('retain queue: a job did not encode; nothing was queued');
        journal.appendSync([{ type: event.type, at: new Date(now()).toISOString(), payload: toJson(decoded.right) }]);
        continue;
      }
      const result = gateOf(core).dispatchSync(event);
      if (E.isLeft(result)) throw new Error(result.left.message);
    }
    return jobs;
  };

  /** The dead letters' job ids: all, or those among `ids`. */
  const deadLetterIds = (ids: readonly string[] | undefined): string[] => {
    const dead = snapshotOf(core).context.deadLetters;
    return (ids === undefined ? dead : dead.filter((d) => ids.includes(d.job.jobId))).map((d) => d.job.jobId);
  };

  return {
    enqueue: async (input) => {
      if (core.closing) throw new Error('retain queue: closed; nothing was queued');
      const { jobs, events } = enqueuedEvents(input, now(), digest);
      for (const event of events) await dispatch(core, event);
      return jobs;
    },
    enqueueSync,
    flush: (o) => flush(o),
    recheck,
    status: currentStatus,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    deadLetters: async () => snapshotOf(core).context.deadLetters,
    requeueDeadLetters: async (ids) => {
      const chosen = deadLetterIds(ids);
      if (chosen.length === 0) return 0;
      await dispatch(core, retainEvents.requeued({ jobIds: chosen, at: now() }));
      return chosen.length;
    },
    dropDeadLetters: async (ids) => {
      const chosen = deadLetterIds(ids);
      if (chosen.length === 0) return 0;
      await dispatch(core, retainEvents.deadLettersDropped({ jobIds: chosen, at: now() }));
      return chosen.length;
    },
    resume: async (o = {}) => {
      if (o.server !== undefined) core.server = o.server;
      await dispatch(core, retainEvents.resumed({ at: now() }));
    },
    close: async (o = {}) => {
      if (core.closed) return;
      const deadline = o.deadline ?? now() + 3_000;
      if (o.flush !== false && !core.closing && snapshotOf(core).context.depth > 0) {
        await flush({ deadline, recheckPause: false }).catch(() => undefined);
      }
      core.closing = true;
      await dispatch(core, retainEvents.shutdown({ at: now() })).catch(() => undefined);
      const how = await waitFor(core, isOutOfDelivery, deadline);
      if (how === 'deadline') core.abort.abort();
      await deliveries.drained();
      core.closed = true;
      retry.cancel();
      stopInterval?.();
      lifecycle.unsubscribe();
      await gateOf(core).stop();
      await lease.release().catch(() => undefined);
      // The journal is not closed: a late `enqueueSync` still appends to it (it holds nothing open).
      core.abort = new AbortController();
    },
  };
};
