/**
 * Requests first, background work after. The server is one event loop: an async retain's
 * analysis that runs while requests keep arriving makes every one of them wait for its slices
 * (an acknowledgement that needs a millisecond waited out a 20 ms slice), so acknowledging was
 * no cheaper than retaining in place. Background work asks for a `turn()` before each slice: it
 * is given once no request has been in flight for `QUIET_MS`, and at the latest after
 * `MAX_WAIT_MS` (work queued behind a client that never pauses still moves on).
 *
 * Wall time, not the server clock: like slicing, this decides nothing a test asserts.
 */
import { performance } from 'node:perf_hooks';

/**
 * A pause in requests this long lets background work take a slice: longer than a client's own
 * work between two requests (the retain queue journals each batch before and after it, a few
 * milliseconds), so a sender that keeps sending is served first.
 */
const QUIET_MS = 20;
/** Background work never waits longer than this for its slice. */
const MAX_WAIT_MS = 250;

export type Turn = 'quiet' | 'overdue';

export interface Foreground {
  /** A request is being served until the returned function is called. */
  enter(): () => void;
  /**
   * Resolves when background work may take its next slice: `quiet` after a pause in requests,
   * `overdue` when it waited its longest while they kept coming (take a small step then).
   * Aborted, it stops looking and never resolves: the caller was given its turn another way.
   */
  turn(signal?: AbortSignal): Promise<Turn>;
}

export const createForeground = (): Foreground => {
  let inFlight = 0;
  let lastActive = -Infinity;
  const quietFor = (): number => (inFlight > 0 ? 0 : performance.now() - lastActive);
  return {
    enter: () => {
      inFlight += 1;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        inFlight -= 1;
        lastActive = performance.now();
      };
    },
    turn: (signal) => {
      if (quietFor() >= QUIET_MS) return Promise.resolve('quiet');
      const asked = performance.now();
      return new Promise((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        signal?.addEventListener('abort', () => clearTimeout(timer), { once: true });
        const check = (): void => {
          if (signal?.aborted === true) return;
          const quiet = quietFor();
          const waited = performance.now() - asked;
          if (quiet >= QUIET_MS || waited >= MAX_WAIT_MS) {
            resolve(quiet >= QUIET_MS ? 'quiet' : 'overdue');
            return;
          }
          // Look again when the pause could be long enough (or the wait has run out).
          timer = setTimeout(check, Math.max(1, Math.min(QUIET_MS - quiet, MAX_WAIT_MS - waited)));
        };
        check();
      });
    },
  };
};
