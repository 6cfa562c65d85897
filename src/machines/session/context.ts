/** The session gate's context: everything the footer, status and the effects read. */
import type { Automation, SessionMode, ShutdownReason } from './events.js';

export type RecallOutcome = 'recalled' | 'empty' | 'failed' | 'timedOut' | 'aborted' | 'skipped';
export type RetainOutcome = 'queued' | 'nothing' | 'failed' | 'optedOut' | 'skipped' | 'held';

export interface SessionContext {
  readonly sessionId: string | null;
  readonly sessionFile: string | null;
  /** The name the user gave the session (pi `/name`), for the retained document's context. */
  readonly sessionName: string | null;
  /** How many `session.started` events came in (pi's RPC mode sends two per session). */
  readonly starts: number;
  readonly mode: SessionMode;
  readonly automation: Automation;
  /** `/memory:next-opt-out`: skip automatic retain for exactly the next completed run. */
  readonly nextOptOut: boolean;
  /** The recall in flight: its id and absolute deadline (epoch ms), so a restore keeps it. */
  readonly recall: { readonly requestId: string; readonly deadline: number; readonly startedAt: number } | null;
  readonly lastRecall: { readonly at: number; readonly outcome: RecallOutcome; readonly items: number; readonly detail?: string } | null;
  /** The run being retained, if any. */
  readonly retainingRun: string | null;
  readonly lastRetain: { readonly at: number; readonly outcome: RetainOutcome; readonly messages: number; readonly detail?: string } | null;
  readonly shutdownReason: ShutdownReason | null;
}

export const initialSessionContext: SessionContext = {
  sessionId: null,
  sessionFile: null,
  sessionName: null,
  starts: 0,
  mode: 'normal',
  automation: { recall: false, retain: false },
  nextOptOut: false,
  recall: null,
  lastRecall: null,
  retainingRun: null,
  lastRetain: null,
  shutdownReason: null,
};

/** Recall runs when config allows it and the session is not ignored. */
export const recallAllowed = (c: SessionContext): boolean => c.automation.recall && c.mode !== 'ignored';
/** Automatic retain runs only in normal mode (read-only and ignored sessions never write). */
export const retainAllowed = (c: SessionContext): boolean => c.automation.retain && c.mode === 'normal';
/** The run would be retained but for setup: it waits behind the cursor for setup to finish. */
export const retainHeld = (c: SessionContext): boolean => !c.automation.retain && c.automation.awaitingSetup === true && c.mode === 'normal';
/** A shutdown that replaces the session in a process that goes on (reload, new, resume, fork). */
export const replacesSession = (reason: ShutdownReason | null): boolean => reason !== null && reason !== 'quit';
