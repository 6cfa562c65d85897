/**
 * Retain-delivery events: the external inputs of the durable retain queue. Their codecs are
 * the single source of their types; the queue file is the journal of these events.
 */
import * as t from 'io-ts';
import { BankId, DocumentId, EpochMs, IsoTimestamp, JobId, NonEmptyString, NonNegativeInt } from '../../codecs/codecs.js';

import { eventOf } from '../shared/eventOf.js';
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

/**
 * An event codec: `type`, `at` (epoch ms: time comes in as data) and its fields. `replica`
 * marks an event another process already wrote to the shared journal: it is folded in, not
 * written again.
 */
const event = <L extends string, P extends t.Props, O extends t.Props = Record<never, never>>(type: L, props: P, optional?: O) =>
  t.intersection([
    t.type({ type: t.literal(type), at: EpochMs, ...props }),
    t.partial({ replica: t.boolean, ...(optional ?? ({} as O)) }),
  ]);

const jobIds = { jobIds: t.array(JobId) };

export const Enqueued = event('retain.enqueued', { jobs: t.array(RetainJob) });
/** `force` (a user's flush) ignores a retry deadline; an automatic flush waits for it. */
export const FlushRequested = event('retain.flushRequested', {}, { force: t.boolean });
/** Saved before the first send: a restart re-sends exactly this batch with the same key. */
export const BatchStarted = event('retain.batchStarted', { batch: InFlightBatch });
/** Another process holds the delivery lease, or nothing was due: no batch this time. */
export const BatchSkipped = event('retain.batchSkipped', { reason: t.string });
export const Delivered = event('retain.delivered', { ...jobIds, receipt: DeliveryReceipt });
export const FailureClass = t.keyof({ retry: null, report: null });
export const Failed = event(
  'retain.failed',
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
);
/** 401/403/404/410: the whole queue waits, keeping every job, until `retain.resumed`. */
export const Paused = event('retain.paused', { ...jobIds, reason: t.string });
export const Resumed = event('retain.resumed', {});
/** 400/422: these jobs will never be accepted as they are; kept aside with the server's reason. */
export const DeadLettered = event('retain.deadLettered', { ...jobIds, reason: t.string, status: t.union([NonNegativeInt, t.null]) });
export const Requeued = event('retain.requeued', jobIds);
/** The user gave up on these dead letters: removed for good (the journal keeps the record). */
export const DeadLettersDropped = event('retain.deadLettersDropped', jobIds);
export const TimerFired = event('retain.timerFired', {});
/**
 * This process opened the queue and tags the batches it starts with `owner`. One process's own
 * business (a start-up fold does not read it), so a fold of the journal stays what it was.
 */
export const Opened = event('retain.opened', { owner: NonEmptyString });
export const Shutdown = event('retain.shutdown', {});
/**
 * A compacted journal starts with these: the live set, written as data. They restore state
 * without starting a delivery.
 */
export const Snapshot = event('retain.snapshot', {
  jobs: t.array(RetainJob),
  deadLetters: t.array(DeadLetter),
  inFlight: t.union([InFlightBatch, t.null]),
  pausedReason: t.union([t.string, t.null]),
  retryAt: t.union([EpochMs, t.null]),
  failures: NonNegativeInt,
}, {
  /** Keys delivered or dropped lately (oldest first): a compaction keeps the dedupe window. */
  recentKeys: t.array(t.string),
});

export const RetainDeliveryEvent = t.union([
  Enqueued,
  FlushRequested,
  BatchStarted,
  BatchSkipped,
  Delivered,
  Failed,
  Paused,
  Resumed,
  DeadLettered,
  Requeued,
  DeadLettersDropped,
  TimerFired,
  Opened,
  Shutdown,
  Snapshot,
]);
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
export const retainEvents = {
  enqueued: eventOf<typeof Enqueued>('retain.enqueued'),
  flushRequested: eventOf<typeof FlushRequested>('retain.flushRequested'),
  batchStarted: eventOf<typeof BatchStarted>('retain.batchStarted'),
  batchSkipped: eventOf<typeof BatchSkipped>('retain.batchSkipped'),
  delivered: eventOf<typeof Delivered>('retain.delivered'),
  failed: eventOf<typeof Failed>('retain.failed'),
  paused: eventOf<typeof Paused>('retain.paused'),
  resumed: eventOf<typeof Resumed>('retain.resumed'),
  deadLettered: eventOf<typeof DeadLettered>('retain.deadLettered'),
  requeued: eventOf<typeof Requeued>('retain.requeued'),
  deadLettersDropped: eventOf<typeof DeadLettersDropped>('retain.deadLettersDropped'),
  timerFired: eventOf<typeof TimerFired>('retain.timerFired'),
  opened: eventOf<typeof Opened>('retain.opened'),
  shutdown: eventOf<typeof Shutdown>('retain.shutdown'),
  snapshot: eventOf<typeof Snapshot>('retain.snapshot'),
} as const;
/** An event as effects build it (before the gate decodes it). */
export type RetainDeliveryEventInput = t.OutputOf<typeof RetainDeliveryEvent>;
