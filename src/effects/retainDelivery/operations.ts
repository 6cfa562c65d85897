/**
 * What a caller asks of an open retain queue, each over the queue's core: flush it, try a pause
 * or a backoff again, queue jobs in one durable write, pick dead letters, close it. The wiring
 * that builds the core and its parts is `queue.ts`; these only dispatch gate events and wait
 * on the gate (`machines/retainDelivery/selectors.ts`).
 */
import * as E from 'fp-ts/lib/Either.js';
import { RetainDeliveryEvent, retainEvents, type RetainJob } from '../../machines/retainDelivery/events.js';
import { isOutOfDelivery, isSettled } from '../../machines/retainDelivery/selectors.js';
import type { MemoryServer } from '../ports/memoryServer.js';
import type { SharedJournal } from '../ports/retainQueueStore.js';
import { toJson } from '../kernel/trace.js';
import { dispatch, gateOf, snapshotOf, type QueueCore } from './core.js';
import { enqueuedEvents, type NewRetainJob } from './jobs.js';
import { flushReportOf, type FlushReport } from './status.js';
import { waitFor } from './waitFor.js';

const now = (core: QueueCore): number => core.clock.now();

/** Ends a pause (it is tried again) or a backoff now; a no-op in any other state. */
export const recheckQueue = async (core: QueueCore, o: { readonly server?: MemoryServer } = {}): Promise<void> => {
  if (core.closing) return;
  if (o.server !== undefined) core.server = o.server;
  core.probeRequested = true;
  const state = snapshotOf(core).value;
  if (state === 'paused') await dispatch(core, retainEvents.resumed({ at: now(core) }));
  else if (state === 'backingOff') await dispatch(core, retainEvents.flushRequested({ at: now(core), force: true }));
};

export const flushQueue = async (core: QueueCore, o: { readonly deadline?: number; readonly force?: boolean; readonly recheckPause?: boolean } = {}): Promise<FlushReport> => {
  const before = core.counters;
  if (o.force === true) core.probeRequested = true;
  // A user's flush tries a paused queue again: the key may have been fixed since.
  if (o.recheckPause !== false && snapshotOf(core).value === 'paused') await dispatch(core, retainEvents.resumed({ at: now(core) }));
  await dispatch(core, retainEvents.flushRequested({ at: now(core), ...(o.force === true ? { force: true } : {}) }));
  const how = await waitFor(core, isSettled, o.deadline);
  const snapshot = snapshotOf(core);
  return flushReportOf(snapshot.value, snapshot.context, how, { before, after: core.counters }, now(core));
};

export const enqueueJobs = async (core: QueueCore, input: readonly NewRetainJob[], digest: (text: string) => string): Promise<readonly RetainJob[]> => {
  if (core.closing) throw new Error('retain queue: closed; nothing was queued');
  const { jobs, events } = enqueuedEvents(input, now(core), digest);
  for (const event of events) await dispatch(core, event);
  return jobs;
};

/** The jobs in one synchronous durable write (pi's `agent_end`). */
export const enqueueJobsSync = (core: QueueCore, journal: SharedJournal, input: readonly NewRetainJob[], digest: (text: string) => string): readonly RetainJob[] => {
  const { jobs, events } = enqueuedEvents(input, now(core), digest);
  for (const event of events) {
    if (core.closed) {
      // This process's gate has stopped (pi can end a run after the session shut down): the
      // record goes to the shared journal only, and the next process to fold it (another live
      // one, or the next start) delivers it.
      const decoded = RetainDeliveryEvent.decode(event);
      if (E.isLeft(decoded)) throw new Error('retain queue: a job did not encode; nothing was queued');
      journal.appendSync([{ type: event.type, at: new Date(now(core)).toISOString(), payload: toJson(decoded.right) }]);
      continue;
    }
    const result = gateOf(core).dispatchSync(event);
    if (E.isLeft(result)) throw new Error(result.left.message);
  }
  return jobs;
};

/** The dead letters' job ids: all, or those among `ids`. */
const deadLetterIds = (core: QueueCore, ids: readonly string[] | undefined): string[] => {
  const dead = snapshotOf(core).context.deadLetters;
  return (ids === undefined ? dead : dead.filter((d) => ids.includes(d.job.jobId))).map((d) => d.job.jobId);
};

/** Puts dead letters (all, or those among `ids`) back in the queue; how many. */
export const requeueDeadLetters = async (core: QueueCore, ids: readonly string[] | undefined): Promise<number> => {
  const chosen = deadLetterIds(core, ids);
  if (chosen.length === 0) return 0;
  await dispatch(core, retainEvents.requeued({ jobIds: chosen, at: now(core) }));
  return chosen.length;
};

/** Drops dead letters (all, or those among `ids`); how many. */
export const dropDeadLetters = async (core: QueueCore, ids: readonly string[] | undefined): Promise<number> => {
  const chosen = deadLetterIds(core, ids);
  if (chosen.length === 0) return 0;
  await dispatch(core, retainEvents.deadLettersDropped({ jobIds: chosen, at: now(core) }));
  return chosen.length;
};

/** What `closeQueue` stops once no batch is out (each part's own stop). */
export interface QueueParts {
  readonly drained: () => Promise<void>;
  readonly cancelRetry: () => void;
  readonly stopInterval: (() => void) | undefined;
  readonly unsubscribe: () => void;
  readonly releaseLease: () => Promise<void>;
}

export const closeQueue = async (core: QueueCore, parts: QueueParts, o: { readonly deadline?: number; readonly flush?: boolean } = {}): Promise<void> => {
  if (core.closed) return;
  const deadline = o.deadline ?? now(core) + 3_000;
  if (o.flush !== false && !core.closing && snapshotOf(core).context.depth > 0) {
    await flushQueue(core, { deadline, recheckPause: false }).catch(() => undefined);
  }
  core.closing = true;
  await dispatch(core, retainEvents.shutdown({ at: now(core) })).catch(() => undefined);
  const how = await waitFor(core, isOutOfDelivery, deadline);
  if (how === 'deadline') core.abort.abort();
  await parts.drained();
  core.closed = true;
  parts.cancelRetry();
  parts.stopInterval?.();
  parts.unsubscribe();
  await gateOf(core).stop();
  await parts.releaseLease().catch(() => undefined);
  // The journal is not closed: a late `enqueueSync` still appends to it (it holds nothing open).
  core.abort = new AbortController();
};
