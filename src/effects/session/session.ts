/**
 * The session gate's effects for any host: recall before a model call, retain after a run,
 * next-opt-out, modes and the shutdown flush. The gate decides; this file acts and reports
 * outcomes back as events.
 *
 * Durability of retain: `retainTurn` hands the run's delta to the write-ahead hand-off log
 * synchronously (fsync'd) before it returns, so a host that never awaits it (pi's
 * `agent_end`) and dies right after still has the job on disk. The queue's async enqueue
 * follows.
 */
import { createHash } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { transition } from 'xstate';
import type { MemoryConfig } from '../../config/fields.js';
import { redact } from '../../config/redact.js';
import type { Scope } from '../../config/scope.js';
import type { Automation, SessionMode, StartReason } from '../../machines/session/events.js';
import { SessionEvent } from '../../machines/session/events.js';
import { retainAllowed, type SessionContext } from '../../machines/session/context.js';
import { sessionMachine, type SessionMachine } from '../../machines/session/machine.js';
import { sessionView, type SessionView } from '../../machines/session/selectors.js';
import type { ClockPort } from '../ports/clock.js';
import type { JournalPort } from '../ports/journal.js';
import type { TracePort } from '../ports/trace.js';
import type { Recaller, RecallReport, RecallRunOutcome } from './recall.js';
import { buildRetainJobs, fingerprint, type RetainJobDraft } from './retainProjection.js';
import { startGate, type GateRuntime } from '../kernel/startGate.js';
import type { HostMessage } from './messages.js';
import type { RetainLog } from '../../adapters/queue/handoffLog.js';

export type SessionGate = GateRuntime<SessionMachine>;
export type NotifyLevel = 'info' | 'warning' | 'error';

/** The slice of the retain queue the session uses (the real one is `openRetainQueue`). */
export interface SessionQueue {
  enqueue(jobs: readonly { bankId: string; documentId: string; updateMode: 'append' | 'replace'; item: RetainJobDraft['item'] }[]): Promise<readonly unknown[]>;
  flush(o?: { readonly deadline?: number }): Promise<unknown>;
  status(): { readonly depth: number; readonly state: string; readonly pausedReason?: string };
}

/** What the session reads of the current config and scope (they may be reloaded). */
export interface SessionSettings {
  readonly config: MemoryConfig;
  readonly scope: Scope;
  readonly cwd: string;
}

export interface SessionEffectsOptions {
  readonly clock: ClockPort;
  readonly recaller: Recaller;
  readonly retainLog: RetainLog;
  readonly queue: SessionQueue | undefined;
  readonly settings: () => SessionSettings;
  readonly notify: (level: NotifyLevel, text: string) => void;
  /** Writes the last-recall sidecar (already redacted); errors are the writer's to swallow. */
  readonly storeLastRecall?: (report: RecallReport & { readonly outcome: string }) => void;
  readonly journal?: JournalPort;
  readonly trace?: TracePort;
  /** Bound of the shutdown flush (default 2000 ms): shutdown never blocks the host for long. */
  readonly shutdownFlushMs?: number;
}

export interface SessionStartInfo {
  readonly sessionId: string;
  readonly sessionFile?: string | undefined;
  readonly reason: StartReason;
  readonly mode?: SessionMode;
  readonly automation: Automation;
}

export type RecallForOutcome = RecallRunOutcome['_tag'] | 'skipped';

export interface RecallForResult {
  /** The messages to send instead, when a block was injected. */
  readonly messages?: HostMessage[];
  readonly outcome: RecallForOutcome;
  readonly items: number;
  readonly reason?: string;
}

export interface RetainTurnResult {
  /** `deferred`: on disk in the hand-off log only (the session was shutting down); queued on the next start. */
  readonly outcome: 'queued' | 'deferred' | 'nothing' | 'skipped' | 'optedOut' | 'failed' | 'notStarted';
  readonly messages: number;
  readonly reason?: string;
}

export interface RetainTurn {
  /** True when the delta was on disk (fsync'd) before `retainTurn` returned. */
  readonly durable: boolean;
  /** Resolves once the queue holds the jobs (or the run was skipped). */
  readonly settled: Promise<RetainTurnResult>;
}

