/**
 * Retain-delivery events: the external inputs of the durable retain queue. Their codecs are
 * the single source of their types; the queue file is the journal of these events.
 */
import * as t from 'io-ts';
import { BankId, DocumentId, EpochMs, IsoTimestamp, JobId, NonEmptyString, NonNegativeInt } from '../../codecs/codecs.js';

import { defineGateEvents, fields } from '../shared/gateEvents.js';
import { RetainItem, UpdateMode } from '../../codecs/retainItem.js';

export { ObservationScopes, RetainItem, UpdateMode } from '../../codecs/retainItem.js';

/**
 * A queued retain. `jobId` and `idempotencyKey` are fixed when the job becomes durable and are
 * derived from what the job is (bank, document, mode, content hash and the caller's identity
 * for it, in the server's `operation_id` UUID shape): any process that queues the same job
 * again gets the same key, so the machine folds the copy away and the server drops a repeat.
 * A journal of 100,000 jobs is decoded on every open: the codec is plain io-ts combinators, so
 * `decodeWith` accepts a valid job with its cheap `is()` (src/codecs/identityCodec.ts).
 */
export const RetainJob = t.type({
  jobId: JobId,
  bankId: BankId,
  documentId: DocumentId,
  updateMode: UpdateMode,
  item: RetainItem,
  contentHash: NonEmptyString,
  idempotencyKey: NonEmptyString,
  enqueuedAt: IsoTimestamp,
});
export type RetainJob = t.TypeOf<typeof RetainJob>;

/** A job the server refused for good (400/422), with the server's reason (redacted). */
export const DeadLetter = t.type({
  job: RetainJob,
  reason: t.string,
  status: t.union([NonNegativeInt, t.null]),
  at: EpochMs,
});
export type DeadLetter = t.TypeOf<typeof DeadLetter>;

/** What the server answered for a delivered batch. */
export const DeliveryReceipt = t.type({
  operationId: t.union([t.string, t.null]),
  itemsCount: NonNegativeInt,
  async: t.boolean,
});
export type DeliveryReceipt = t.TypeOf<typeof DeliveryReceipt>;

/** The batch being sent: its jobs (in order), its request key, and which process sends it. */
export const InFlightBatch = t.type({
  jobIds: t.array(JobId),
  operationId: NonEmptyString,
  owner: NonEmptyString,
});
export type InFlightBatch = t.TypeOf<typeof InFlightBatch>;

const jobIds = { jobIds: t.array(JobId) };

export const FailureClass = t.keyof({ retry: null, report: null });

/**
 * The gate's name is `retain`: its types (`retain.failed`) are the queue journal's format, which
 * every process of a project shares, so they stay as every release wrote them.
 */
const events = defineGateEvents(
  'retain',
  {
    enqueued: fields({ jobs: t.array(RetainJob) }),
    /** `force` (a user's flush) ignores a retry deadline; an automatic flush waits for it. */
    flushRequested: fields({}, { force: t.boolean }),
    /** Saved before the first send: a restart re-sends exactly this batch with the same key. */
    batchStarted: fields({ batch: InFlightBatch }),
    /** Another process holds the delivery lease, or nothing was due: no batch this time. */
    batchSkipped: fields({ reason: t.string }),
    delivered: fields({ ...jobIds, receipt: DeliveryReceipt }),
    failed: fields(
      {
        ...jobIds,
        failureClass: FailureClass,
        /** Redacted, short: shown in status. */
        reason: t.string,
      },
      {
        /** The machine decides when to retry (decide.ts) from these: a jitter draw in [0, 1] ... */
        jitter: t.number,
        /** ... and the earliest time the server or the breaker allows (Retry-After, cool-down). */
        notBefore: EpochMs,
        /** Records written before the machine decided: the retry time as then decided; null: on the next flush. */
        retryAt: t.union([EpochMs, t.null]),
      },
    ),
    /** 401/403/404/410: the whole queue waits, keeping every job, until `retain.resumed`. */
    paused: fields({ ...jobIds, reason: t.string }),
    resumed: fields(),
    /** 400/422: these jobs will never be accepted as they are; kept aside with the server's reason. */
    deadLettered: fields({ ...jobIds, reason: t.string, status: t.union([NonNegativeInt, t.null]) }),
    requeued: fields(jobIds),
    /** The user gave up on these dead letters: removed for good (the journal keeps the record). */
    deadLettersDropped: fields(jobIds),
    timerFired: fields(),
    /**
     * This process opened the queue and tags the batches it starts with `owner`. One process's own
     * business (a start-up fold does not read it), so a fold of the journal stays what it was.
     */
    opened: fields({ owner: NonEmptyString }),
    shutdown: fields(),
    /**
     * A compacted journal starts with these: the live set, written as data. They restore state
     * without starting a delivery.
     */
    snapshot: fields(
      {
        jobs: t.array(RetainJob),
        deadLetters: t.array(DeadLetter),
        inFlight: t.union([InFlightBatch, t.null]),
        pausedReason: t.union([t.string, t.null]),
        retryAt: t.union([EpochMs, t.null]),
        failures: NonNegativeInt,
      },
      {
        /** Keys delivered or dropped lately (oldest first): a compaction keeps the dedupe window. */
        recentKeys: t.array(t.string),
      },
    ),
  },
  // `replica` marks an event another process already wrote to the shared journal: it is folded
  // in, not written again.
  { common: { replica: t.boolean } },
);


export const RetainDeliveryEvent = events.codec;
export type RetainDeliveryEvent = t.TypeOf<typeof RetainDeliveryEvent>;

/**
 * The events that carry state shared by every process of a queue. The others (flush asked,
 * batch skipped, timer, opened, shutdown) are one process's own business: folding another process's
 * `shutdown` or `batchSkipped` would move this process's fold out of `delivering` and make it
 * miss the delivery that follows. So a start-up fold and a live sync read only these (and a
 * compaction's snapshot).
 */
export const sharedEventTypes: ReadonlySet<string> = new Set([
  'retain.enqueued',
  'retain.batchStarted',
  'retain.delivered',
  'retain.deadLettered',
  'retain.failed',
  'retain.paused',
  'retain.resumed',
  'retain.requeued',
  'retain.deadLettersDropped',
  'retain.snapshot',
]);

/** One constructor per event, in wire shape: effects build events only through these. */
export const retainEvents = events.make;
/** An event as effects build it (before the gate decodes it). */
export type RetainDeliveryEventInput = t.OutputOf<typeof RetainDeliveryEvent>;
