/**
 * A circuit breaker per base URL: after `threshold` consecutive unreachable/timeout outcomes
 * it opens, and calls fail fast with `circuitOpen` until `coolDownMs` has passed; then one
 * half-open probe goes through, and its outcome closes or reopens the circuit.
 *
 * Only "the server did not answer" counts: any HTTP answer (even a 500) proves it is there.
 * Hand-rolled (reliability.md 2.4): the state is tiny and a library would bring its own timeouts.
 */
import type { ClockPort } from '../../effects/ports/clock.js';
import type { BreakerState } from '../../effects/ports/memoryServer.js';

export interface BreakerOptions {
  /** Consecutive failures that open the circuit. */
  readonly threshold: number;
  /** How long the circuit stays open before one probe is let through. */
  readonly coolDownMs: number;
}

export const defaultBreakerOptions: BreakerOptions = { threshold: 3, coolDownMs: 15_000 };

/** What one call's outcome means to the breaker. */
export type BreakerOutcome = 'answered' | 'noAnswer' | 'neutral';

export type Admission = { readonly admitted: true; readonly probe: boolean } | { readonly admitted: false; readonly retryAt: number };

export interface CircuitBreaker {
  state(): BreakerState;
  /** Asks to send one call now; `probe`: send it as the probe even while open. */
  admit(probe?: boolean): Admission;
  /** Reports the outcome of an admitted call (`probe` as `admit` returned it). */
  record(outcome: BreakerOutcome, probe: boolean): void;
  subscribe(listener: (state: BreakerState) => void): () => void;
}

/**
 * Where a breaker keeps its state between host processes (several short-lived pi processes
 * share one state directory), so a new session does not pay the deadline again for a server
 * another session just found dead. Best effort: it is a cache of what calls learnt.
 */
export interface BreakerPersistence {
  load(): BreakerState | undefined;
  save(state: BreakerState): void;
}

/** A persisted half-open state means its probe died with its process: open, probe due now. */
const restored = (state: BreakerState | undefined): BreakerState =>
  state === undefined ? { state: 'closed', failures: 0 } : state.state === 'halfOpen' ? { state: 'open', failures: state.failures, retryAt: state.retryAt ?? 0 } : state;

export const createBreaker = (clock: ClockPort, options: BreakerOptions = defaultBreakerOptions, persistence?: BreakerPersistence): CircuitBreaker => {
  // A retry time further off than one cool-down was set by a clock that jumped (this process's
  // or, through the shared file, another's): it is held to one cool-down from now, so a jump
  // of hours never keeps every process off a server that is back.
  const bounded = (state: BreakerState): BreakerState =>
    state.retryAt !== undefined && state.retryAt > clock.now() + options.coolDownMs ? { ...state, retryAt: clock.now() + options.coolDownMs } : state;
  const loaded = restored(persistence?.load());
  let current: BreakerState = bounded(loaded);
  // Written back, so the file stops telling other processes to wait hours.
  if (current !== loaded) persistence?.save(current);
  const listeners = new Set<(state: BreakerState) => void>();

  const move = (next: BreakerState): void => {
    const changed = next.state !== current.state || next.failures !== current.failures || next.retryAt !== current.retryAt;
    current = next;
    if (!changed) return;
    persistence?.save(next);
    for (const listener of [...listeners]) {
      // A listener's bug must not break the call path that triggered the transition.
      try {
        listener(next);
      } catch {
        /* ignored on purpose */
      }
    }
  };

  const open = (failures: number): void => {
    move({ state: 'open', failures, retryAt: clock.now() + options.coolDownMs });
  };

  return {
    state: () => current,
    admit: (probe = false) => {
      if (current.state === 'closed') return { admitted: true, probe: false };
      move(bounded(current));
      const retryAt = current.retryAt ?? clock.now();
      if (probe || (current.state === 'open' && clock.now() >= retryAt)) {
        move({ state: 'halfOpen', failures: current.failures, retryAt });
        return { admitted: true, probe: true };
      }
      // Open and cooling down, or half-open with the one probe already in flight.
      return { admitted: false, retryAt };
    },
    record: (outcome, probe) => {
      if (outcome === 'answered') {
        move({ state: 'closed', failures: 0 });
        return;
      }
      if (outcome === 'noAnswer') {
        const failures = current.failures + 1;
        if (probe || current.state !== 'closed' || failures >= options.threshold) open(failures);
        else move({ state: 'closed', failures });
        return;
      }
      // Neutral (aborted by the caller, deadline spent before sending): a probe that told us
      // nothing hands the next call the chance to probe.
      if (probe && current.state === 'halfOpen') move({ state: 'open', failures: current.failures, retryAt: clock.now() });
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
};

const registry = new Map<string, CircuitBreaker>();

/**
 * The breaker shared by every client of `baseUrl` in this process, created on first use
 * with the first caller's clock and options.
 */
export const breakerFor = (baseUrl: string, clock: ClockPort, options?: BreakerOptions, persistence?: BreakerPersistence): CircuitBreaker => {
  const existing = registry.get(baseUrl);
  if (existing !== undefined) return existing;
  const created = createBreaker(clock, options, persistence);
  registry.set(baseUrl, created);
  return created;
};

/** Drops the shared breaker of `baseUrl` (a server was replaced, or a test starts fresh). */
export const forgetBreaker = (baseUrl: string): void => {
  registry.delete(baseUrl);
};
