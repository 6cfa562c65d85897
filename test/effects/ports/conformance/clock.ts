/** What every `ClockPort` keeps: time never runs backwards, due timers fire in due order, cancelled ones never. */
import { describe, expect, it } from 'vitest';
import { every, type ClockPort } from '../../../../src/effects/ports/clock.js';

export interface ClockSubject {
  readonly clock: ClockPort;
  /** Lets `ms` of the clock's time pass (a real wait for the system clock). */
  pass(ms: number): Promise<void>;
}

export const describeClockConformance = (name: string, make: () => ClockSubject): void => {
  describe(`ClockPort conformance: ${name}`, () => {
    it('never runs backwards', async () => {
      const { clock, pass } = make();
      const first = clock.now();
      await pass(5);
      expect(clock.now()).toBeGreaterThanOrEqual(first);
    });

    it('fires due timers in the order they are due, and a cancelled timer never', async () => {
      const { clock, pass } = make();
      const fired: string[] = [];
      const start = clock.now();
      clock.setTimer(start + 20, () => fired.push('late'));
      clock.setTimer(start + 5, () => fired.push('early'));
      const cancel = clock.setTimer(start + 10, () => fired.push('cancelled'));
      cancel();
      await pass(40);
      expect(fired).toEqual(['early', 'late']);
    });

    it('repeats with every() until cancelled, then never again', async () => {
      const { clock, pass } = make();
      let calls = 0;
      const cancel = every(clock, 10, () => {
        calls += 1;
      });
      for (let i = 0; i < 3; i += 1) await pass(12);
      expect(calls).toBeGreaterThanOrEqual(3);
      cancel();
      const seen = calls;
      await pass(40);
      expect(calls).toBe(seen);
    });

    it('fires a timer whose time has already passed', async () => {
      const { clock, pass } = make();
      let fired = false;
      clock.setTimer(clock.now() - 1_000, () => {
        fired = true;
      });
      await pass(1);
      expect(fired).toBe(true);
    });
  });
};
