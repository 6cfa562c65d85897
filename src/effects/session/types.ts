/** The session effects' public shapes: what a host passes in and what it gets back. */
import type { MemoryConfig } from '../../config/fields.js';
import type { Scope } from '../../config/scope.js';
import type { SessionEventInput } from '../../machines/session/events.js';
import type { SessionMachine } from '../../machines/session/machine.js';
import type { SessionView } from '../../machines/session/selectors.js';
import type { ClockPort } from '../ports/clock.js';
import type { IdsPort } from '../ports/ids.js';
import type { JournalPort } from '../ports/journal.js';
import type { RetainCursor } from '../ports/retainCursor.js';
import type { SessionQueue } from '../ports/sessionQueue.js';
import type { TracePort } from '../ports/trace.js';
import type { GateRuntime } from '../kernel/startGate.js';
import type { HostMessage } from './messages.js';
import type { Recaller, RecallReport, RecallRunOutcome } from './recall.js';

export type SessionGate = GateRuntime<SessionMachine>;
export type NotifyLevel = 'info' | 'warning' | 'error';
export type Notify = (level: NotifyLevel, text: string) => void;

/** What the session reads of the current config and scope (they may be reloaded). */
export interface SessionSettings {
  readonly config: MemoryConfig;
  readonly scope: Scope;
  readonly cwd: string;
}

export interface SessionEffectsOptions {
  readonly clock: ClockPort;
  readonly ids: IdsPort;
  readonly recaller: Recaller;
  readonly cursor: RetainCursor;
  readonly queue: SessionQueue | undefined;
  readonly settings: () => SessionSettings;
  readonly notify: Notify;
  /** Writes the last-recall sidecar (already redacted); errors are the writer's to swallow. */
  readonly storeLastRecall?: (report: RecallReport & { readonly outcome: string }) => void;
  readonly journal?: JournalPort;
  readonly trace?: TracePort;
  /** Bound of the shutdown flush (default 2000 ms): shutdown never blocks the host for long. */
  readonly shutdownFlushMs?: number;
  /** Told when a turn could not be made durable or queued (the reason), and when retain works again (undefined). */
  readonly onRetainFailure?: (reason: string | undefined) => void;
}

/** An event without its time: the session stamps it with its clock when it is sent. */
type Untimed<E> = E extends unknown ? Omit<E, 'at'> : never;

/** What a host, a command or the runtime tells the session gate: one of its events, untimed. */
export type SessionInput = Untimed<SessionEventInput>;

export type RecallForOutcome = RecallRunOutcome['_tag'] | 'skipped';

export interface RecallForResult {
  /** The messages to send instead, when a block was injected. */
  readonly messages?: HostMessage[];
  readonly outcome: RecallForOutcome;
  readonly items: number;
  readonly reason?: string;
}

export interface RetainTurnResult {
  /** `deferred`: the run ended after the session began shutting down; its jobs are in the queue's journal all the same, delivered by this process's closing flush or by the next process to open the queue. */
  readonly outcome: 'queued' | 'deferred' | 'nothing' | 'skipped' | 'optedOut' | 'failed' | 'notStarted' | 'held';
  readonly messages: number;
  readonly reason?: string;
}

export interface RetainTurnOptions {
  readonly runId?: string;
  /**
   * Not a run of the agent: the host hands over what may still be behind the cursor (after
   * setup completes). With nothing there it ends nothing, so the footer does not report
   * "nothing new" for a turn nobody took.
   */
  readonly handOver?: boolean;
}

export interface RetainTurn {
  /** True when the run's jobs were in the queue's journal (fsync'd) before `retainTurn` returned. */
  readonly durable: boolean;
  /** Resolves once the outcome is reported to the gate. */
  readonly settled: Promise<RetainTurnResult>;
}

export interface SessionEffects {
  readonly gate: SessionGate;
  /**
   * The one way in for an event: stamped, decoded, journaled, sent. A blank session name counts
   * as none; a rename or automation change that changes nothing is not sent. `session.shutdown`
   * resolves once the bounded flush (`quit`) or hand-off it started is done.
   */
  send(input: SessionInput): Promise<void>;
  /** Before a model call: the messages with a recall block injected, when one was. */
  recallFor(messages: readonly HostMessage[], o?: { readonly signal?: AbortSignal | undefined }): Promise<RecallForResult>;
  /** After a run: durable on return (see `RetainTurn`). */
  retainTurn(messages: readonly HostMessage[], o?: RetainTurnOptions): RetainTurn;
  view(): SessionView;
  /** Resolves when every retain in flight has settled. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}