export interface SessionEffects {
  readonly gate: SessionGate;
  start(info: SessionStartInfo): Promise<void>;
  recallFor(messages: readonly HostMessage[], o?: { readonly signal?: AbortSignal | undefined }): Promise<RecallForResult>;
  retainTurn(messages: readonly HostMessage[], o?: { readonly runId?: string }): RetainTurn;
  optOutNext(): Promise<void>;
  setMode(mode: SessionMode): Promise<void>;
  setAutomation(automation: Automation, reason?: string): Promise<void>;
  observeQueue(): void;
  view(): SessionView;
  /** Best-effort, bounded: waits for hand-offs in flight, flushes, then closes the gate's session. */
  shutdown(reason: string): Promise<void>;
  /** Resolves when every retain in flight has settled. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

interface StashedRun {
  readonly key?: string;
  readonly jobs: readonly RetainJobDraft[];
  readonly messages: number;
  readonly resolve: (r: RetainTurnResult) => void;
}

const noop = (): void => undefined;

/** Each result's score, stage and floor verdict, for the trace (the event carries it). */
const telemetry = (report: RecallReport): Record<string, unknown> =>
  report.results === undefined
    ? {}
    : { floor: report.floor, results: report.results.map(({ bankId, id, score, stage, passedFloor }) => ({ bankId, id, score, stage, passedFloor })) };

export const startSessionEffects = async (options: SessionEffectsOptions): Promise<SessionEffects> => {
  const { clock, recaller, retainLog, queue, settings, notify } = options;
  const shutdownFlushMs = options.shutdownFlushMs ?? 2_000;
  const stash = new Map<string, StashedRun>();
  const inFlight = new Set<Promise<unknown>>();
  let runCounter = 0;
  let recallCounter = 0;
  let shutdownWork: Promise<void> | undefined;

  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(noop);
    return p;
  };
  const send = (event: Record<string, unknown> & { type: SessionEvent['type'] }): Promise<unknown> => gate.dispatch(event);

  const queueDepth = (): number => queue?.status().depth ?? 0;

  const enqueueRun = async (runId: string): Promise<void> => {
    const run = stash.get(runId);
    if (run === undefined) return;
    stash.delete(runId);
    if (run.jobs.length === 0 || run.key === undefined) {
      await send({ type: 'retain.nothing', at: clock.now(), runId });
      run.resolve({ outcome: 'nothing', messages: 0 });
      return;
    }
    if (queue === undefined) {
      const reason = 'the retain queue is not open; the run stays in the hand-off log and is queued on the next start';
      await send({ type: 'retain.failed', at: clock.now(), runId, reason });
      run.resolve({ outcome: 'failed', messages: run.messages, reason });
      return;
    }
    try {
      await queue.enqueue(run.jobs.map(({ bankId, documentId, updateMode, item }) => ({ bankId, documentId, updateMode, item })));
      retainLog.markDone(run.key);
      await send({ type: 'retain.queued', at: clock.now(), runId, messages: run.messages, depth: queueDepth() });
      const { config } = settings();
      if (config.notifyRetain) {
        const depth = queueDepth();
        notify('info', `Memory retained ${run.messages} new message(s) to ${run.jobs.map((j) => j.bankId).join(', ')}${depth > 0 ? `; ${depth} queued` : ''}`);
      }
      run.resolve({ outcome: 'queued', messages: run.messages });
    } catch (error) {
      const reason = redact(error instanceof Error ? error.message : String(error));
      await send({ type: 'retain.failed', at: clock.now(), runId, reason });
      notify('warning', `Memory retain queue failed: ${reason}. The run is kept on disk and queued on the next start.`);
      run.resolve({ outcome: 'failed', messages: run.messages, reason });
    }
  };

  const flushOnShutdown = async (): Promise<void> => {
    const deadline = clock.now() + shutdownFlushMs;
    const bounded = <T>(p: Promise<T>): Promise<T | undefined> =>
      Promise.race([p, new Promise<undefined>((resolve) => clock.setTimer(deadline, () => resolve(undefined)))]);
    await bounded(Promise.allSettled([...inFlight]));
    if (queue !== undefined && queueDepth() > 0) await bounded(queue.flush({ deadline }).catch(noop));
    if (queue !== undefined) {
      const status = queue.status();
      await send({ type: 'queue.observed', at: clock.now(), depth: status.depth, state: status.state });
    }
    await send({ type: 'shutdown.finished', at: clock.now() });
  };

