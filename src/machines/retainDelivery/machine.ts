/**
 * The retain-delivery gate: a pure machine over the durable retain queue.
 *
 * idle -> selecting (the effect takes the delivery lease and picks a batch) -> delivering
 * (the batch and its key are journaled before the first send) -> idle | backingOff (retry
 * deadline in context) | paused (401/403/404/410, until resumed). `shutdown` while a batch is
 * out moves to draining, which waits for its outcome and starts nothing new.
 *
 * Effects are the named actions `startBatch`, `deliverBatch`, `scheduleRetry` and `settled`,
 * provided by `src/effects/retainDelivery/queue.ts`; outcomes come back as events.
 */
import { castDraft } from 'immer';
import { assertEvent, setup, type StateValueFrom } from 'xstate';
import { immerAssign } from '../shared/immerAssign.js';
import { addPending, findPending, freshJobs, initialContext, rememberIds, removePending, waitsOnOtherProcess, type RetainDeliveryContext, type RetainDeliveryInput } from './context.js';
import { retryAtAfter } from './decide.js';
import type { InFlightBatch, RetainDeliveryEvent } from './events.js';

type EventOf<T extends RetainDeliveryEvent['type']> = Extract<RetainDeliveryEvent, { type: T }>;
type Ctx = RetainDeliveryContext;
type Ev = RetainDeliveryEvent;

const touch = (draft: { now: number }, at: number): void => {
  if (at > draft.now) draft.now = at;
};

// Jobs of the batch in flight that this outcome leaves unresolved (a batch can be answered
// in parts when a refused batch is retried job by job).
const unresolvedAfter = (context: Ctx, ids: readonly string[]): InFlightBatch['jobIds'] => {
  if (context.inFlight === null) return [];
  const resolved = new Set(ids);
  const stillPending = new Set(findPending(context, context.inFlight.jobIds).map((j) => j.jobId));
  return context.inFlight.jobIds.filter((id) => !resolved.has(id) && stillPending.has(id));
};

const depthAfter = (context: Ctx, ids: readonly string[]): number => context.depth - findPending(context, ids).length;

const effectMissing = (name: string): never => {
  throw new Error(`retain delivery: the effect ${name} was not provided; open the queue with openRetainQueue (src/effects/retainDelivery/queue.ts)`);
};

const continues = (context: Ctx, ids: readonly string[]): boolean =>
  depthAfter(context, ids) > 0 && (context.mode === 'immediate' || context.flushActive);

