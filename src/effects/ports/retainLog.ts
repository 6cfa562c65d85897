/**
 * The session's write-ahead hand-off of a run to the retain queue, and its retain cursor;
 * `src/adapters/queue/handoffLog.ts` implements it on disk.
 */
import type { RetainItem } from './memoryServer.js';

export interface HandoffJob {
  readonly bankId: string;
  readonly documentId: string;
  readonly updateMode: 'append';
  readonly item: RetainItem;
  readonly async?: boolean;
}

export interface PendingHandoff {
  readonly key: string;
  readonly sessionId: string;
  readonly jobs: readonly HandoffJob[];
}

export interface RetainLog {
  /** Fingerprints already handed off for `sessionId`. */
  seen(sessionId: string): ReadonlySet<string>;
  /** Durable (fsync'd) before it returns; advances the cursor in memory and on disk. */
  handOffSync(entry: PendingHandoff & { readonly fingerprints: readonly string[] }, now: number): void;
  /** Advances the cursor without a job (next-opt-out, read-only): those messages are never retained. */
  markSeenSync(sessionId: string, fingerprints: readonly string[], now: number): void;
  /** The queue has the jobs (its enqueue resolved). */
  markDone(key: string): void;
  /** Hand-offs the queue never confirmed: re-enqueue them on start. */
  pending(): readonly PendingHandoff[];
  /** Lines that could not be read back (a torn last line), kept for diagnostics. */
  readonly damaged: number;
  readonly handoffPath: string;
  readonly cursorPath: string;
}
