/**
 * Session events: the host's lifecycle hooks, the user's commands and effect outcomes, as the
 * session gate sees them. Each codec is the single source of its event's type.
 */
import * as t from 'io-ts';
import { EpochMs, NonEmptyString, NonNegativeInt } from '../../codecs/codecs.js';
import { eventOf } from '../shared/eventOf.js';

export const SessionMode = t.keyof({ normal: null, 'read-only': null, ignored: null });
export type SessionMode = t.TypeOf<typeof SessionMode>;

export const StartReason = t.keyof({ startup: null, reload: null, new: null, resume: null, fork: null });
export type StartReason = t.TypeOf<typeof StartReason>;

/** Which automatic behaviours config and setup allow right now. */
export const Automation = t.intersection([
  t.type({ recall: t.boolean, retain: t.boolean }),
  // The project is not set up yet (and the person did not decline it): a finished run is held
  // behind the retain cursor, so setup delivers it instead of it being marked and lost.
  t.partial({ awaitingSetup: t.boolean }),
]);
export type Automation = t.TypeOf<typeof Automation>;

const at = { at: EpochMs };

export const SessionStarted = t.intersection([
  t.type({ type: t.literal('session.started'), ...at, sessionId: NonEmptyString, reason: StartReason, automation: Automation }),
  t.partial({ sessionFile: NonEmptyString, mode: SessionMode, name: NonEmptyString }),
]);
export const AutomationChanged = t.intersection([
  t.type({ type: t.literal('automation.changed'), ...at, automation: Automation }),
  t.partial({ reason: t.string }),
]);
/** The host renamed the session (pi 0.80.3+ `session_info_changed`); no name: it was cleared. */
export const SessionRenamed = t.intersection([t.type({ type: t.literal('session.renamed'), ...at }), t.partial({ name: NonEmptyString })]);
export const ModeSet = t.type({ type: t.literal('mode.set'), ...at, mode: SessionMode });
export const OptOutRequested = t.type({ type: t.literal('optOut.requested'), ...at });

/** A model call is about to happen: look memory up, until `deadline` (epoch ms) at the latest. */
export const RecallRequested = t.type({ type: t.literal('recall.requested'), ...at, requestId: NonEmptyString, deadline: EpochMs });
/** Why a recalled memory was or was not injected: its score and the server stage that found it. */
export const RecalledResult = t.type({
  bankId: t.string,
  id: t.string,
  score: t.union([t.number, t.null]),
  stage: t.union([t.string, t.null]),
  passedFloor: t.boolean,
});
export type RecalledResult = t.TypeOf<typeof RecalledResult>;
export const RecallSucceeded = t.intersection([
  t.type({
    type: t.literal('recall.succeeded'),
    ...at,
    requestId: NonEmptyString,
    items: NonNegativeInt,
    cached: t.boolean,
    failedBanks: NonNegativeInt,
  }),
  // Telemetry for the trace only; the machine decides nothing from it.
  t.partial({ floor: t.number, results: t.array(RecalledResult) }),
]);
export const RecallFailed = t.type({ type: t.literal('recall.failed'), ...at, requestId: NonEmptyString, reason: t.string });
export const RecallTimedOut = t.type({ type: t.literal('recall.timedOut'), ...at, requestId: NonEmptyString });
export const RecallAborted = t.type({ type: t.literal('recall.aborted'), ...at, requestId: NonEmptyString });

/** The host finished an agent run (pi `agent_end`): its messages are ready to retain. */
export const RunEnded = t.type({ type: t.literal('run.ended'), ...at, runId: NonEmptyString });
export const RetainQueued = t.type({ type: t.literal('retain.queued'), ...at, runId: NonEmptyString, messages: NonNegativeInt, depth: NonNegativeInt });
export const RetainNothing = t.type({ type: t.literal('retain.nothing'), ...at, runId: NonEmptyString });
export const RetainFailed = t.type({ type: t.literal('retain.failed'), ...at, runId: NonEmptyString, reason: t.string });


/**
 * Why the host ends the session. `quit` ends the process (pi 0.77+ sends it on SIGTERM and
 * SIGHUP too): the last chance to deliver. The others replace the session in a process that
 * goes on (pi loads the extension afresh for the next one, whose queue delivers what is left).
 */
export const ShutdownReason = t.keyof({ quit: null, reload: null, new: null, resume: null, fork: null });
export type ShutdownReason = t.TypeOf<typeof ShutdownReason>;

export const ShutdownRequested = t.intersection([
  t.type({ type: t.literal('session.shutdown'), ...at, reason: ShutdownReason }),
  t.partial({ targetSessionFile: NonEmptyString }),
]);
export const ShutdownFinished = t.type({ type: t.literal('shutdown.finished'), ...at });

export const SessionEvent = t.union([
  SessionStarted,
  AutomationChanged,
  SessionRenamed,
  ModeSet,
  OptOutRequested,
  RecallRequested,
  RecallSucceeded,
  RecallFailed,
  RecallTimedOut,
  RecallAborted,
  RunEnded,
  RetainQueued,
  RetainNothing,
  RetainFailed,
  ShutdownRequested,
  ShutdownFinished,
]);
export type SessionEvent = t.TypeOf<typeof SessionEvent>;

/** One constructor per event, in wire shape: effects build events only through these. */
export const sessionEvents = {
  started: eventOf<typeof SessionStarted>('session.started'),
  automationChanged: eventOf<typeof AutomationChanged>('automation.changed'),
  renamed: eventOf<typeof SessionRenamed>('session.renamed'),
  modeSet: eventOf<typeof ModeSet>('mode.set'),
  optOutRequested: eventOf<typeof OptOutRequested>('optOut.requested'),
  recallRequested: eventOf<typeof RecallRequested>('recall.requested'),
  recallSucceeded: eventOf<typeof RecallSucceeded>('recall.succeeded'),
  recallFailed: eventOf<typeof RecallFailed>('recall.failed'),
  recallTimedOut: eventOf<typeof RecallTimedOut>('recall.timedOut'),
  recallAborted: eventOf<typeof RecallAborted>('recall.aborted'),
  runEnded: eventOf<typeof RunEnded>('run.ended'),
  retainQueued: eventOf<typeof RetainQueued>('retain.queued'),
  retainNothing: eventOf<typeof RetainNothing>('retain.nothing'),
  retainFailed: eventOf<typeof RetainFailed>('retain.failed'),
  shutdownRequested: eventOf<typeof ShutdownRequested>('session.shutdown'),
  shutdownFinished: eventOf<typeof ShutdownFinished>('shutdown.finished'),
} as const;
/** An event as effects build it (before the gate decodes it). */
export type SessionEventInput = t.OutputOf<typeof SessionEvent>;