export const retainDeliveryMachine = setup({
  types: {} as { context: Ctx; events: Ev; input: RetainDeliveryInput },
  actions: {
    // Effects: implemented in src/effects/retainDelivery/queue.ts. A machine run live without
    // them would lose deliveries silently, so each one throws until it is provided.
    startBatch: () => effectMissing('startBatch'),
    deliverBatch: (_args, _params: { batch: InFlightBatch | null }) => effectMissing('deliverBatch'),
    scheduleRetry: (_args, _params: { retryAt: number | null }) => effectMissing('scheduleRetry'),
    settled: () => effectMissing('settled'),

    addJobs: immerAssign<Ctx, Ev>((draft, { event, context }) => {
      assertEvent(event, 'retain.enqueued');
      touch(draft, event.at);
      // A copy of a job already pending, dead-lettered or lately delivered is dropped here.
      addPending(draft, context, freshJobs(context, event.jobs));
    }),
    noteFlush: immerAssign<Ctx, Ev>((draft, { event }) => {
      touch(draft, event.at);
      draft.flushActive = true;
    }),
    noteTime: immerAssign<Ctx, Ev>((draft, { event }) => touch(draft, event.at)),
    noteOwner: immerAssign<Ctx, Ev>((draft, { event }) => {
      assertEvent(event, 'retain.opened');
      touch(draft, event.at);
      draft.owner = event.owner;
    }),
    recordBatch: immerAssign<Ctx, Ev>((draft, { event }) => {
      assertEvent(event, 'retain.batchStarted');
      touch(draft, event.at);
      draft.inFlight = { jobIds: [...event.batch.jobIds], operationId: event.batch.operationId, owner: event.batch.owner };
      draft.lastSkip = null;
    }),
    recordSkip: immerAssign<Ctx, Ev>((draft, { event }) => {
      assertEvent(event, 'retain.batchSkipped');
      touch(draft, event.at);
      draft.lastSkip = event.reason;
      draft.flushActive = false;
    }),
    recordDelivered: immerAssign<Ctx, Ev>((draft, { event, context }) => {
      assertEvent(event, 'retain.delivered');
      touch(draft, event.at);
      const removed = removePending(draft, context, event.jobIds);
      rememberIds(draft, context, event.jobIds);
      const open = unresolvedAfter(context, event.jobIds);
      if (draft.inFlight !== null) draft.inFlight.jobIds = open;
      if (open.length === 0) draft.inFlight = null;
      draft.failures = 0;
      draft.retryAt = null;
      draft.lastError = null;
      draft.lastDelivery = { at: event.at, jobCount: removed.length, receipt: event.receipt };
    }),
    recordDeadLettered: immerAssign<Ctx, Ev>((draft, { event, context }) => {
      assertEvent(event, 'retain.deadLettered');
      touch(draft, event.at);
      const removed = removePending(draft, context, event.jobIds);
      for (const job of removed) draft.deadLetters.push(castDraft({ job, reason: event.reason, status: event.status, at: event.at }));
      const open = unresolvedAfter(context, event.jobIds);
      if (draft.inFlight !== null) draft.inFlight.jobIds = open;
      if (open.length === 0) draft.inFlight = null;
      draft.lastError = { at: event.at, reason: `dead-lettered ${removed.length} job(s): ${event.reason}` };
    }),
    recordFailed: immerAssign<Ctx, Ev>((draft, { event, context }) => {
      assertEvent(event, 'retain.failed');
      touch(draft, event.at);
      // The batch may have reached the server before the failure (a timeout, a reset): keep
      // it, so the next attempt re-sends the same jobs under the same key.
      draft.lastError = { at: event.at, reason: event.reason };
      const retryAt = retryAtAfter(context, event);
      if (event.failureClass === 'retry') {
        draft.failures += 1;
        draft.retryAt = retryAt;
      }
      if (retryAt === null) draft.flushActive = false;
    }),
    recordPaused: immerAssign<Ctx, Ev>((draft, { event }) => {
      assertEvent(event, 'retain.paused');
      touch(draft, event.at);
      draft.inFlight = null;
      draft.pausedReason = event.reason;
      draft.lastError = { at: event.at, reason: event.reason };
      draft.flushActive = false;
    }),
    clearPause: immerAssign<Ctx, Ev>((draft, { event }) => {
      touch(draft, event.at);
      draft.pausedReason = null;
      draft.retryAt = null;
      draft.failures = 0;
    }),
    clearRetry: immerAssign<Ctx, Ev>((draft, { event }) => {
      touch(draft, event.at);
      draft.retryAt = null;
    }),
    endFlush: immerAssign<Ctx, Ev>((draft) => {
      draft.flushActive = false;
    }),
    dropDeadLetters: immerAssign<Ctx, Ev>((draft, { event, context }) => {
      assertEvent(event, 'retain.deadLettersDropped');
      touch(draft, event.at);
      const dropped = new Set(event.jobIds);
      draft.deadLetters = draft.deadLetters.filter((d) => !dropped.has(d.job.jobId));
      // Dropped for good: a copy offered again stays dropped.
      rememberIds(draft, context, event.jobIds);
    }),
    requeue: immerAssign<Ctx, Ev>((draft, { event, context }) => {
      assertEvent(event, 'retain.requeued');
      touch(draft, event.at);
      const wanted = new Set(event.jobIds);
      const back = context.deadLetters.filter((d) => wanted.has(d.job.jobId));
      draft.deadLetters = draft.deadLetters.filter((d) => !wanted.has(d.job.jobId));
      addPending(
        draft,
        context,
        back.map((d) => d.job),
      );
    }),
    restoreSnapshot: immerAssign<Ctx, Ev>((draft, { event, context }) => {
      assertEvent(event, 'retain.snapshot');
      touch(draft, event.at);
      addPending(draft, context, freshJobs(context, event.jobs));
      if (event.recentKeys !== undefined) rememberIds(draft, context, event.recentKeys);
      for (const dead of event.deadLetters) draft.deadLetters.push(castDraft(dead));
      if (event.inFlight !== null) draft.inFlight = { jobIds: [...event.inFlight.jobIds], operationId: event.inFlight.operationId, owner: event.inFlight.owner };
      draft.pausedReason = event.pausedReason;
      draft.retryAt = event.retryAt;
      draft.failures = event.failures;
    }),
  },
  guards: {
    deliversOnEnqueue: ({ context, event }) => {
      assertEvent(event, 'retain.enqueued');
      return event.replica !== true && context.mode === 'immediate' && freshJobs(context, event.jobs).length > 0;
    },
    hasPending: ({ context }) => context.depth > 0,
    forced: ({ event }) => {
      assertEvent(event, 'retain.flushRequested');
      return event.force === true;
    },
    retryDue: ({ context, event }) => context.retryAt === null || event.at >= context.retryAt,
    batchStillOpen: ({ context, event }) => {
      assertEvent(event, ['retain.delivered', 'retain.deadLettered']);
      return unresolvedAfter(context, event.jobIds).length > 0;
    },
    continuesAfterOutcome: ({ context, event }) => {
      assertEvent(event, ['retain.delivered', 'retain.deadLettered']);
      return continues(context, event.jobIds);
    },
    retriesLater: ({ context, event }) => {
      assertEvent(event, 'retain.failed');
      return retryAtAfter(context, event) !== null;
    },
    snapshotPaused: ({ event }) => {
      assertEvent(event, 'retain.snapshot');
      return event.pausedReason !== null;
    },
    snapshotBackingOff: ({ event }) => {
      assertEvent(event, 'retain.snapshot');
      return event.retryAt !== null;
    },
    requeuedInImmediateMode: ({ context }) => context.mode === 'immediate',
    isLive: ({ event }) => event.replica !== true,
    // Mirroring another process's batch: a flush or a new job of this process asks for the
    // lease again rather than wait for an outcome that only a sync would bring in.
    waitsOnOtherProcess: ({ context, event }) => event.replica !== true && waitsOnOtherProcess(context),
    enqueueWhileOtherDelivers: ({ context, event }) => {
      assertEvent(event, 'retain.enqueued');
      return event.replica !== true && context.mode === 'immediate' && waitsOnOtherProcess(context) && freshJobs(context, event.jobs).length > 0;
    },
  },
}).createMachine({
  id: 'retainDelivery',
  context: ({ input }) => initialContext(input),
  initial: 'idle',
  on: {
    // A batch can start from any state: our own after `selecting`, or another process's
    // (a replica) that this process mirrors so it can adopt the batch if that process dies.
    'retain.batchStarted': { target: '.delivering', reenter: true, actions: 'recordBatch' },
    'retain.timerFired': { actions: 'noteTime' },
    'retain.opened': { actions: 'noteOwner' },
    // An outcome of another process's batch, folded while this one is not mirroring it (it
    // started before this process caught up): the jobs are done all the same.
    'retain.delivered': { actions: 'recordDelivered' },
    'retain.deadLettered': { actions: 'recordDeadLettered' },
    // Dead letters are not in any delivery: dropping them changes no state.
    'retain.deadLettersDropped': { actions: 'dropDeadLetters' },
    // Shared by every state that does not say otherwise (a state's own handler, when one of
    // its guards passes, comes first): a new job joins the queue, a shutdown is noted.
    'retain.enqueued': { actions: 'addJobs' },
    'retain.shutdown': { actions: 'noteTime' },
  },
  states: {
    idle: {
      entry: 'settled',
      on: {
        'retain.enqueued': { guard: 'deliversOnEnqueue', target: 'selecting', actions: 'addJobs' },
        'retain.flushRequested': [
          { guard: 'hasPending', target: 'selecting', actions: 'noteFlush' },
          { actions: 'noteTime' },
        ],
        'retain.requeued': [
          { guard: 'requeuedInImmediateMode', target: 'selecting', actions: 'requeue' },
          { actions: 'requeue' },
        ],
        'retain.snapshot': [
          { guard: 'snapshotPaused', target: 'paused', actions: 'restoreSnapshot' },
          { guard: 'snapshotBackingOff', target: 'backingOff', actions: 'restoreSnapshot' },
          { actions: 'restoreSnapshot' },
        ],
        'retain.resumed': [{ guard: 'hasPending', target: 'selecting', actions: 'clearPause' }, { actions: 'clearPause' }],
        'retain.batchSkipped': { actions: 'recordSkip' },
      },
    },
    selecting: {
      entry: 'startBatch',
      on: {
        'retain.flushRequested': { actions: 'noteFlush' },
        'retain.requeued': { actions: 'requeue' },
        'retain.batchSkipped': { target: 'idle', actions: 'recordSkip' },
        'retain.shutdown': { target: 'draining', actions: 'noteTime' },
      },
    },
    delivering: {
      entry: { type: 'deliverBatch', params: ({ context }) => ({ batch: context.inFlight }) },
      on: {
        'retain.enqueued': { guard: 'enqueueWhileOtherDelivers', target: 'selecting', actions: 'addJobs' },
        'retain.flushRequested': [{ guard: 'waitsOnOtherProcess', target: 'selecting', actions: 'noteFlush' }, { actions: 'noteFlush' }],
        // Asked again for another process's batch (a restart folded it as out) while that
        // process still holds the lease: wait idle. Its outcome, folded later, clears it; if
        // that process is gone, the next delivery here takes the batch over under its key.
        'retain.batchSkipped': { guard: 'waitsOnOtherProcess', target: 'idle', actions: 'recordSkip' },
        'retain.requeued': { actions: 'requeue' },
        'retain.delivered': [
          { guard: 'batchStillOpen', actions: 'recordDelivered' },
          { guard: 'continuesAfterOutcome', target: 'selecting', actions: 'recordDelivered' },
          { target: 'idle', actions: ['recordDelivered', 'endFlush'] },
        ],
        'retain.deadLettered': [
          { guard: 'batchStillOpen', actions: 'recordDeadLettered' },
          { guard: 'continuesAfterOutcome', target: 'selecting', actions: 'recordDeadLettered' },
          { target: 'idle', actions: ['recordDeadLettered', 'endFlush'] },
        ],
        'retain.failed': [
          { guard: 'retriesLater', target: 'backingOff', actions: 'recordFailed' },
          { target: 'idle', actions: 'recordFailed' },
        ],
        'retain.paused': { target: 'paused', actions: 'recordPaused' },
        'retain.shutdown': { target: 'draining', actions: 'noteTime' },
      },
    },
    backingOff: {
      entry: ['settled', { type: 'scheduleRetry', params: ({ context }) => ({ retryAt: context.retryAt }) }],
      on: {
        'retain.timerFired': [
          { guard: 'retryDue', target: 'selecting', actions: 'clearRetry' },
          // Timers may fire a millisecond early: re-enter to arm the retry again.
          { target: 'backingOff', reenter: true, actions: 'noteTime' },
        ],
        'retain.flushRequested': [
          { guard: 'forced', target: 'selecting', actions: ['noteFlush', 'clearRetry'] },
          { actions: 'noteFlush' },
        ],
        'retain.requeued': { actions: 'requeue' },
        'retain.resumed': { target: 'selecting', actions: 'clearPause' },
        'retain.paused': { target: 'paused', actions: 'recordPaused' },
      },
    },
    paused: {
      entry: 'settled',
      on: {
        'retain.flushRequested': { actions: 'noteTime' },
        'retain.requeued': { actions: 'requeue' },
        'retain.resumed': [{ guard: 'hasPending', target: 'selecting', actions: 'clearPause' }, { target: 'idle', actions: 'clearPause' }],
      },
    },
    draining: {
      // Waits for the batch that is out; starts nothing new.
      on: {
        // A closing process starts no batch. One that starts here is either another process's
        // (mirrored) or a restarted process adopting the batch a dead one left: that one goes out.
        'retain.batchStarted': [{ guard: 'isLive', target: 'delivering', actions: 'recordBatch' }, { actions: 'recordBatch' }],
        'retain.batchSkipped': { target: 'idle', actions: 'recordSkip' },
        'retain.delivered': [{ guard: 'batchStillOpen', actions: 'recordDelivered' }, { target: 'idle', actions: ['recordDelivered', 'endFlush'] }],
        'retain.deadLettered': [
          { guard: 'batchStillOpen', actions: 'recordDeadLettered' },
          { target: 'idle', actions: ['recordDeadLettered', 'endFlush'] },
        ],
        'retain.failed': { target: 'idle', actions: 'recordFailed' },
        'retain.paused': { target: 'paused', actions: 'recordPaused' },
      },
    },
  },
});

export type RetainDeliveryMachine = typeof retainDeliveryMachine;
/** The machine's own state type, inferred from its config. */
export type RetainDeliveryState = StateValueFrom<RetainDeliveryMachine>;
export type { EventOf as RetainDeliveryEventOf };
