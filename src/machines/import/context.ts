/** The import gate's context: the current run, and what every run so far has imported. */
import type { ImportOptions, MalformedLine, PauseCause, PlannedDocument, PlannedSession, PlanStats, SkippedSource } from './events.js';

export interface ImportedDocument {
  readonly hash: string;
  /** `queued`: durable in the retain queue; `completed`: the queue delivered it. */
  readonly status: 'queued' | 'completed';
}

export interface RunProgress {
  readonly documentsDone: number;
  /** Documents this run put in the retain queue. */
  readonly documentsQueued: number;
  /** Documents this run sent straight to the server, which acknowledged them (never queued). */
  readonly documentsSent: number;
  readonly documentsSkipped: number;
  readonly bytesDone: number;
  /** Session files the plan has read, and their bytes (against the scan's totals). */
  readonly filesPlanned: number;
  readonly bytesPlanned: number;
  /** Skips by reason (`already-imported`, ...). */
  readonly skippedBy: Readonly<Record<string, number>>;
}

export interface ImportPlan {
  readonly sessions: readonly PlannedSession[];
  readonly documents: readonly PlannedDocument[];
  readonly skipped: readonly SkippedSource[];
  readonly malformed: readonly MalformedLine[];
  readonly stats: PlanStats;
  readonly bytes: number;
  readonly tokens: number;
}

export interface ImportRun {
  readonly runId: string;
  readonly options: ImportOptions;
  readonly sources: readonly string[];
  readonly startedAt: number;
  readonly finishedAt: number | null;
  readonly scanned: { readonly files: number; readonly bytes: number; readonly skipped: readonly SkippedSource[] } | null;
  readonly plan: ImportPlan | null;
  readonly progress: RunProgress;
  readonly pause: { readonly cause: PauseCause; readonly reason: string } | null;
  readonly error: string | null;
}

export interface ImportContext {
  readonly run: ImportRun | null;
  /** Every document any run queued, by id: what `importResume` checks hashes against. */
  readonly imported: Readonly<Record<string, ImportedDocument>>;
  readonly runs: number;
}

export const initialImportContext: ImportContext = { run: null, imported: {}, runs: 0 };

export const emptyProgress: RunProgress = { documentsDone: 0, documentsQueued: 0, documentsSent: 0, documentsSkipped: 0, bytesDone: 0, filesPlanned: 0, bytesPlanned: 0, skippedBy: {} };
