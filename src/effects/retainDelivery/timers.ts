/**
 * The queue's two clocks: the retry timer of a backoff (its deadline is in the gate's context,
 * so a restore re-arms it) and the periodic flush of coalesced mode.
 */
import { retainEvents } from '../../machines/retainDelivery/events.js';
import { every } from '../ports/clock.js';
import { background, dispatch, snapshotOf, type QueueCore } from './core.js';

export interface RetryTimer {
  /** Arms the timer for `retryAt` (replacing any); null, or a closing queue, only disarms it. */
  schedule(retryAt: number | null): void;
  cancel(): void;
}

export const retryTimer = (core: QueueCore): RetryTimer => {
  let cancelTimer: (() => void) | undefined;
  const cancel = (): void => {
    cancelTimer?.();
    cancelTimer = undefined;
  };
  return {
    schedule: (retryAt) => {
      cancel();
      if (retryAt === null || core.closing) return;
      cancelTimer = core.clock.setTimer(retryAt, () => {
        cancelTimer = undefined;
        if (!core.closing) background(core, 'retry', async () => void (await dispatch(core, retainEvents.timerFired({ at: core.clock.now() }))));
      });
    },
    cancel,
  };
};

/** Asks for a flush every `intervalMs` while jobs wait; returns the stop function. */
export const periodicFlush = (core: QueueCore, intervalMs: number): (() => void) =>
  every(core.clock, intervalMs, () => {
    if (core.closing || snapshotOf(core).context.depth === 0) return;
    background(core, 'periodic flush', async () => void (await dispatch(core, retainEvents.flushRequested({ at: core.clock.now() }))));
  });
