/**
 * Time for effects and the runtime. Machines never read a clock: the runtime stamps events
 * with `now()` and fires context deadlines through `setTimer`.
 */
export interface ClockPort {
  now(): number;
  /** Calls `fire` at (or soon after) epoch ms `at`; returns a cancel function. */
  setTimer(at: number, fire: () => void): () => void;
}

export const systemClock: ClockPort = {
  now: () => Date.now(),
  setTimer: (at, fire) => {
    const handle = setTimeout(fire, Math.max(0, at - Date.now()));
    // A pending retry must never keep the host process alive on its own.
    handle.unref();
    return () => clearTimeout(handle);
  },
};

/**
 * Calls `fire` every `ms` until cancelled. Each call arms the next through `setTimer`, so the
 * repetition runs on whichever clock the caller was given (a test's manual clock too).
 */
export const every = (clock: ClockPort, ms: number, fire: () => void): (() => void) => {
  let cancelled = false;
  let cancelTimer: () => void = () => undefined;
  const arm = (): void => {
    cancelTimer = clock.setTimer(clock.now() + ms, () => {
      if (cancelled) return;
      arm();
      fire();
    });
  };
  arm();
  return () => {
    cancelled = true;
    cancelTimer();
  };
};
