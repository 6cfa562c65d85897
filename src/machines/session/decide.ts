/**
 * The session gate's decisions about effect outcomes: which event an outcome becomes. Effects
 * report; they never decide. Pure, so a test reads every case without running a recall.
 */
import { sessionEvents, type RecalledResult, type SessionEventInput } from './events.js';

/** What a recall run ended with, as far as the gate cares (the recaller's outcome fits it). */
export type RecallOutcomeFact =
  | { readonly _tag: 'injected'; readonly items: number; readonly cached: boolean; readonly failedBanks: number }
  | { readonly _tag: 'empty'; readonly failedBanks: number }
  | { readonly _tag: 'noQuery' }
  | { readonly _tag: 'failed'; readonly reason: string }
  | { readonly _tag: 'timedOut' }
  | { readonly _tag: 'aborted' };

/** Each result's score, stage and floor verdict: carried by the event for the trace only. */
export interface RecallTelemetry {
  readonly floor: number;
  readonly results: readonly RecalledResult[];
}

/** The event that reports a recall's outcome to the gate. */
export const recallOutcomeEvent = (outcome: RecallOutcomeFact, at: number, requestId: string, telemetry?: RecallTelemetry): SessionEventInput => {
  const why = telemetry === undefined ? {} : { floor: telemetry.floor, results: [...telemetry.results] };
  switch (outcome._tag) {
    case 'injected':
      return sessionEvents.recallSucceeded({ at, requestId, items: outcome.items, cached: outcome.cached, failedBanks: outcome.failedBanks, ...why });
    case 'empty':
      return sessionEvents.recallSucceeded({ at, requestId, items: 0, cached: false, failedBanks: outcome.failedBanks, ...why });
    case 'noQuery':
      return sessionEvents.recallSucceeded({ at, requestId, items: 0, cached: false, failedBanks: 0 });
    case 'failed':
      return sessionEvents.recallFailed({ at, requestId, reason: outcome.reason });
    case 'timedOut':
      return sessionEvents.recallTimedOut({ at, requestId });
    case 'aborted':
      return sessionEvents.recallAborted({ at, requestId });
  }
};
