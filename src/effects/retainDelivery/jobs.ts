/**
 * Turning a caller's retain request into queued jobs: decode it (naming the bad field),
 * redact secrets from everything that will be written to disk, and fix the job's id and
 * idempotency key before anything is sent.
 */
import { createHash, randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { redact } from '../../config/redact.js';
import { BankId, DocumentId } from '../../machines/shared/codecs.js';
import { decodeWith } from '../../machines/shared/decode.js';
import { RetainItem, UpdateMode, type RetainJob } from '../../machines/retainDelivery/events.js';

/** A job as `enqueue` checks it: the rest (ids, key, hash, time) is fixed here. */
export const NewRetainJob = t.type({ bankId: BankId, documentId: DocumentId, updateMode: UpdateMode, item: RetainItem });
/** What a caller hands to `enqueue`: plain strings, checked (and branded) on the way in. */
export const NewRetainJobInput = t.type({ bankId: t.string, documentId: t.string, updateMode: UpdateMode, item: RetainItem });
export type NewRetainJob = t.TypeOf<typeof NewRetainJobInput>;

const decodeNewJobs = decodeWith(t.array(NewRetainJob), 'retain queue enqueue');

const redactItem = (item: RetainItem): RetainItem => {
  const out: RetainItem = { ...item, content: redact(item.content) };
  if (item.context !== undefined) out.context = redact(item.context);
  if (item.metadata !== undefined) out.metadata = Object.fromEntries(Object.entries(item.metadata).map(([k, v]) => [k, redact(v)]));
  if (item.entities !== undefined) out.entities = item.entities.map((e) => ({ ...e, text: redact(e.text) }));
  return out;
};

export const contentHash = (content: string): string => createHash('sha256').update(content).digest('hex');

/** Decodes and prepares jobs; the error names the bad field (e.g. `0.bankId`). */
export const prepareJobs = (input: unknown, now: number): E.Either<string, RetainJob[]> => {
  const decoded = decodeNewJobs(input);
  if (E.isLeft(decoded)) return E.left(decoded.left.message);
  const enqueuedAt = new Date(now).toISOString();
  return E.right(
    decoded.right.map((job) => {
      const item = redactItem(job.item);
      return {
        jobId: randomUUID(),
        bankId: job.bankId,
        documentId: job.documentId,
        updateMode: job.updateMode,
        item,
        contentHash: contentHash(item.content),
        idempotencyKey: randomUUID(),
        enqueuedAt,
      } as RetainJob;
    }),
  );
};

/**
 * The request key of a batch: a job's own key when it goes alone, else a UUID-shaped digest of
 * the keys in order, so the same batch re-sent after a restart carries the same key.
 */
export const batchOperationId = (jobs: readonly RetainJob[]): string => {
  if (jobs.length === 1 && jobs[0] !== undefined) return jobs[0].idempotencyKey;
  const hex = createHash('sha256')
    .update(jobs.map((j) => j.idempotencyKey).join(','))
    .digest('hex');
  // Version 5 / RFC 4122 variant bits, so servers that insist on a UUID accept it.
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};
