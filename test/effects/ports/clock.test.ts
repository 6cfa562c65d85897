/** The system clock and its manual twin keep the same contract. */
import { createManualClock } from '../../../src/adapters/clock/manualClock.js';
import { systemClock } from '../../../src/effects/ports/clock.js';
import { describeClockConformance } from './conformance/clock.js';

describeClockConformance('systemClock', () => ({
  clock: systemClock,
  // A timer armed after the ones under test, for later: Node fires timers in due order.
  pass: (ms) => new Promise((resolve) => systemClock.setTimer(systemClock.now() + ms + 5, () => resolve())),
}));

describeClockConformance('manual clock (twin)', () => {
  const clock = createManualClock();
  return {
    clock,
    pass: async (ms) => {
      clock.advance(ms);
    },
  };
});
