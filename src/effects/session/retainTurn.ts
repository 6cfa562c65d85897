/**
 * The retain path of the session: after a run, hand its delta to the write-ahead log
 * synchronously (fsync'd) before returning, so a host that never awaits (pi's `agent_end`)
 * and dies right after still has the job on disk; then the gate decides and the queue's
 * async enqueue follows (`retainRun`), or the run is skipped (`skipRun`).
 */
import * as E from 'fp-ts/lib/Either.js';
import { transition } from 'xstate';
import { redact } from '../../config/redact.js';
import { retainAllowed, type SessionContext } from '../../machines/session/context.js';
import { sessionEvents, type SessionEvent } from '../../machines/session/events.js';
import { sessionMachine } from '../../machines/session/machine.js';
import type { ClockPort } from '../ports/clock.js';
import type { IdsPort } from '../ports/ids.js';
import type { RetainLog } from '../ports/retainLog.js';
import type { SessionQueue } from '../ports/sessionQueue.js';
import type { HostMessage } from './messages.js';
import type { InFlight } from './inFlight.js';
import { buildRetainJobs, fingerprint, type RetainJobDraft } from './retainProjection.js';
import type { Notify, RetainTurn, RetainTurnResult, SessionGate, SessionSettings } from './types.js';

export interface RetainPathDeps {
  readonly clock: ClockPort;
  readonly ids: IdsPort;
  readonly retainLog: RetainLog;
  readonly queue: SessionQueue | undefined;
  readonly settings: () => SessionSettings;
  readonly notify: Notify;
  readonly gate: () => SessionGate;
  readonly inFlight: InFlight;
  /** Told when retain starts failing (the reason) and when it works again (undefined). */
  readonly onRetainFailure?: (reason: string | undefined) => void;
}

export interface RetainPath {
  retainTurn(messages: readonly HostMessage[], o?: { readonly runId?: string }): RetainTurn;
  /** The gate decided to retain the run: enqueue what `retainTurn` stashed. */
  retainRun(runId: string): Promise<void>;
  /** The gate decided not to retain the run. */
  skipRun(runId: string, reason: string): void;
}

interface StashedRun {
  /** The run could not be made durable: why (its messages stay behind the cursor). */
  readonly failed?: string;
  readonly key?: string;
  readonly jobs: readonly RetainJobDraft[];
  readonly messages: number;
  readonly resolve: (r: RetainTurnResult) => void;
}

