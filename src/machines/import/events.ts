/**
 * Import-gate events: a run's request, what scanning and planning found, each document's
 * outcome, and pauses. The checkpoint file is the journal of these events, so each codec is
 * both the type and the on-disk format. One constructor per event keeps effects cast-free.
 */
import * as t from 'io-ts';
import { EpochMs, NonEmptyString, NonNegativeInt, PositiveInt } from '../../codecs/codecs.js';
import { eventOf } from '../shared/eventOf.js';

const at = { at: EpochMs };

export const ImportMode = t.keyof({ curated: null, raw: null, forensic: null });
export type ImportMode = t.TypeOf<typeof ImportMode>;
export const QualityProfile = t.keyof({ compatible: null, strict: null });
export type QualityProfile = t.TypeOf<typeof QualityProfile>;
export const BranchChoice = t.keyof({ 'current-only': null, 'all-leaves': null });
export type BranchChoice = t.TypeOf<typeof BranchChoice>;
export const ToolResults = t.keyof({ 'errors-only': null, summary: null, content: null });
export type ToolResults = t.TypeOf<typeof ToolResults>;

/** How a run imports: the contract's import fields, fixed at the start of the run. */
export const ImportOptions = t.type({
  dryRun: t.boolean,
  resume: t.boolean,
  replaceExisting: t.boolean,
  mode: ImportMode,
  qualityProfile: QualityProfile,
  branches: BranchChoice,
  toolResults: ToolResults,
  toolSummaryMaxChars: PositiveInt,
  bankId: NonEmptyString,
});
export type ImportOptions = t.TypeOf<typeof ImportOptions>;

/** A file or session left out, and why (`not-a-session`, `other-project`, ...). */
export const SkippedSource = t.type({ path: t.string, reason: NonEmptyString, detail: t.string });
export type SkippedSource = t.TypeOf<typeof SkippedSource>;

export const MalformedLine = t.type({ path: t.string, line: NonNegativeInt, reason: t.string });
export type MalformedLine = t.TypeOf<typeof MalformedLine>;

export const PlannedDocument = t.type({
  documentId: NonEmptyString,
  sessionId: NonEmptyString,
  path: t.string,
  /** Size and tokens as planned (before redaction, which a dry run skips for speed). */
  bytes: NonNegativeInt,
  tokens: NonNegativeInt,
});
export type PlannedDocument = t.TypeOf<typeof PlannedDocument>;

export const PlannedSession = t.type({
  sessionId: NonEmptyString,
  path: t.string,
  bytes: NonNegativeInt,
  documents: NonNegativeInt,
  malformedLines: NonNegativeInt,
  pendingTailBytes: NonNegativeInt,
});
export type PlannedSession = t.TypeOf<typeof PlannedSession>;

export const PlanStats = t.type({
  rawMessages: NonNegativeInt,
  keptItems: NonNegativeInt,
  droppedToolResults: NonNegativeInt,
  keptToolErrors: NonNegativeInt,
});
export type PlanStats = t.TypeOf<typeof PlanStats>;

export const PauseCause = t.keyof({ interrupted: null, serverDown: null, unauthorized: null });
export type PauseCause = t.TypeOf<typeof PauseCause>;

export const ImportedRecord = t.type({ documentId: NonEmptyString, hash: NonEmptyString, status: t.keyof({ queued: null, completed: null }) });
export type ImportedRecord = t.TypeOf<typeof ImportedRecord>;

export const ImportRequested = t.type({ type: t.literal('import.requested'), ...at, runId: NonEmptyString, options: ImportOptions, sources: t.array(t.string) });
export const ScanFinished = t.type({ type: t.literal('scan.finished'), ...at, files: NonNegativeInt, bytes: NonNegativeInt, skipped: t.array(SkippedSource) });
export const PlanReady = t.type({
  type: t.literal('plan.ready'),
  ...at,
  sessions: t.array(PlannedSession),
  documents: t.array(PlannedDocument),
  skipped: t.array(SkippedSource),
  malformed: t.array(MalformedLine),
  stats: PlanStats,
});
export const DocumentQueued = t.type({ type: t.literal('document.queued'), ...at, documentId: NonEmptyString, hash: NonEmptyString, bytes: NonNegativeInt });
/** A session's documents queued in one write: one checkpoint entry for all of them. */
export const DocumentsQueued = t.type({
  type: t.literal('documents.queued'),
  ...at,
  documents: t.array(t.type({ documentId: NonEmptyString, hash: NonEmptyString, bytes: NonNegativeInt })),
});
export const DocumentSkipped = t.type({ type: t.literal('document.skipped'), ...at, documentId: NonEmptyString, reason: NonEmptyString, bytes: NonNegativeInt });
/** The queue delivered everything queued so far: these documents are on the server. */
export const DeliveryConfirmed = t.type({ type: t.literal('delivery.confirmed'), ...at, documentIds: t.array(NonEmptyString) });
export const ImportPaused = t.type({ type: t.literal('import.paused'), ...at, cause: PauseCause, reason: t.string });
export const ImportFailed = t.type({ type: t.literal('import.failed'), ...at, reason: t.string });
export const ImportFinished = t.type({ type: t.literal('import.finished'), ...at });
/** Replaces a long checkpoint with what it amounts to (written when a run ends). */
export const CheckpointCompacted = t.type({ type: t.literal('checkpoint.compacted'), ...at, imported: t.array(ImportedRecord) });

export const ImportEvent = t.union([
  ImportRequested,
  ScanFinished,
  PlanReady,
  DocumentQueued,
  DocumentsQueued,
  DocumentSkipped,
  DeliveryConfirmed,
  ImportPaused,
  ImportFailed,
  ImportFinished,
  CheckpointCompacted,
]);
export type ImportEvent = t.TypeOf<typeof ImportEvent>;
export type ImportEventOf<T extends ImportEvent['type']> = Extract<ImportEvent, { type: T }>;

/** A codec's wire shape (brands off): what a caller holds before the gate decodes it. */
export type Unbranded<C extends t.Any> = t.OutputOf<C>;

/** One constructor per event: `importEvents.documentQueued({ at, documentId, hash, bytes })`. */
export const importEvents = {
  requested: eventOf<typeof ImportRequested>('import.requested'),
  scanFinished: eventOf<typeof ScanFinished>('scan.finished'),
  planReady: eventOf<typeof PlanReady>('plan.ready'),
  documentQueued: eventOf<typeof DocumentQueued>('document.queued'),
  documentsQueued: eventOf<typeof DocumentsQueued>('documents.queued'),
  documentSkipped: eventOf<typeof DocumentSkipped>('document.skipped'),
  deliveryConfirmed: eventOf<typeof DeliveryConfirmed>('delivery.confirmed'),
  paused: eventOf<typeof ImportPaused>('import.paused'),
  failed: eventOf<typeof ImportFailed>('import.failed'),
  finished: eventOf<typeof ImportFinished>('import.finished'),
  checkpointCompacted: eventOf<typeof CheckpointCompacted>('checkpoint.compacted'),
} as const;
