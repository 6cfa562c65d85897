/**
 * The retain path of the session. pi does not await `agent_end` and may die right after it
 * (SIGTERM, Ctrl+C in print mode), so everything that makes a run durable happens before
 * `retainTurn` returns: the gate decides synchronously (its journal appends synchronously),
 * and its `retainRun` action puts the run's jobs in the queue's journal with one fsync'd
 * write (`enqueueSync`), then moves the retain cursor past the run's messages. Outcomes are
 * reported back to the gate afterwards, as events.
 */
import * as E from 'fp-ts/lib/Either.js';
import { redact } from '../../config/redact.js';
import { retainAllowed, type SessionContext } from '../../machines/session/context.js';
import { sessionEvents } from '../../machines/session/events.js';
import type { ClockPort } from '../ports/clock.js';
import type { IdsPort } from '../ports/ids.js';
import type { CursorOutcome, RetainCursor } from '../ports/retainCursor.js';
import type { SessionQueue } from '../ports/sessionQueue.js';
import type { HostMessage } from './messages.js';
import { notKeptReasonOf, type NotKept } from './notKept.js';
import type { InFlight } from './inFlight.js';
import { buildRetainJobs, fingerprint, queueJobsOfRun, type RetainJobDraft } from './retainProjection.js';
import type { Notify, RetainTurn, RetainTurnOptions, RetainTurnResult, SessionGate, SessionSettings } from './types.js';

export interface RetainPathDeps {
  readonly clock: ClockPort;
  readonly ids: IdsPort;
  readonly cursor: RetainCursor;
  readonly queue: SessionQueue | undefined;
  readonly settings: () => SessionSettings;
  readonly notify: Notify;
  readonly gate: () => SessionGate;
  readonly inFlight: InFlight;
  /** Host port: records in the host's session that a skipped run is not kept (pi: `appendEntry`). */
  readonly markNotKept?: (mark: NotKept) => void;
  /** Told when retain starts failing (the reason) and when it works again (undefined). */
  readonly onRetainFailure?: (reason: string | undefined) => void;
}

export interface RetainPath {
  retainTurn(messages: readonly HostMessage[], o?: RetainTurnOptions): RetainTurn;
  /** The gate's action: retain the run `retainTurn` is ending (runs inside its dispatch). */
  retainRun(runId: string): void;
  /** The gate's action: the run is not retained; its messages are never offered again. */
  skipRun(runId: string, reason: string): void;
  /** The gate's action: setup is not finished; the run stays behind the cursor for it. */
  holdRun(runId: string): void;
}

/** The run `retainTurn` is ending, while its `session.run.ended` dispatch runs the gate's action. */
interface EndingRun {
  readonly runId: string;
  readonly sessionId: string;
  readonly delta: readonly HostMessage[];
  readonly fingerprints: readonly string[];
  readonly at: number;
  readonly context: SessionContext;
  readonly runStart: string | undefined;
  /** What the action decided; read once the dispatch returns. */
  turn?: RetainTurn;
}

const done = (result: RetainTurnResult): Promise<RetainTurnResult> => Promise.resolve(result);

