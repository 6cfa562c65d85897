/**
 * The retain-delivery gate's decisions that take a number: when to try again. Pure: time and
 * jitter come in as event data, so a fold of the journal decides the same retry time the live
 * process did, and the effects only report what happened.
 *
 * Full-jitter exponential backoff (AWS, "Exponential Backoff And Jitter"), never earlier than
 * the server's Retry-After or the breaker's re-try time.
 */
import type { RetainDeliveryContext } from './context.js';
import type { RetainDeliveryEvent } from './events.js';

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

export const defaultBackoff: BackoffPolicy = { baseMs: 2_000, capMs: 5 * 60_000 };

/**
 * The next attempt time after the `failures`-th consecutive failure: a point in
 * [base/2, min(cap, base * 2^(failures-1))] picked by `jitter` (0..1), at least `notBefore`.
 * The lower bound keeps a run of retries from hammering a server that just came back.
 */
export const nextAttemptAt = (now: number, failures: number, policy: BackoffPolicy, jitter: number, notBefore?: number): number => {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  const floor = Math.min(policy.baseMs / 2, ceiling);
  const delay = floor + Math.min(Math.max(jitter, 0), 1) * (ceiling - floor);
  return Math.max(Math.round(now + delay), notBefore ?? 0);
};

type Failed = Extract<RetainDeliveryEvent, { type: 'retain.failed' }>;

/**
 * When a failed batch is tried again: null for a failure that waits for the next flush. A
 * record written before the machine decided this carries its own `retryAt`, which stands.
 */
export const retryAtAfter = (context: RetainDeliveryContext, event: Failed): number | null => {
  if (event.retryAt !== undefined) return event.retryAt;
  if (event.failureClass !== 'retry') return null;
  // A server asking for more than the cap (a huge Retry-After) is tried at the cap.
  const notBefore = event.notBefore === undefined ? undefined : Math.min(event.notBefore, event.at + context.backoff.capMs);
  return nextAttemptAt(event.at, context.failures + 1, context.backoff, event.jitter ?? 0.5, notBefore);
};
