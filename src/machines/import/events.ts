/**
 * Import-gate events: a run's request, what scanning and planning found, each document's
 * outcome, and pauses. The checkpoint file is the journal of these events, so each codec is
 * both the type and the on-disk format. One constructor per event keeps effects cast-free.
 */
import * as t from 'io-ts';
import { NonEmptyString, NonNegativeInt, PositiveInt } from '../../codecs/codecs.js';
import { defineGateEvents, fields } from '../shared/gateEvents.js';

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

export const PlanStats = t.intersection([
  t.type({
    rawMessages: NonNegativeInt,
    keptItems: NonNegativeInt,
    droppedToolResults: NonNegativeInt,
    keptToolErrors: NonNegativeInt,
  }),
  // Runs the live session marked not kept (next-opt-out, memory off), dropped; messages live
  // retain already queued, left out. Optional: older plans lack them.
  t.partial({ runsNotKept: NonNegativeInt, liveRetained: NonNegativeInt }),
]);
export type PlanStats = t.TypeOf<typeof PlanStats>;

export const PauseCause = t.keyof({ interrupted: null, serverDown: null, unauthorized: null });
export type PauseCause = t.TypeOf<typeof PauseCause>;

export const ImportedRecord = t.type({ documentId: NonEmptyString, hash: NonEmptyString, status: t.keyof({ queued: null, completed: null }) });
export type ImportedRecord = t.TypeOf<typeof ImportedRecord>;

const events = defineGateEvents(
  'import',
  {
    requested: fields({ runId: NonEmptyString, options: ImportOptions, sources: t.array(t.string) }),
    'scan.finished': fields({ files: NonNegativeInt, bytes: NonNegativeInt, skipped: t.array(SkippedSource) }),
    /**
     * A real run's plan so far: session files read and their bytes. Written by runs before the
     * plan recorded `documents.queued` with its progress; still folded from their checkpoints.
     */
    'plan.progressed': fields({ files: NonNegativeInt, bytes: NonNegativeInt }),
    'plan.ready': fields({
      sessions: t.array(PlannedSession),
      documents: t.array(PlannedDocument),
      skipped: t.array(SkippedSource),
      malformed: t.array(MalformedLine),
      stats: PlanStats,
    }),
    'document.queued': fields({ documentId: NonEmptyString, hash: NonEmptyString, bytes: NonNegativeInt }),
    /**
     * Sessions' documents queued in one write: one checkpoint entry for all of them. Recorded by
     * the plan as it queues, with `planned`, its progress then (session files read and their
     * bytes), so no separate progress record is written. `delivered`: sent by the import itself
     * and acknowledged by the server, never in the queue (an older build reads them as queued,
     * which resumes the same way: same hash, skipped).
     */
    'documents.queued': fields(
      { documents: t.array(t.type({ documentId: NonEmptyString, hash: NonEmptyString, bytes: NonNegativeInt })) },
      { planned: t.type({ files: NonNegativeInt, bytes: NonNegativeInt }), delivered: t.literal(true) },
    ),
    'document.skipped': fields({ documentId: NonEmptyString, reason: NonEmptyString, bytes: NonNegativeInt }),
    /** The queue delivered everything queued so far: these documents are on the server. */
    'delivery.confirmed': fields({ documentIds: t.array(NonEmptyString) }),
    paused: fields({ cause: PauseCause, reason: t.string }),
    failed: fields({ reason: t.string }),
    finished: fields(),
    /** Replaces a long checkpoint with what it amounts to (written when a run ends). */
    'checkpoint.compacted': fields({ imported: t.array(ImportedRecord) }),
  },
  // The checkpoint is the journal: one written before the prefix still resumes.
  { readsUnprefixed: true },
);

export const ImportEvent = events.codec;
export type ImportEvent = t.TypeOf<typeof ImportEvent>;
export type ImportEventOf<T extends ImportEvent['type']> = Extract<ImportEvent, { type: T }>;
/** Every import event type. */
export const importEventTypes = events.types;

/** A codec's wire shape (brands off): what a caller holds before the gate decodes it. */
export type Unbranded<C extends t.Any> = t.OutputOf<C>;

/** One constructor per event: `importEvents.documentQueued({ at, documentId, hash, bytes })`. */
export const importEvents = events.make;
