/**
 * Requests first, background work after. The server is one event loop: an async retain's
 * analysis that runs while requests keep arriving makes every one of them wait for its slices
 * (an acknowledgement that needs a millisecond waited out a 20 ms slice), so acknowledging was
 * no cheaper than retaining in place. Background work asks for a `turn()` before each slice: it
 * is given once no request has been in flight for `QUIET_MS`, and at the latest after
 * `MAX_WAIT_MS` (work queued behind a client that never pauses still moves on).
 *
 * A sender of retains that does work of its own between them (the retain queue journals each
 * batch, 5-150 ms on a loaded host) pauses longer than `QUIET_MS` between every two: each pause
 * let a 1,000-item analysis in, whose CPU and slices then lengthened the sender's next pause,
 * and a flush of 10,000 jobs ran at a third of its speed with analysis deferred (docs/queue.md).
 * So a pause counts as quiet only once it is also longer than twice the sender's last pause
 * between two retains (at most `MAX_WAIT_MS`): a sender keeping its rhythm is served first, and
 * one that stopped is noticed after twice its rhythm. Only retains set the rhythm: a client
 * polling its operations is waiting for the analysis, not sending.
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
  /** A request is being served until the returned function is called (`retain`: it writes memories). */
  enter(kind?: 'retain'): () => void;
  /**
   * Resolves when background work may take its next slice: `quiet` after a pause in requests,
   * `overdue` when it waited its longest while they kept coming (take a small step then).
   * Aborted, it stops looking and never resolves: the caller was given its turn another way.
   */
  turn(signal?: AbortSignal): Promise<Turn>;
}

/** `now`: the wall clock in ms (tests give their own). */
export const createForeground = (now: () => number = () => performance.now()): Foreground => {
  let inFlight = 0;
  let lastActive = -Infinity;
  /** When the last retain ended, and the pause before it (since the retain before that ended). */
  let lastRetainEnd = -Infinity;
  let retainPause = 0;
  /** How much longer the pause must last to be quiet (0: it is). */
  const quietIn = (): number => {
    if (inFlight > 0) return QUIET_MS;
    const at = now();
    return Math.max(0, QUIET_MS - (at - lastActive), Math.min(2 * retainPause, MAX_WAIT_MS) - (at - lastRetainEnd));
  };
  return {
    enter: (kind) => {
      inFlight += 1;
      if (kind === 'retain') {
        // A pause longer than the longest wait is no rhythm: the sender had stopped.
        const pause = now() - lastRetainEnd;
        retainPause = pause <= MAX_WAIT_MS ? pause : 0;
      }
      let left = false;
      return () => {
        if (left) return;
        left = true;
        inFlight -= 1;
        lastActive = now();
        if (kind === 'retain') lastRetainEnd = lastActive;
      };
    },
    turn: (signal) => {
      if (quietIn() === 0) return Promise.resolve('quiet');
      const asked = now();
      return new Promise((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        signal?.addEventListener('abort', () => clearTimeout(timer), { once: true });
        const check = (): void => {
          if (signal?.aborted === true) return;
          const left = quietIn();
          const waited = now() - asked;
          if (left === 0 || waited >= MAX_WAIT_MS) {
            resolve(left === 0 ? 'quiet' : 'overdue');
            return;
          }
          // Look again when the pause could be long enough (or the wait has run out).
          timer = setTimeout(check, Math.max(1, Math.min(left, MAX_WAIT_MS - waited)));
        };
        check();
      });
    },
  };
};