  const machine = sessionMachine.provide({
    actions: {
      retainRun: (_, params) => {
        void track(enqueueRun(params.runId));
      },
      skipRun: (_, params) => {
        const run = stash.get(params.runId);
        if (run === undefined) return;
        stash.delete(params.runId);
        run.resolve({ outcome: params.reason === 'next-opt-out' ? 'optedOut' : 'skipped', messages: 0, reason: params.reason });
      },
      notifyOptOutSkipped: () => notify('info', 'Memory skipped retain for this run due to next-opt-out.'),
      // The command that armed it already told the user; the footer shows `skip next`.
      notifyOptOutArmed: () => undefined,
      flushOnShutdown: () => {
        shutdownWork = track(flushOnShutdown());
      },
    },
  });

  const gate: SessionGate = await startGate({
    name: 'session',
    machine,
    events: SessionEvent,
    clock,
    ...(options.journal === undefined ? {} : { journal: options.journal }),
    ...(options.trace === undefined ? {} : { trace: options.trace }),
  });

  const recallFor = async (messages: readonly HostMessage[], o: { readonly signal?: AbortSignal | undefined } = {}): Promise<RecallForResult> => {
    const { config, scope } = settings();
    const requestId = `recall-${++recallCounter}`;
    const now = clock.now();
    const deadline = now + config.recallTimeoutMs;
    const requested = await gate.dispatch({ type: 'recall.requested', at: now, requestId, deadline });
    if (E.isLeft(requested) || requested.right.context.recall?.requestId !== requestId) return { outcome: 'skipped', items: 0 };
    const outcome = await recaller.recall({ messages, scope, config, signal: o.signal, deadline });
    const at = clock.now();
    const outcomeEvent = ((): Record<string, unknown> & { type: SessionEvent['type'] } => {
      switch (outcome._tag) {
        case 'injected':
          return { type: 'recall.succeeded', at, requestId, items: outcome.items, cached: outcome.cached, failedBanks: outcome.failedBanks, ...telemetry(outcome.report) };
        case 'empty':
          return { type: 'recall.succeeded', at, requestId, items: 0, cached: false, failedBanks: outcome.failedBanks, ...telemetry(outcome.report) };
        case 'noQuery':
          return { type: 'recall.succeeded', at, requestId, items: 0, cached: false, failedBanks: 0 };
        case 'failed':
          return { type: 'recall.failed', at, requestId, reason: outcome.reason };
        case 'timedOut':
          return { type: 'recall.timedOut', at, requestId };
        case 'aborted':
          return { type: 'recall.aborted', at, requestId };
      }
    })();
    // Recorded after the model call has its messages (next macrotask, so it is not on the prompt
    // path), still in order behind the request; `idle()` waits for it.
    void track(new Promise<void>((resolve) => setImmediate(resolve)).then(() => send(outcomeEvent)));
    if ('report' in outcome && config.recallStoreLast && !outcome.report.cached) {
      const success = outcome._tag === 'injected' || outcome._tag === 'empty';
      if (success || config.recallStoreFailures) options.storeLastRecall?.({ ...outcome.report, outcome: outcome._tag });
    }
    if (config.notifyRecall && outcome._tag !== 'noQuery' && outcome._tag !== 'aborted' && !(outcome._tag === 'injected' && outcome.cached)) {
      if (outcome._tag === 'injected') notify('info', `Memory recalled ${outcome.items} item(s)${outcome.failedBanks > 0 ? `; ${outcome.failedBanks} bank(s) failed` : ''}`);
      else if (outcome._tag === 'empty') notify('info', 'Memory recalled no matching memory');
      else notify('warning', `Memory recall failed: ${outcome.reason}`);
    }
    switch (outcome._tag) {
      case 'injected':
        return { messages: outcome.messages, outcome: 'injected', items: outcome.items };
      case 'failed':
      case 'timedOut':
        return { outcome: outcome._tag, items: 0, reason: outcome.reason };
      default:
        return { outcome: outcome._tag, items: 0 };
    }
  };

  /**
   * A run that ends after shutdown began (pi may deliver a queued agent_end after
   * session_shutdown): written to the hand-off log only, queued by the next start.
   */
  const lateHandOff = (context: SessionContext, sessionId: string, messages: readonly HostMessage[], at: number): RetainTurn => {
    if (!retainAllowed(context) || context.nextOptOut) {
      return { durable: false, settled: Promise.resolve({ outcome: 'skipped', messages: 0, reason: 'the session was shutting down' }) };
    }
    const seen = retainLog.seen(sessionId);
    const delta = messages.filter((m) => !seen.has(fingerprint(m)));
    const fingerprints = delta.map(fingerprint);
    const { config, scope, cwd } = settings();
    const built = buildRetainJobs({ messages: delta, scope, config, session: { sessionId, sessionFile: context.sessionFile ?? undefined, cwd }, now: at });
    if (built.jobs.length === 0) return { durable: false, settled: Promise.resolve({ outcome: 'nothing', messages: 0 }) };
    const key = `${sessionId}:${createHash('sha256').update(fingerprints.join(',')).digest('hex').slice(0, 16)}`;
    retainLog.handOffSync({ key, sessionId, fingerprints, jobs: built.jobs }, at);
    return { durable: true, settled: Promise.resolve({ outcome: 'deferred', messages: built.projected }) };
  };

