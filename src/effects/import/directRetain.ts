/**
 * An import's documents sent straight to the memory server, several to a request, without the
 * retain queue's journal. Safe because the session files are durable and the import's
 * checkpoint records a document only once the server acknowledged it: a crash before that
 * record sends it again on resume, and imports replace by a deterministic document id, so the
 * server still holds each once.
 *
 * Each job is checked, redacted and shaped exactly as the queue would send it (`prepareJobs`,
 * `requestItems`; an item's content keeps the redactor's proof), and goes in one attempt: any
 * failure is returned, and the caller hands the jobs to the durable queue, which owns retries,
 * pauses and dead letters.
 */
import * as E from 'fp-ts/lib/Either.js';
import { redact } from '../../config/redact.js';
import { requestItems } from '../../machines/retainDelivery/batch.js';
import type { IdsPort } from '../ports/ids.js';
import { describeFailure, type MemoryServer } from '../ports/memoryServer.js';
import { batchOperationId, prepareJobs, type NewRetainJob } from '../retainDelivery/jobs.js';

export type DirectOutcome = { readonly delivered: true } | { readonly delivered: false; readonly reason: string };

export interface DirectRetain {
  /** One retain request holding these jobs (one bank); resolves once the server answered. */
  send(jobs: readonly NewRetainJob[]): Promise<DirectOutcome>;
}

export interface DirectRetainOptions {
  readonly server: MemoryServer;
  /** SHA-256, as the queue's job keys (the request's `operation_id` is made from them). */
  readonly digest: IdsPort['digest'];
  readonly now: () => number;
  /** `retain.async`: how a server without keyed retains is asked (a keyed one always async). */
  readonly async: boolean;
}

const notDelivered = (reason: string): DirectOutcome => ({ delivered: false, reason: redact(reason) });

export const directRetain = (options: DirectRetainOptions): DirectRetain => ({
  send: async (input) => {
    const prepared = prepareJobs(input, options.now(), options.digest);
    if (E.isLeft(prepared)) return notDelivered(prepared.left);
    const jobs = prepared.right;
    const first = jobs[0];
    if (first === undefined) return { delivered: true };
    if (jobs.some((job) => job.bankId !== first.bankId)) return notDelivered('jobs of more than one bank');
    const caps = await options.server.capabilities({ attempts: 1 })();
    if (E.isLeft(caps)) return notDelivered(describeFailure(caps.left));
    const items = requestItems(jobs);
    // As the queue asks (send.ts): keyed and async where the server takes keys.
    const request = caps.right.features.operationId ? { items, async: true, operation_id: batchOperationId(jobs, options.digest) } : { items, async: options.async };
    const result = await options.server.retain(first.bankId, request, { attempts: 1 })();
    return E.isRight(result) ? { delivered: true } : notDelivered(describeFailure(result.left));
  },
});
