/**
 * The retain-delivery gate of one open queue: the machine with its effects provided, started
 * over the shared journal, and started again (a new gate) when another process rewrote it.
 */
import type { BackoffPolicy } from '../../machines/retainDelivery/decide.js';
import { RetainDeliveryEvent, retainEvents } from '../../machines/retainDelivery/events.js';
import { retainDeliveryMachine } from '../../machines/retainDelivery/machine.js';
import { resumesDelivery } from '../../machines/retainDelivery/selectors.js';
import { CHUNK_SIZE, freshJobs, pendingJobs, type DeliveryMode } from '../../machines/retainDelivery/context.js';
import type { JournalPort } from '../ports/journal.js';
import type { TracePort } from '../ports/trace.js';
import { startGate } from '../kernel/startGate.js';
import type { BatchStarts } from './batchStart.js';
import type { Delivery } from './delivery.js';
import type { RetryTimer } from './timers.js';
import { background, dispatch, errorText, gateOf, snapshotOf, type QueueCore, type QueueSnapshot } from './core.js';

export interface QueueGateOptions {
  readonly journal: JournalPort;
  readonly mode: DeliveryMode;
  readonly backoff?: BackoffPolicy;
  readonly trace?: TracePort;
  /** Told of every snapshot of whichever gate is current. */
  readonly onSnapshot: () => void;
}

export interface QueueGateEffects {
  readonly starts: BatchStarts;
  readonly delivery: Delivery;
  readonly retry: RetryTimer;
}

export interface QueueGateLifecycle {
  /** Starts a gate (the first, or a new one over a rewritten journal) and makes it current. */
  start(): Promise<void>;
  /** Stops the current gate and starts a new one. */
  rebuild(): Promise<void>;
  /** Stops listening to the current gate. */
  unsubscribe(): void;
}

export const queueGate = (core: QueueCore, effects: QueueGateEffects, options: QueueGateOptions): QueueGateLifecycle => {
  const machine = retainDeliveryMachine.provide({
    actions: {
      // Transitions caused by another process's records (folded in while this process already
      // holds the lease, inside a batch start) start no effect of their own.
      startBatch: ({ event }) => {
        if (event.replica !== true) effects.starts.request('starting a delivery');
      },
      deliverBatch: (_args, params) => effects.delivery.start(params.batch),
      scheduleRetry: (_args, params) => effects.retry.schedule(params.retryAt),
      settled: ({ event }) => {
        if (core.gate !== undefined && event.replica !== true) background(core, 'settling', effects.starts.settled);
      },
    },
  });

  let unsubscribeGate: (() => void) | undefined;
  let resumeDelivery = false;
  const onRestore = (snapshot: QueueSnapshot): void => {
    if (snapshot.value === 'backingOff') effects.retry.schedule(snapshot.context.retryAt);
    // A batch that was out when the last process stopped (or is out in another process):
    // ask again once this process has said who it is, re-sending it (same jobs, same key) if
    // nobody holds the lease.
    resumeDelivery = resumesDelivery(snapshot);
  };

  const start = async (): Promise<void> => {
    resumeDelivery = false;
    const gate = await startGate({
      name: 'retainDelivery',
      machine,
      events: RetainDeliveryEvent,
      journal: options.journal,
      clock: core.clock,
      input: { mode: options.mode, ...(options.backoff === undefined ? {} : { backoff: options.backoff }) },
      onRestore,
      ...(options.trace === undefined ? {} : { trace: options.trace }),
    });
    core.gate = gate;
    core.damaged += gate.damage.length;
    // Without it (the journal cannot be written: a full disk) this process only waits less
    // cleverly on another's batch; the queue still opens.
    await dispatch(core, retainEvents.opened({ owner: core.owner, at: core.clock.now() })).catch((error: unknown) => core.warn(`retain queue: ${errorText(error)}`));
    if (resumeDelivery) effects.starts.request('resuming a delivery');
    unsubscribeGate?.();
    unsubscribeGate = gate.subscribe(options.onSnapshot);
  };

  return {
    start,
    rebuild: async () => {
      const before = pendingJobs(snapshotOf(core).context);
      await gateOf(core).stop();
      await start();
      // A compaction by another process keeps every job it knew (pending, dead or recently
      // delivered), so this is empty then. A file moved in over the journal (a person moving a
      // set-aside queue back, docs/queue.md) does not know this process's queued jobs: they
      // were acknowledged, so they are queued again into the new journal, under the same ids.
      const lost = freshJobs(snapshotOf(core).context, before);
      for (let i = 0; i < lost.length; i += CHUNK_SIZE) await dispatch(core, retainEvents.enqueued({ jobs: lost.slice(i, i + CHUNK_SIZE), at: core.clock.now() }));
    },
    unsubscribe: () => unsubscribeGate?.(),
  };
};
