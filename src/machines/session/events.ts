/**
 * Session events: the host's lifecycle hooks, the user's commands and effect outcomes, as the
 * session gate sees them. Each codec is the single source of its event's type.
 */
import * as t from 'io-ts';
import { EpochMs, NonEmptyString, NonNegativeInt } from '../../codecs/codecs.js';
import { defineGateEvents, fields } from '../shared/gateEvents.js';

export const SessionMode = t.keyof({ normal: null, 'read-only': null, ignored: null });
export type SessionMode = t.TypeOf<typeof SessionMode>;

export const StartReason = t.keyof({ startup: null, reload: null, new: null, resume: null, fork: null });
export type StartReason = t.TypeOf<typeof StartReason>;

/** Which automatic behaviours config and setup allow right now. */
export const Automation = t.intersection([
  t.type({ recall: t.boolean, retain: t.boolean }),
  // The project is not set up yet (and the person did not decline it): a finished run is held
  // behind the retain cursor, so setup delivers it instead of it being marked and lost.
  // Memory is off in this project (`enabled: false`): a finished run is marked not kept, so an
  // import later does not bring back what the person took with memory off.
  t.partial({ awaitingSetup: t.boolean, off: t.boolean }),
]);
export type Automation = t.TypeOf<typeof Automation>;

/** Why a recalled memory was or was not injected: its score and the server stage that found it. */
export const RecalledResult = t.type({
  bankId: t.string,
  id: t.string,
  score: t.union([t.number, t.null]),
  stage: t.union([t.string, t.null]),
  passedFloor: t.boolean,
});
export type RecalledResult = t.TypeOf<typeof RecalledResult>;

/**
 * Why the host ends the session. `quit` ends the process (pi 0.77+ sends it on SIGTERM and
 * SIGHUP too): the last chance to deliver. The others replace the session in a process that
 * goes on (pi loads the extension afresh for the next one, whose queue delivers what is left).
 */
export const ShutdownReason = t.keyof({ quit: null, reload: null, new: null, resume: null, fork: null });
export type ShutdownReason = t.TypeOf<typeof ShutdownReason>;

const events = defineGateEvents(
  'session',
  {
    started: fields({ sessionId: NonEmptyString, reason: StartReason, automation: Automation }, { sessionFile: NonEmptyString, mode: SessionMode, name: NonEmptyString }),
    'automation.changed': fields({ automation: Automation }, { reason: t.string }),
    /** The host renamed the session (pi 0.80.3+ `session_info_changed`); no name: it was cleared. */
    renamed: fields({}, { name: NonEmptyString }),
    'mode.set': fields({ mode: SessionMode }),
    'optOut.requested': fields(),
    /** A model call is about to happen: look memory up, until `deadline` (epoch ms) at the latest. */
    'recall.requested': fields({ requestId: NonEmptyString, deadline: EpochMs }),
    // `floor` and `results` are telemetry for the trace only; the machine decides nothing from them.
    'recall.succeeded': fields({ requestId: NonEmptyString, items: NonNegativeInt, cached: t.boolean, failedBanks: NonNegativeInt }, { floor: t.number, results: t.array(RecalledResult) }),
    'recall.failed': fields({ requestId: NonEmptyString, reason: t.string }),
    'recall.timedOut': fields({ requestId: NonEmptyString }),
    'recall.aborted': fields({ requestId: NonEmptyString }),
    /** The host finished an agent run (pi `agent_end`): its messages are ready to retain. */
    'run.ended': fields({ runId: NonEmptyString }),
    'retain.queued': fields({ runId: NonEmptyString, messages: NonNegativeInt, depth: NonNegativeInt }),
    'retain.nothing': fields({ runId: NonEmptyString }),
    'retain.failed': fields({ runId: NonEmptyString, reason: t.string }),
    shutdown: fields({ reason: ShutdownReason }, { targetSessionFile: NonEmptyString }),
    'shutdown.finished': fields(),
  },
  // Session journals are trace-grade, but `viz --journal` replays ones written before the prefix.
  { readsUnprefixed: true },
);

export const SessionEvent = events.codec;
export type SessionEvent = t.TypeOf<typeof SessionEvent>;
/** Every session event type. */
export const sessionEventTypes = events.types;

/** One constructor per event, in wire shape: effects build events only through these. */
export const sessionEvents = events.make;
/** An event as effects build it (before the gate decodes it). */
export type SessionEventInput = t.OutputOf<typeof SessionEvent>;
