/**
 * Sending a batch this process started: its jobs go to the server (`send.ts`), the outcome
 * comes back to the gate as events, a delivery is noted in the receipts and a refusal in the
 * dead-letter log. Deliveries run one after another; `close()` waits for the last.
 */
import { findPending } from '../../machines/retainDelivery/context.js';
import { retainEvents, type InFlightBatch, type RetainJob } from '../../machines/retainDelivery/events.js';
import { sendBatch } from './send.js';
import { background, dispatch, errorText, oneAtATime, snapshotOf, type QueueCore } from './core.js';

export interface Delivery {
  /** Queues the batch's delivery (the gate's `deliverBatch`); a batch of another owner is not ours to send. */
  start(batch: InFlightBatch | null): void;
  /** Resolves once every queued delivery has finished. */
  drained(): Promise<void>;
}

export interface DeliveryOptions {
  /** Send retains async: `operation_id` makes a repeat a no-op only then. */
  readonly asyncRetain: boolean;
  /** Jitter source for the retry time the machine decides. */
  readonly random: () => number;
}

export const delivery = (core: QueueCore, options: DeliveryOptions): Delivery => {
  const serial = oneAtATime();
  const now = (): number => core.clock.now();

  const recordDeadLetters = async (jobs: readonly RetainJob[], reason: string, status: number | null): Promise<void> => {
    const at = new Date(now()).toISOString();
    const lines = jobs.map((job) => `${JSON.stringify({ at, reason, status, job })}\n`).join('');
    await core.store.appendDeadLetters(lines);
  };

  const takeProbe = (): boolean => {
    const asked = core.probeRequested;
    core.probeRequested = false;
    return asked;
  };

  const deliver = async (batch: InFlightBatch): Promise<void> => {
    // Queue order, which is the order the batch was chosen in.
    const jobs = findPending(snapshotOf(core).context, batch.jobIds);
    if (jobs.length === 0) {
      await dispatch(core, retainEvents.delivered({ jobIds: batch.jobIds, receipt: { operationId: null, itemsCount: 0, async: options.asyncRetain }, at: now() }));
      return;
    }
    const outcome = await sendBatch(
      { server: core.server, async: options.asyncRetain, now, random: options.random, signal: core.abort.signal, recordDeadLetters, probe: takeProbe },
      batch,
      jobs,
    );
    for (const event of outcome.events) {
      // Counted before the dispatch: a flush waiting on the state change reads them at once.
      const delivered = event.type === 'retain.delivered' ? event.jobIds.length : 0;
      const deadLettered = event.type === 'retain.deadLettered' ? event.jobIds.length : 0;
      const before = core.counters;
      core.counters = { delivered: before.delivered + delivered, deadLettered: before.deadLettered + deadLettered };
      try {
        await dispatch(core, event);
      } catch (error) {
        core.counters = { delivered: core.counters.delivered - delivered, deadLettered: core.counters.deadLettered - deadLettered };
        throw error;
      }
    }
    const [first] = outcome.delivered;
    if (first !== undefined) {
      await core.store
        .addReceipt({
          at: new Date(now()).toISOString(),
          bankId: first.bankId,
          jobCount: outcome.delivered.length,
          itemsCount: outcome.delivered.length,
          operationId: outcome.receiptOperationId,
          async: options.asyncRetain,
          documentIds: [...new Set(outcome.delivered.map((j) => j.documentId))].slice(0, 10),
        })
        .catch((error: unknown) => core.warn(`retain receipts: ${errorText(error)}`));
    }
  };

  return {
    start: (batch) => {
      if (batch === null || batch.owner !== core.owner || core.closed) return;
      const run = serial.run(() => deliver(batch));
      background(core, 'delivery', () => run);
    },
    drained: () => serial.drained(),
  };
};