  const retainTurn = (messages: readonly HostMessage[], o: { readonly runId?: string } = {}): RetainTurn => {
    const snapshot = gate.getSnapshot();
    const sessionId = snapshot.context.sessionId;
    if (sessionId === null) {
      return { durable: false, settled: Promise.resolve({ outcome: 'notStarted', messages: 0, reason: 'no session is active' }) };
    }
    const runId = o.runId ?? `run-${++runCounter}`;
    const at = clock.now();
    if (!snapshot.matches('active')) return lateHandOff(snapshot.context, sessionId, messages, at);
    const event = { type: 'run.ended' as const, at, runId };
    const seen = retainLog.seen(sessionId);
    const delta = messages.filter((m) => !seen.has(fingerprint(m)));
    const fingerprints = delta.map(fingerprint);
    // The gate's decision, computed purely now so the hand-off happens before this returns.
    const [, actions] = transition(machine, snapshot, event as SessionEvent);
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
        session: { sessionId, sessionFile: snapshot.context.sessionFile ?? undefined, cwd },
        now: at,
      });
      if (built.jobs.length > 0) {
        const key = `${sessionId}:${createHash('sha256').update(fingerprints.join(',')).digest('hex').slice(0, 16)}`;
        retainLog.handOffSync({ key, sessionId, fingerprints, jobs: built.jobs }, at);
        durable = true;
        stash.set(runId, { key, jobs: built.jobs, messages: built.projected, resolve });
      } else {
        retainLog.markSeenSync(sessionId, fingerprints, at);
        stash.set(runId, { jobs: [], messages: 0, resolve });
      }
    } else {
      // Skipped runs are marked too, so they are never retained later.
      retainLog.markSeenSync(sessionId, fingerprints, at);
      stash.set(runId, { jobs: [], messages: 0, resolve });
    }
    void track(
      gate.dispatch(event).then((r) => {
        // A gate that refused the event (stopped) leaves the run on disk for the next start.
        if (E.isLeft(r)) {
          stash.delete(runId);
          resolve({ outcome: 'failed', messages: 0, reason: r.left.message });
        }
      }),
    );
    void track(settled);
    return { durable, settled };
  };

  return {
    gate,
    start: async (info) => {
      await gate.dispatch({
        type: 'session.started',
        at: clock.now(),
        sessionId: info.sessionId,
        reason: info.reason,
        automation: info.automation,
        ...(info.sessionFile === undefined ? {} : { sessionFile: info.sessionFile }),
        ...(info.mode === undefined ? {} : { mode: info.mode }),
      });
    },
    recallFor,
    retainTurn,
    optOutNext: async () => {
      await gate.dispatch({ type: 'optOut.requested', at: clock.now() });
    },
    setMode: async (mode) => {
      await gate.dispatch({ type: 'mode.set', at: clock.now(), mode });
    },
    setAutomation: async (automation, reason) => {
      const current = gate.getSnapshot().context.automation;
      if (current.recall === automation.recall && current.retain === automation.retain) return;
      await gate.dispatch({ type: 'automation.changed', at: clock.now(), automation, ...(reason === undefined ? {} : { reason }) });
    },
    observeQueue: () => {
      if (queue === undefined) return;
      const status = queue.status();
      const current = gate.getSnapshot().context.queue;
      if (current.depth === status.depth && current.state === status.state) return;
      void gate.dispatch({
        type: 'queue.observed',
        at: clock.now(),
        depth: status.depth,
        state: status.state,
        ...(status.pausedReason === undefined ? {} : { reason: redact(status.pausedReason) }),
      });
    },
    view: () => sessionView(gate.getSnapshot()),
    shutdown: async (reason) => {
      await gate.dispatch({ type: 'session.shutdown', at: clock.now(), reason });
      await shutdownWork;
    },
    idle: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    stop: () => gate.stop(),
  };
};
