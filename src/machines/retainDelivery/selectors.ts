/**
 * What the retain queue does next, read off a snapshot of the retain-delivery gate. The queue's
 * effects ask these instead of reading state values themselves, so every decision about
 * delivery lives beside the machine that makes it.
 */
import { waitsOnOtherProcess, type RetainDeliveryContext } from './context.js';
import type { RetainDeliveryState } from './machine.js';

export interface RetainDeliveryView {
  readonly value: RetainDeliveryState;
  readonly context: RetainDeliveryContext;
}

/** Delivery has stopped for now: nothing is being chosen or sent (a flush waits for this). */
export const isSettled = (s: RetainDeliveryView): boolean => s.value === 'idle' || s.value === 'paused' || s.value === 'backingOff';

/** No batch is being chosen, sent or drained (a close waits for this). */
export const isOutOfDelivery = (s: RetainDeliveryView): boolean => s.value !== 'draining' && s.value !== 'selecting' && s.value !== 'delivering';

/**
 * A batch start is due: the gate is choosing or draining, or it mirrors a batch of another
 * process (this one may adopt it). A start that an earlier start already answered finds none.
 */
export const batchDue = (s: RetainDeliveryView, owner: string): boolean =>
  s.value === 'selecting' || s.value === 'draining' || (s.value === 'delivering' && s.context.inFlight?.owner !== owner);

/** After the lease and a sync: a pause or a backoff folded in means no batch now. */
export const holdsDelivery = (s: RetainDeliveryView): boolean => s.value === 'paused' || s.value === 'backingOff';

/** Jobs queued while the last choice was made (immediate mode): ask for a batch once more. */
export const asksAgainAfterSkip = (s: RetainDeliveryView): boolean => s.context.mode === 'immediate' && s.value === 'idle' && s.context.depth > 0;

/** Records of other processes moved the fold on to choosing a batch: start it from here. */
export const startsFromSync = (s: RetainDeliveryView): boolean => s.value === 'selecting';

/** Waiting with jobs (idle, or mirroring another process's batch): a sync that brought news asks for a flush. */
export const idleWithWork = (s: RetainDeliveryView): boolean =>
  (s.value === 'idle' || (s.value === 'delivering' && waitsOnOtherProcess(s.context))) && s.context.depth > 0;

/** A restore in the middle of a delivery (this process's or a dead one's): ask for the batch again. */
export const resumesDelivery = (s: RetainDeliveryView): boolean => s.value === 'selecting' || s.value === 'delivering' || s.value === 'draining';

/** What a stopped process left that an opening one retries at once: its backoff, its pause. */
export const leftWaiting = (s: RetainDeliveryView): 'backoff' | 'pause' | undefined =>
  s.value === 'backingOff' ? 'backoff' : s.value === 'paused' ? 'pause' : undefined;