export const createRetainPath = (deps: RetainPathDeps): RetainPath => {
  const { clock, ids, retainLog, queue, settings, notify, inFlight } = deps;
  const stash = new Map<string, StashedRun>();
  let runCounter = 0;
  const send = (event: ReturnType<(typeof sessionEvents)[keyof typeof sessionEvents]>): Promise<unknown> => deps.gate().dispatch(event);
  const queueDepth = (): number => queue?.status().depth ?? 0;
  const handOffKey = (sessionId: string, fingerprints: readonly string[]): string => `${sessionId}:${ids.digest(fingerprints.join(',')).slice(0, 16)}`;
  let failing: string | undefined;
  const setFailing = (reason: string | undefined): void => {
    if (reason === failing) return;
    failing = reason;
    deps.onRetainFailure?.(reason);
  };
  /**
   * Writes the hand-off line; undefined when it is durable, else why not. The cursor advances
   * only with a durable line, so a failed run's messages are carried by the next run.
   */
  const handOff = (entry: Parameters<RetainLog['handOffSync']>[0], at: number): string | undefined => {
    try {
      retainLog.handOffSync(entry, at);
      return undefined;
    } catch (error) {
      const reason = redact(error instanceof Error ? error.message : String(error));
      setFailing(reason);
      notify('error', `Memory could not save this turn (${reason}); it was not retained. The next turn carries it again once the disk is writable.`);
      return reason;
    }
  };
  /** Skipped messages are never retained later; a cursor that cannot be written only costs a re-offer. */
  const markSeen = (sessionId: string, fingerprints: readonly string[], at: number): void => {
    try {
      retainLog.markSeenSync(sessionId, fingerprints, at);
    } catch {
      // The in-memory cursor still advanced; the file catches up on the next write.
    }
  };
  /** The queue's jobs for a hand-off: their identity is the hand-off's key and index, so a re-offer has the same keys. */
  const queueJobs = (key: string, jobs: readonly RetainJobDraft[]) =>
    jobs.map(({ bankId, documentId, updateMode, item }, index) => ({ bankId, documentId, updateMode, item, identity: `${key}#${index}` }));
  /** Hand-offs a failed enqueue left behind in this process: offered again after the next success. */
  let leftBehind = false;
  const requeueLeftBehind = async (skip: string): Promise<void> => {
    if (!leftBehind || queue === undefined) return;
    leftBehind = false;
    for (const pending of retainLog.pending()) {
      if (pending.key === skip) continue;
      try {
        await queue.enqueue(queueJobs(pending.key, pending.jobs));
        retainLog.markDone(pending.key);
      } catch {
        leftBehind = true;
        return;
      }
    }
  };
  /** The run's messages not handed off before (the retain cursor). */
  const deltaOf = (sessionId: string, messages: readonly HostMessage[]): { delta: HostMessage[]; fingerprints: string[] } => {
    const seen = retainLog.seen(sessionId);
    const delta = messages.filter((m) => !seen.has(fingerprint(m, ids.digest)));
    return { delta, fingerprints: delta.map((m) => fingerprint(m, ids.digest)) };
  };

  const retainRun = async (runId: string): Promise<void> => {
    const run = stash.get(runId);
    if (run === undefined) return;
    stash.delete(runId);
    if (run.failed !== undefined) {
      await send(sessionEvents.retainFailed({ at: clock.now(), runId, reason: run.failed }));
      run.resolve({ outcome: 'failed', messages: run.messages, reason: run.failed });
      return;
    }
    if (run.jobs.length === 0 || run.key === undefined) {
      await send(sessionEvents.retainNothing({ at: clock.now(), runId }));
      run.resolve({ outcome: 'nothing', messages: 0 });
      return;
    }
    if (queue === undefined) {
      const reason = 'the retain queue is not open; the run stays in the hand-off log and is queued on the next start';
      setFailing(reason);
      await send(sessionEvents.retainFailed({ at: clock.now(), runId, reason }));
      run.resolve({ outcome: 'failed', messages: run.messages, reason });
      return;
    }
    try {
      await queue.enqueue(queueJobs(run.key, run.jobs));
      retainLog.markDone(run.key);
      setFailing(undefined);
      await requeueLeftBehind(run.key);
      await send(sessionEvents.retainQueued({ at: clock.now(), runId, messages: run.messages, depth: queueDepth() }));
      if (settings().config.notifyRetain) {
        const depth = queueDepth();
        notify('info', `Memory retained ${run.messages} new message(s) to ${run.jobs.map((j) => j.bankId).join(', ')}${depth > 0 ? `; ${depth} queued` : ''}`);
      }
      run.resolve({ outcome: 'queued', messages: run.messages });
    } catch (error) {
      const reason = redact(error instanceof Error ? error.message : String(error));
      leftBehind = true;
      setFailing(reason);
      await send(sessionEvents.retainFailed({ at: clock.now(), runId, reason }));
      notify('warning', `Memory retain queue failed: ${reason}. The run is kept on disk and queued again after the next turn or on the next start.`);
      run.resolve({ outcome: 'failed', messages: run.messages, reason });
    }
  };

  const skipRun = (runId: string, reason: string): void => {
    const run = stash.get(runId);
    if (run === undefined) return;
    stash.delete(runId);
    run.resolve({ outcome: reason === 'next-opt-out' ? 'optedOut' : 'skipped', messages: 0, reason });
  };

  /**
   * A run that ends after shutdown began (pi may deliver a queued agent_end after
   * session_shutdown): written to the hand-off log only, queued by the next start.
   */
  const lateHandOff = (context: SessionContext, sessionId: string, messages: readonly HostMessage[], at: number): RetainTurn => {
    if (!retainAllowed(context) || context.nextOptOut) {
      return { durable: false, settled: Promise.resolve({ outcome: 'skipped', messages: 0, reason: 'the session was shutting down' }) };
    }
    const { delta, fingerprints } = deltaOf(sessionId, messages);
    const { config, scope, cwd } = settings();
    const built = buildRetainJobs({ messages: delta, scope, config, session: { sessionId, sessionFile: context.sessionFile ?? undefined, cwd, name: context.sessionName ?? undefined }, now: at, digest: ids.digest });
    if (built.jobs.length === 0) return { durable: false, settled: Promise.resolve({ outcome: 'nothing', messages: 0 }) };
    const failed = handOff({ key: handOffKey(sessionId, fingerprints), sessionId, fingerprints, jobs: built.jobs }, at);
    if (failed !== undefined) return { durable: false, settled: Promise.resolve({ outcome: 'failed', messages: built.projected, reason: failed }) };
    return { durable: true, settled: Promise.resolve({ outcome: 'deferred', messages: built.projected }) };
  };

  const retainTurn = (messages: readonly HostMessage[], o: { readonly runId?: string } = {}): RetainTurn => {
    const gate = deps.gate();
    const snapshot = gate.getSnapshot();
    const sessionId = snapshot.context.sessionId;
    if (sessionId === null) {
      return { durable: false, settled: Promise.resolve({ outcome: 'notStarted', messages: 0, reason: 'no session is active' }) };
    }
    const runId = o.runId ?? `run-${++runCounter}`;
    const at = clock.now();
    if (!snapshot.matches('active')) return lateHandOff(snapshot.context, sessionId, messages, at);
    const event = sessionEvents.runEnded({ at, runId });
    const { delta, fingerprints } = deltaOf(sessionId, messages);
    // The gate's decision, computed purely now so the hand-off happens before this returns.
    // (The one cast: a built event is in wire shape; it goes with this prediction.)
    const [, actions] = transition(sessionMachine, snapshot, event as SessionEvent);
    const decided = actions.map((a) => a.type);
    let resolve!: (r: RetainTurnResult) => void;
    const settled = new Promise<RetainTurnResult>((r) => {
      resolve = r;
    });
    let durable = false;
    if (decided.includes('retainRun')) {
      const { config, scope, cwd } = settings();
      const built = buildRetainJobs({
        messages: delta,
        scope,
        config,
        session: { sessionId, sessionFile: snapshot.context.sessionFile ?? undefined, cwd, name: snapshot.context.sessionName ?? undefined },
        now: at,
        digest: ids.digest,
      });
      if (built.jobs.length > 0) {
        const key = handOffKey(sessionId, fingerprints);
        const failed = handOff({ key, sessionId, fingerprints, jobs: built.jobs }, at);
        durable = failed === undefined;
        stash.set(runId, failed === undefined ? { key, jobs: built.jobs, messages: built.projected, resolve } : { failed, jobs: [], messages: built.projected, resolve });
      } else {
        markSeen(sessionId, fingerprints, at);
        stash.set(runId, { jobs: [], messages: 0, resolve });
      }
    } else {
      // Skipped runs are marked too, so they are never retained later.
      markSeen(sessionId, fingerprints, at);
      stash.set(runId, { jobs: [], messages: 0, resolve });
    }
    void inFlight.track(
      gate.dispatch(event).then((r) => {
        // A gate that refused the event (stopped) leaves the run on disk for the next start.
        if (E.isLeft(r)) {
          stash.delete(runId);
          resolve({ outcome: 'failed', messages: 0, reason: r.left.message });
        }
      }),
    );
    void inFlight.track(settled);
    return { durable, settled };
  };

  return { retainTurn, retainRun, skipRun };
};
