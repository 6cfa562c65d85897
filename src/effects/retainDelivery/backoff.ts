/**
 * Retry pacing for the retain queue: full-jitter exponential backoff (AWS, "Exponential
 * Backoff And Jitter"), never earlier than the server's Retry-After or the breaker's re-try
 * time. Computed here, passed to the machine as data (`retryAt`).
 */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

export const defaultBackoff: BackoffPolicy = { baseMs: 2_000, capMs: 5 * 60_000 };

/**
 * The next attempt time after the `failures`-th consecutive failure: a random point in
 * [base/2, min(cap, base * 2^(failures-1))], at least `notBefore`. The lower bound keeps a
 * run of retries from hammering a server that just came back.
 */
export const nextAttemptAt = (
  now: number,
  failures: number,
  policy: BackoffPolicy,
  random: () => number,
  notBefore?: number,
): number => {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  const floor = Math.min(policy.baseMs / 2, ceiling);
  const delay = floor + random() * (ceiling - floor);
  return Math.max(Math.round(now + delay), notBefore ?? 0);
};