export const createRetainPath = (deps: RetainPathDeps): RetainPath => {
  const { clock, ids, cursor, queue, settings, notify, inFlight } = deps;
  let runCounter = 0;
  let ending: EndingRun | undefined;
  const queueDepth = (): number => queue?.status().depth ?? 0;
  const runKey = (sessionId: string, fingerprints: readonly string[]): string => `${sessionId}:${ids.digest(fingerprints.join(',')).slice(0, 16)}`;
  let failing: string | undefined;
  const setFailing = (reason: string | undefined): void => {
    if (reason === failing) return;
    failing = reason;
    deps.onRetainFailure?.(reason);
  };

  /** A cursor that cannot be written only costs a re-offer: the in-memory cursor has advanced. */
  const advance = (sessionId: string, fingerprints: readonly string[], at: number, outcome: CursorOutcome): void => {
    try {
      cursor.advance(sessionId, fingerprints, at, outcome);
    } catch {
      // The file catches up on the next write.
    }
  };

  /** The run's messages not queued or skipped before (the retain cursor). */
  const deltaOf = (sessionId: string, messages: readonly HostMessage[]): { delta: HostMessage[]; fingerprints: string[] } => {
    const seen = cursor.seen(sessionId);
    const delta = messages.filter((m) => !seen.has(fingerprint(m, ids.digest)));
    return { delta, fingerprints: delta.map((m) => fingerprint(m, ids.digest)) };
  };

  const jobsOf = (run: Pick<EndingRun, 'sessionId' | 'delta' | 'at' | 'context'>): { jobs: readonly RetainJobDraft[]; projected: number } => {
    const { config, scope, cwd } = settings();
    const { sessionId, context } = run;
    return buildRetainJobs({
      messages: run.delta,
      scope,
      config,
      session: { sessionId, sessionFile: context.sessionFile ?? undefined, cwd, name: context.sessionName ?? undefined },
      now: run.at,
      digest: ids.digest,
    });
  };

  /**
   * Puts the jobs in the queue's journal (fsync'd when it returns); undefined when they are
   * there, else why not (the caller then leaves the cursor, so the next run carries them again).
   */
  const enqueue = (key: string, jobs: readonly RetainJobDraft[]): string | undefined => {
    if (queue === undefined) return 'the retain queue is not open (see /memory:doctor); the next turn carries these messages again';
    if (cursor.refusal !== undefined) return `${cursor.refusal}; nothing is retained until it can (see /memory:doctor)`;
    try {
      queue.enqueueSync(queueJobsOfRun(key, jobs));
      return undefined;
    } catch (error) {
      return redact(error instanceof Error ? error.message : String(error));
    }
  };

  /** Reports an outcome to the gate after the dispatch that decided it has returned. */
  const report = (event: Parameters<SessionGate['dispatch']>[0], result: RetainTurnResult): Promise<RetainTurnResult> =>
    inFlight.track(
      Promise.resolve()
        .then(() => deps.gate().dispatch(event))
        .then(
          () => result,
          () => result,
        ),
    );

  const retainRun = (runId: string): void => {
    const run = ending;
    if (run === undefined || run.runId !== runId) return;
    const { sessionId, fingerprints, at } = run;
    const built = jobsOf(run);
    if (built.jobs.length === 0) {
      advance(sessionId, fingerprints, at, 'passed');
      run.turn = { durable: false, settled: report(sessionEvents.retainNothing({ at, runId }), { outcome: 'nothing', messages: 0 }) };
      return;
    }
    const failed = enqueue(runKey(sessionId, fingerprints), built.jobs);
    if (failed !== undefined) {
      setFailing(failed);
      notify('error', `Memory could not save this turn (${failed}); it was not retained. The next turn carries it again once this is fixed.`);
      run.turn = { durable: false, settled: report(sessionEvents.retainFailed({ at, runId, reason: failed }), { outcome: 'failed', messages: built.projected, reason: failed }) };
      return;
    }
    advance(sessionId, fingerprints, at, 'queued');
    setFailing(undefined);
    const depth = queueDepth();
    if (settings().config.notifyRetain) {
      notify('info', `Memory retained ${built.projected} new message(s) to ${built.jobs.map((j) => j.bankId).join(', ')}${depth > 0 ? `; ${depth} queued` : ''}`);
    }
    run.turn = { durable: true, settled: report(sessionEvents.retainQueued({ at, runId, messages: built.projected, depth }), { outcome: 'queued', messages: built.projected }) };
  };

  const skipRun = (runId: string, reason: string): void => {
    const run = ending;
    if (run === undefined || run.runId !== runId) return;
    // Skipped messages are never retained later.
    advance(run.sessionId, run.fingerprints, run.at, 'passed');
    const marked = notKeptReasonOf(reason);
    if (marked !== undefined && run.delta.length > 0) {
      try {
        deps.markNotKept?.({ reason: marked, ...(run.runStart === undefined ? {} : { fromEntryId: run.runStart }) });
      } catch (error) {
        notify('warning', `Memory could not mark this run as not kept in the session file (${redact(error instanceof Error ? error.message : String(error))}); an import of this session would bring it back.`);
      }
    }
    run.turn = { durable: false, settled: done({ outcome: reason === 'next-opt-out' ? 'optedOut' : 'skipped', messages: 0, reason }) };
  };

  let toldHeld = false;
  const holdRun = (runId: string): void => {
    const run = ending;
    if (run === undefined || run.runId !== runId) return;
    // The cursor is left where it is: the next run, or finishing setup, carries these messages.
    if (!toldHeld && run.delta.length > 0) {
      toldHeld = true;
      notify(
        'warning',
        'Memory is not set up in this project yet, so this conversation is held, not saved. Run /memory setup to save it; if this session ends first, it is not kept.',
      );
    }
    run.turn = { durable: false, settled: done({ outcome: 'held', messages: run.delta.length, reason: 'memory is not set up in this project' }) };
  };

  /**
   * A run that ends after shutdown began (pi may deliver a queued agent_end after
   * session_shutdown): its jobs go to the shared journal all the same, for the next process.
   */
  const lateRun = (context: SessionContext, sessionId: string, messages: readonly HostMessage[], at: number): RetainTurn => {
    if (!retainAllowed(context) || context.nextOptOut) {
      return { durable: false, settled: done({ outcome: 'skipped', messages: 0, reason: 'the session was shutting down' }) };
    }
    const { delta, fingerprints } = deltaOf(sessionId, messages);
    const built = jobsOf({ sessionId, delta, at, context });
    if (built.jobs.length === 0) return { durable: false, settled: done({ outcome: 'nothing', messages: 0 }) };
    const failed = enqueue(runKey(sessionId, fingerprints), built.jobs);
    if (failed !== undefined) {
      setFailing(failed);
      return { durable: false, settled: done({ outcome: 'failed', messages: built.projected, reason: failed }) };
    }
    advance(sessionId, fingerprints, at, 'queued');
    return { durable: true, settled: done({ outcome: 'deferred', messages: built.projected }) };
  };

  const retainTurn = (messages: readonly HostMessage[], o: RetainTurnOptions = {}): RetainTurn => {
    const gate = deps.gate();
    const snapshot = gate.getSnapshot();
    const sessionId = snapshot.context.sessionId;
    if (sessionId === null) return { durable: false, settled: done({ outcome: 'notStarted', messages: 0, reason: 'no session is active' }) };
    const runId = o.runId ?? `run-${++runCounter}`;
    const at = clock.now();
    if (!snapshot.matches('active')) return lateRun(snapshot.context, sessionId, messages, at);
    const run: EndingRun = { runId, sessionId, ...deltaOf(sessionId, messages), at, context: snapshot.context, runStart: o.runStart };
    if (o.handOver === true && run.delta.length === 0) return { durable: false, settled: done({ outcome: 'nothing', messages: 0 }) };
    ending = run;
    let refused: string | undefined;
    try {
      // The gate decides now, and its action (retainRun or skipRun) acts before this returns.
      const result = gate.dispatchSync(sessionEvents.runEnded({ at, runId }));
      if (E.isLeft(result)) refused = result.left.message;
    } catch (error) {
      refused = redact(error instanceof Error ? error.message : String(error));
    } finally {
      ending = undefined;
    }
    // A gate that refused the event (stopped) decided nothing: the messages stay behind the cursor.
    return run.turn ?? { durable: false, settled: done({ outcome: 'failed', messages: 0, reason: refused ?? 'the session gate did not decide' }) };
  };

  return { retainTurn, retainRun, skipRun, holdRun };
};
