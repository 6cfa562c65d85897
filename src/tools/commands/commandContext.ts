/** What the slash commands need beyond the tools' context: control over the host session. */
import type { JsonValue } from '../../codecs/codecs.js';
import type { ToolContext } from '../context.js';
import type { DeadLetterQueue } from './deadLetters.js';

export type SessionMode = 'normal' | 'read-only' | 'ignored';

/** Session actions only the host's session gate can take; the commands ask, never reach in. */
export interface SessionControl {
  /** Skips automatic retain for the next agent run in this session. */
  skipNextRetain(): void | Promise<void>;
  setMode?(mode: SessionMode): void | Promise<void>;
}

/** The host's session import, when one is wired (dry run first, then apply). */
export interface SessionImporter {
  importSessions(o: { readonly dryRun: boolean }): Promise<{ readonly text: string; readonly details: JsonValue }>;
}

export interface CommandContext {
  readonly tools: ToolContext;
  readonly control?: SessionControl;
  readonly importer?: SessionImporter;
  /** The retain queue's dead letters, when the host has the queue open. */
  readonly deadLetters?: DeadLetterQueue;
  /**
   * The command that starts the embedded server where the person is (in pi: the installed
   * extension's `serve.mjs`, since `agent-memory` is not on its PATH); default `agent-memory serve`.
   */
  readonly serverCommand?: string;
  /** The commands that list dead letters and deliver the queue where the person is (default pi's `/memory` actions; a shell: the CLI's own lines). */
  readonly queueCommands?: QueueCommands;
}

/**
 * The queue's commands as the host runs them: pi's `/memory` actions, or the CLI's own command
 * lines (`src/hosts/cli/selfCommand.ts`: a program name may be on no PATH). Each is printed
 * whole, so a person pastes it.
 */
export interface QueueCommands {
  readonly deadLetters: string;
  requeue(id: string): string;
  drop(id: string): string;
  readonly flush: string;
}

export const piQueueCommands: QueueCommands = {
  deadLetters: '/memory dead-letters',
  requeue: (id) => `/memory dead-letters requeue ${id}`,
  drop: (id) => `/memory dead-letters drop ${id}`,
  flush: '/memory flush',
};

/**
 * What the queue waits on the person for, one line each with the command that does it at the
 * end (a command line is pasted whole): dead letters, a pause.
 */
export const queueNextSteps = (
  queue: { readonly deadLetters: number; readonly state: string; readonly pausedReason?: string },
  commands: QueueCommands = piQueueCommands,
): string[] => [
  ...(queue.deadLetters > 0 ? [`${queue.deadLetters} dead letter(s), refused by the server for good; each with its reason and the commands that requeue or drop it: ${commands.deadLetters}`] : []),
  ...(queue.state === 'paused' ? [`paused${queue.pausedReason === undefined ? '' : ` (${queue.pausedReason})`}; its turns are kept; fix the cause, then deliver them: ${commands.flush}`] : []),
];

/** What a command hands the host: text to show, a notification level, and structured details. */
export interface CommandReport {
  readonly level: 'info' | 'warning' | 'error';
  readonly text: string;
  readonly details: JsonValue;
}
