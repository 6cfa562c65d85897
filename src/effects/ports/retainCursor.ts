/**
 * The session's retain cursor: which messages of each session were already queued (or
 * skipped), by fingerprint, so a message seen again (the same branch, a resumed session) is
 * never retained twice, while an edit or a new branch (a new fingerprint) is.
 * `src/adapters/queue/retainCursor.ts` keeps it on disk; `memoryRetainCursor.ts` is its twin.
 */
/** What became of the messages a cursor moves past. */
export type CursorOutcome = 'queued' | 'passed';

export interface RetainCursor {
  /** Fingerprints already queued or skipped for `sessionId`. */
  seen(sessionId: string): ReadonlySet<string>;
  /**
   * The part of `seen` whose runs were queued for the server (not skipped): what an import of
   * the session leaves out, since live retain already stored it.
   */
  retained(sessionId: string): ReadonlySet<string>;
  /**
   * Moves the cursor past `fingerprints`: in memory at once, then on disk. Called after the
   * run's jobs are in the queue's journal (`queued`) or the run was skipped or had nothing to
   * store (`passed`). Throws when the file cannot be written; the in-memory cursor has advanced
   * all the same.
   */
  advance(sessionId: string, fingerprints: readonly string[], now: number, outcome: CursorOutcome): void;
  /** Where it is kept (for status and errors). */
  readonly path: string;
  /**
   * Why this cursor cannot keep anything (its file was refused): then nothing is queued either,
   * since every later run would offer the whole conversation again.
   */
  readonly refusal?: string;
}
