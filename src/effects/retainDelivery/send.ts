/**
 * Sends one batch to the memory server and turns the answer into retain-delivery events.
 *
 * A batch refused as invalid (400/422) is re-sent job by job, each with its own key, so one
 * bad job is dead-lettered and the rest still go; the first failure of another class stops
 * the batch and is reported for the jobs not yet answered.
 */
import * as E from 'fp-ts/lib/Either.js';
import { redact } from '../../config/redact.js';
import { requestItems } from '../../machines/retainDelivery/batch.js';
import { retainEvents, type InFlightBatch, type RetainDeliveryEventInput, type RetainJob } from '../../machines/retainDelivery/events.js';
import { describeFailure, failureClass, type MemoryServer, type ServerFailure } from '../ports/memoryServer.js';

export interface SendContext {
  readonly server: MemoryServer;
  readonly async: boolean;
  readonly now: () => number;
  /** The jitter draw a retryable failure carries; the machine turns it into a retry time. */
  readonly random: () => number;
  readonly signal: AbortSignal;
  /** True once after a flush or a reopen asked to look now: the first call goes as the breaker's probe. */
  readonly probe: () => boolean;
  /** Called before a dead-letter event is dispatched: writes the dead-letter file. */
  readonly recordDeadLetters: (jobs: readonly RetainJob[], reason: string, status: number | null) => Promise<void>;
}

export interface SendOutcome {
  readonly events: RetainDeliveryEventInput[];
  readonly delivered: readonly RetainJob[];
  readonly receiptOperationId: string | null;
}

const MAX_REASON = 300;

const reasonOf = (failure: ServerFailure): string => {
  const text = redact(describeFailure(failure));
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text;
};

const failureEvents = (failure: ServerFailure, jobIds: string[], ctx: SendContext): RetainDeliveryEventInput => {
  const at = ctx.now();
  const reason = reasonOf(failure);
  switch (failureClass(failure)) {
    case 'retry': {
      // What the server or the breaker said about when; the machine decides the time (decide.ts).
      const notBefore =
        failure._tag === 'rateLimited' && failure.retryAfterMs !== undefined
          ? at + failure.retryAfterMs
          : failure._tag === 'circuitOpen'
            ? failure.retryAt
            : undefined;
      return retainEvents.failed({ jobIds, failureClass: 'retry', reason, jitter: ctx.random(), ...(notBefore === undefined ? {} : { notBefore: Math.max(0, Math.round(notBefore)) }), at });
    }
    case 'pause':
      return retainEvents.paused({ jobIds, reason, at });
    default:
      // Cancelled, or an answer this client cannot read: keep the jobs, try on the next flush.
      return retainEvents.failed({ jobIds, failureClass: 'report', reason, retryAt: null, at });
  }
};

/**
 * The key makes a re-send after a crash a no-op, but servers honour it only on async retains
 * (0.8.6+) and refuse it below: so a server that has it always gets an async, keyed request,
 * and an older one a plain request (at-least-once there; the doctor reports the floor).
 */
const sendOnce = async (ctx: SendContext, jobs: readonly RetainJob[], operationId: string) => {
  const first = jobs[0];
  if (first === undefined) throw new Error('retain queue: empty batch');
  // One attempt each: the machine owns retries (its backoff), so a failure is not retried inside a retry.
  const probe = ctx.probe();
  const caps = await ctx.server.capabilities({ signal: ctx.signal, attempts: 1, ...(probe ? { probe } : {}) })();
  // A server that cannot say what it supports cannot take the retain either: same failure.
  if (E.isLeft(caps)) return E.left(caps.left);
  const keyed = caps.right.features.operationId;
  const request = keyed ? { items: requestItems(jobs), async: true, operation_id: operationId } : { items: requestItems(jobs), async: ctx.async };
  // The probe goes with both calls: capabilities are often cached, and then the retain is the first to go out.
  return ctx.server.retain(first.bankId, request, { signal: ctx.signal, attempts: 1, ...(probe ? { probe } : {}) })();
};

// A server's operation id is kept only when it is id-shaped: it goes into the queue journal, the
// receipts file and the retain tool's answer, and a hostile server's could hold terminal escapes,
// invisible instructions, a forged line or megabytes (round 13). Else the receipt has none.
const OPERATION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const receivedOperationId = (id: string | null | undefined): string | null => (typeof id === 'string' && OPERATION_ID.test(id) ? id : null);

export const sendBatch = async (ctx: SendContext, batch: InFlightBatch, jobs: readonly RetainJob[]): Promise<SendOutcome> => {
  const ids = jobs.map((j) => j.jobId);
  const result = await sendOnce(ctx, jobs, batch.operationId);
  if (E.isRight(result)) {
    const operationId = receivedOperationId(result.right.operation_id);
    return {
      delivered: jobs,
      receiptOperationId: operationId,
      events: [
        retainEvents.delivered({
          jobIds: batch.jobIds,
          receipt: { operationId, itemsCount: Math.max(0, Math.floor(result.right.items_count)), async: result.right.async ?? ctx.async },
          at: ctx.now(),
        }),
      ],
    };
  }
  const failure = result.left;
  if (failureClass(failure) !== 'deadLetter') return { delivered: [], receiptOperationId: null, events: [failureEvents(failure, ids, ctx)] };
  const status = failure._tag === 'invalidRequest' ? failure.status : null;
  if (jobs.length === 1) {
    const reason = reasonOf(failure);
    await ctx.recordDeadLetters(jobs, reason, status);
    return { delivered: [], receiptOperationId: null, events: [retainEvents.deadLettered({ jobIds: ids, reason, status, at: ctx.now() })] };
  }
  // One of them is bad: find which, job by job, each under its own key.
  const events: RetainDeliveryEventInput[] = [];
  const delivered: RetainJob[] = [];
  for (const [i, job] of jobs.entries()) {
    const single = await sendOnce(ctx, [job], job.idempotencyKey);
    if (E.isRight(single)) {
      delivered.push(job);
      events.push(
        retainEvents.delivered({
          jobIds: [job.jobId],
          receipt: { operationId: single.right.operation_id ?? null, itemsCount: Math.max(0, Math.floor(single.right.items_count)), async: single.right.async ?? ctx.async },
          at: ctx.now(),
        }),
      );
      continue;
    }
    if (failureClass(single.left) === 'deadLetter') {
      const reason = reasonOf(single.left);
      const singleStatus = single.left._tag === 'invalidRequest' ? single.left.status : null;
      await ctx.recordDeadLetters([job], reason, singleStatus);
      events.push(retainEvents.deadLettered({ jobIds: [job.jobId], reason, status: singleStatus, at: ctx.now() }));
      continue;
    }
    events.push(failureEvents(single.left, jobs.slice(i).map((j) => j.jobId), ctx));
    break;
  }
  return { delivered, receiptOperationId: null, events };
};
