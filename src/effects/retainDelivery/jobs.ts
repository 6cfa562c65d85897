/**
 * Turning a caller's retain request into queued jobs: decode it (naming the bad field),
 * redact secrets from everything that will be written to disk, and fix the job's id and
 * idempotency key before anything is sent: both are derived from what the job is, never
 * random, so a job queued twice (a hand-off re-offered by another process) has one key.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { redact } from '../../config/redact.js';
import { isRedactedJson, type RedactedJson } from '../../config/redactedJson.js';
import { BankId, DocumentId, isRecord } from '../../codecs/codecs.js';
import { decodeWith } from '../../codecs/decode.js';
import { CHUNK_SIZE } from '../../machines/retainDelivery/context.js';
import { RetainItem, UpdateMode, retainEvents, type RetainDeliveryEventInput, type RetainJob } from '../../machines/retainDelivery/events.js';
import type { IdsPort } from '../ports/ids.js';

/** SHA-256 in production: keys are written to the shared journal, so every process must use the same digest. */
type Digest = IdsPort['digest'];

/**
 * `identity` says which job this is for its caller (a hand-off's key and item index): the same
 * identity and content always give the same job key. Without one, the enqueue time and index
 * stand in, so only a caller that re-offers a job needs to name it.
 */
const Identity = t.partial({ identity: t.string });
/** A job as `enqueue` checks it: the rest (ids, key, hash, time) is fixed here. */
export const NewRetainJob = t.intersection([t.type({ bankId: BankId, documentId: DocumentId, updateMode: UpdateMode, item: RetainItem }), Identity]);
/** What a caller hands to `enqueue`: plain strings, checked (and branded) on the way in. */
export const NewRetainJobInput = t.intersection([t.type({ bankId: t.string, documentId: t.string, updateMode: UpdateMode, item: RetainItem }), Identity]);
export type NewRetainJob = t.TypeOf<typeof NewRetainJobInput> & {
  /**
   * The redactor's proof that `item.content` went through `redact` as it was built (an import's
   * documents): the content is then not redacted again. Anything else, or a proof of other
   * text or of fewer known secret values, and the content is redacted here as always.
   */
  readonly redactedContent?: RedactedJson;
};

const decodeNewJobs = decodeWith(t.array(NewRetainJob), 'retain queue enqueue');

/**
 * Every string of the item as it will be sent, not only as it is written: the journal's last
 * guard hides known values in the bytes on disk, but the job in memory is what reaches the
 * server. Tags, the document id, metadata keys and values, entities and observation scopes too
 * (`redactText`: `redact`, short texts once per enqueue).
 */
const redactItem = (item: RetainItem, contentRedacted: boolean, redactText: (text: string) => string): RetainItem => {
  const out: RetainItem = { ...item, content: contentRedacted ? item.content : redactText(item.content) };
  if (item.context !== undefined) out.context = redactText(item.context);
  if (item.document_id !== undefined) out.document_id = redactText(item.document_id);
  if (item.tags !== undefined) out.tags = item.tags.map(redactText);
  if (item.metadata !== undefined) {
    const metadata: Record<string, string> = {};
    // defineProperty: a `__proto__` key stays a plain field.
    for (const [k, v] of Object.entries(item.metadata)) Object.defineProperty(metadata, redactText(k), { value: redactText(v), enumerable: true, writable: true, configurable: true });
    out.metadata = metadata;
  }
  if (item.entities !== undefined) out.entities = item.entities.map((e) => ({ ...e, text: redactText(e.text), ...(e.type === undefined ? {} : { type: redactText(e.type) }) }));
  if (Array.isArray(item.observation_scopes)) out.observation_scopes = item.observation_scopes.map((scope) => scope.map(redactText));
  return out;
};


// Longer texts are rarely repeated within one enqueue, and would be held for nothing.
const SHORT_TEXT = 512;

/**
 * `redact`, each short text redacted once per enqueue: an import's jobs repeat most of their
 * tags and metadata (the project's tags, every metadata key, the cwd), about 20 texts a job.
 * The same text gives the same output while the known secret values stay as they are, and
 * they cannot change within one synchronous `prepareJobs`.
 */
const sameCallRedact = (): ((text: string) => string) => {
  const seen = new Map<string, string>();
  return (text) => {
    if (text.length > SHORT_TEXT) return redact(text);
    let out = seen.get(text);
    if (out === undefined) seen.set(text, (out = redact(text)));
    return out;
  };
};

/** A hex digest in UUID shape (version 5 / RFC 4122 variant bits), as servers expect `operation_id`. */
const uuidOf = (hex: string): string => {
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** A job's key: the digest of what it is. Used as its id and as its server-side key. */
const jobKey = (
  job: { readonly bankId: string; readonly documentId: string; readonly updateMode: string; readonly contentHash: string; readonly identity: string },
  digest: Digest,
): string => uuidOf(digest(JSON.stringify(['retain-job', job.bankId, job.documentId, job.updateMode, job.contentHash, job.identity])));

/** Decodes and prepares jobs; the error names the bad field (e.g. `0.bankId`). */
export const prepareJobs = (input: unknown, now: number, digest: Digest): E.Either<string, RetainJob[]> => {
  const decoded = decodeNewJobs(input);
  // The proof is read from the caller's own job, never from a decoded copy.
  const proofOf = (index: number): unknown => {
    const job: unknown = Array.isArray(input) ? input[index] : undefined;
    return isRecord(job) ? job['redactedContent'] : undefined;
  };
  if (E.isLeft(decoded)) return E.left(decoded.left.message);
  const enqueuedAt = new Date(now).toISOString();
  const redactOnce = sameCallRedact();
  return E.right(
    decoded.right.map((job, index) => {
      const item = redactItem(job.item, isRedactedJson(proofOf(index), job.item.content), redactOnce);
      const documentId = redactOnce(job.documentId);
      const hash = digest(item.content);
      const key = jobKey({ bankId: job.bankId, documentId, updateMode: job.updateMode, contentHash: hash, identity: job.identity ?? `enqueued@${enqueuedAt}#${index}` }, digest);
      // The codec's brands hold: the key is a UUID (a valid JobId), the hash non-empty hex.
      return { jobId: key, bankId: job.bankId, documentId, updateMode: job.updateMode, item, contentHash: hash, idempotencyKey: key, enqueuedAt } as RetainJob;
    }),
  );
};

/**
 * The request key of a batch: a job's own key when it goes alone, else a UUID-shaped digest of
 * the SORTED job keys, so the same jobs carry the same key whatever order or process sends them.
 */
export const batchOperationId = (jobs: readonly RetainJob[], digest: Digest): string => {
  if (jobs.length === 1 && jobs[0] !== undefined) return jobs[0].idempotencyKey;
  const keys = jobs.map((j) => j.idempotencyKey).sort();
  return uuidOf(digest(keys.join(',')));
};

/** The jobs, decoded and keyed, and the `enqueued` events that queue them; throws on bad input. */
export const enqueuedEvents = (
  input: readonly NewRetainJob[],
  now: number,
  digest: Digest,
): { readonly jobs: readonly RetainJob[]; readonly events: readonly RetainDeliveryEventInput[] } => {
  const prepared = prepareJobs(input, now, digest);
  if (E.isLeft(prepared)) throw new Error(prepared.left);
  const events: RetainDeliveryEventInput[] = [];
  // Very large enqueues go in several records so no line grows without bound.
  for (let i = 0; i < prepared.right.length; i += CHUNK_SIZE) events.push(retainEvents.enqueued({ jobs: prepared.right.slice(i, i + CHUNK_SIZE), at: now }));
  return { jobs: prepared.right, events };
};
