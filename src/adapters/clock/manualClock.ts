/**
 * The in-memory twin of `ClockPort`: time moves only when told, and timers due by then fire
 * in due order. The production clock is `systemClock` (`src/effects/ports/clock.ts`).
 */
import type { ClockPort } from '../../effects/ports/clock.js';

export interface ManualClock extends ClockPort {
  /** Moves time forward by `ms` and fires every timer due by then, earliest first. */
  advance(ms: number): void;
  /** Timers armed and not yet fired or cancelled. */
  readonly pending: number;
}

export const createManualClock = (start = 1_000_000): ManualClock => {
  let now = start;
  let armed = 0;
  const timers = new Set<{ at: number; order: number; fire: () => void }>();
  return {
    now: () => now,
    get pending() {
      return timers.size;
    },
    setTimer: (at, fire) => {
      const timer = { at, order: armed++, fire };
      timers.add(timer);
      return () => {
        timers.delete(timer);
      };
    },
    advance: (ms) => {
      now += ms;
      const due = [...timers].filter((t) => t.at <= now).sort((a, b) => a.at - b.at || a.order - b.order);
      for (const timer of due) {
        // A timer cancelled by an earlier one in this batch does not fire.
        if (!timers.delete(timer)) continue;
        timer.fire();
      }
    },
  };
};
