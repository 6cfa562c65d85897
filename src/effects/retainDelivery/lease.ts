/**
 * The delivery lease of one queue, as this process holds it: only the holder sends. Taken
 * (or refreshed) before each batch, kept alive by a heartbeat, let go when delivery settles.
 */
import { every, type ClockPort } from '../ports/clock.js';
import type { HeldLease, LeasePort } from '../ports/retainQueueStore.js';
import { oneAtATime } from './core.js';

export interface LeaseKeeper {
  /** True when this process holds the lease (newly taken or refreshed). */
  acquire(): Promise<boolean>;
  /** True when it was held and is let go now. */
  release(): Promise<boolean>;
  /** Who holds it, for the reason a batch was skipped. */
  holder: LeasePort['holder'];
}

export const keepLease = (lease: LeasePort, clock: ClockPort): LeaseKeeper => {
  const serial = oneAtATime();
  let held: HeldLease | undefined;
  let stopHeartbeat: (() => void) | undefined;
  const stop = (): void => {
    stopHeartbeat?.();
    stopHeartbeat = undefined;
  };
  return {
    acquire: () =>
      serial.run(async () => {
        if (held !== undefined) {
          if (await held.refresh()) return true;
          held = undefined;
          stop();
        }
        held = await lease.tryAcquire();
        if (held === undefined) return false;
        const mine = held;
        stopHeartbeat = every(clock, Math.max(1_000, lease.staleMs / 4), () => void mine.refresh().catch(() => undefined));
        return true;
      }),
    release: () =>
      serial.run(async () => {
        if (held === undefined) return false;
        stop();
        const mine = held;
        held = undefined;
        await mine.release();
        return true;
      }),
    holder: () => lease.holder(),
  };
};
