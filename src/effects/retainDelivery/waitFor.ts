/** Waiting on the queue's gate for a state, across the gate being replaced. */
import { every } from '../ports/clock.js';
import { gateOf, type QueueCore, type QueueGate, type QueueSnapshot } from './core.js';

/** Resolves when `predicate` holds for the current gate's snapshot, or at `deadline`. */
export const waitFor = (core: QueueCore, predicate: (s: QueueSnapshot) => boolean, deadline: number | undefined): Promise<'done' | 'deadline'> =>
  new Promise((resolve) => {
    let finished = false;
    let watched: QueueGate | undefined;
    let unsubscribe: (() => void) | undefined;
    let cancelTimer: (() => void) | undefined;
    // The gate is replaced when another process compacts the journal: re-watch the new one.
    const stopPolling = every(core.clock, 50, () => check());
    const finish = (how: 'done' | 'deadline'): void => {
      if (finished) return;
      finished = true;
      stopPolling();
      cancelTimer?.();
      unsubscribe?.();
      resolve(how);
    };
    const check = (): void => {
      const gate = gateOf(core);
      if (watched !== gate) {
        unsubscribe?.();
        watched = gate;
        unsubscribe = gate.subscribe(check);
      }
      if (predicate(gate.getSnapshot())) finish('done');
    };
    if (deadline !== undefined) cancelTimer = core.clock.setTimer(deadline, () => finish('deadline'));
    check();
  });
