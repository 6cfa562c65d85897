/**
 * The setup gate's decisions about probe outcomes: when a failed probe is tried again, and which
 * event a probe's findings become. Effects report; they never decide.
 */
import { setupEvents, type SetupEventInput } from './events.js';

/** Degraded: probe again after this long (the client's breaker makes a dead server cheap). */
export const RETRY_AFTER_MS = 30_000;

/** A probe or bank creation failed at `at`: degrade and retry after `RETRY_AFTER_MS`. */
export const probeFailed = (at: number, reason: string): SetupEventInput => setupEvents.probeFailed({ at, reason, retryAt: at + RETRY_AFTER_MS });

export const banksEnsureFailed = (at: number, reason: string): SetupEventInput =>
  setupEvents.banksEnsureFailed({ at, reason, retryAt: at + RETRY_AFTER_MS });

/** What a probe found: the server's version and append support, and which banks exist. */
export interface ProbeFindings {
  readonly apiVersion: string;
  readonly append: boolean;
  readonly exists: readonly { readonly bankId: string; readonly exists: boolean }[];
}

export const probeSucceeded = (at: number, findings: ProbeFindings): SetupEventInput =>
  setupEvents.probeSucceeded({
    at,
    apiVersion: findings.apiVersion,
    append: findings.append,
    missingBanks: findings.exists.filter((b) => !b.exists).map((b) => b.bankId),
  });
