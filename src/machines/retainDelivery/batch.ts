/**
 * Which pending jobs go out together, and as which request items. Pure: the same jobs always
 * give the same items, so a batch re-sent after a restart is byte-for-byte the first one.
 */
import type { RetainDeliveryContext } from './context.js';
import type { RetainItem, RetainJob } from './events.js';

export interface BatchLimits {
  /** Items per retain request (after merging). */
  readonly maxItems: number;
  /** Content bytes per request (UTF-16 length as an estimate); one job always fits. */
  readonly maxContentChars: number;
}

/**
 * A server takes a retain request in one durable write whatever its item count (the embedded
 * server logs an async one and answers): distinct documents go up to 1,000 to a request, where
 * 100 left a flush paying its per-batch journal writes ten times as often. The content bound
 * keeps a request under the body limits proxies commonly set.
 */
export const defaultBatchLimits: BatchLimits = { maxItems: 1_000, maxContentChars: 512 * 1024 };

export interface BatchChoice {
  readonly jobIds: readonly string[];
  /** The key of an unfinished batch being re-sent; absent for a new batch. */
  readonly adoptedOperationId?: string;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Two appends to one document merge into one item when nothing but their content (and
 * time) differs: tags, context, metadata and policy must agree, so merging loses nothing.
 */
const canMerge = (earlier: RetainJob, later: RetainJob): boolean =>
  earlier.updateMode === 'append' &&
  later.updateMode === 'append' &&
  earlier.bankId === later.bankId &&
  earlier.documentId === later.documentId &&
  earlier.item.context === later.item.context &&
  sameJson(earlier.item.tags, later.item.tags) &&
  sameJson(earlier.item.metadata, later.item.metadata) &&
  sameJson(earlier.item.observation_scopes, later.item.observation_scopes);

/**
 * The next batch: an unfinished one first (same jobs, same key) while any of its jobs is
 * pending, else the longest run from the front of the queue that shares one bank, where a
 * document repeats only as a mergeable append (so per-document order holds), within the limits.
 */
export const selectBatch = (context: RetainDeliveryContext, limits: BatchLimits = defaultBatchLimits): BatchChoice => {
  if (context.inFlight !== null) {
    const pending = new Set<string>();
    for (const chunk of context.pending) for (const job of chunk) pending.add(job.jobId);
    const open = context.inFlight.jobIds.filter((id) => pending.has(id));
    // A batch whose every job is answered already (by the process that sent it) holds nothing
    // back: choose afresh rather than re-announce an empty batch for good.
    if (open.length > 0) return { jobIds: open, adoptedOperationId: context.inFlight.operationId };
  }
  const chosen: string[] = [];
  const lastOfDocument = new Map<string, RetainJob>();
  let items = 0;
  let chars = 0;
  let bank: string | undefined;
  outer: for (const chunk of context.pending) {
    for (const job of chunk) {
      if (bank !== undefined && job.bankId !== bank) break outer;
      const previous = lastOfDocument.get(job.documentId);
      if (previous !== undefined && !canMerge(previous, job)) break outer;
      const addsItem = previous === undefined ? 1 : 0;
      const size = job.item.content.length;
      if (chosen.length > 0 && (items + addsItem > limits.maxItems || chars + size > limits.maxContentChars)) break outer;
      bank = job.bankId;
      chosen.push(job.jobId);
      lastOfDocument.set(job.documentId, job);
      items += addsItem;
      chars += size;
    }
  }
  return { jobIds: chosen };
};

const itemOf = (job: RetainJob): RetainItem => ({ ...job.item, document_id: job.documentId, update_mode: job.updateMode });

/** The request items for jobs (in queue order): mergeable appends to a document become one item. */
export const requestItems = (jobs: readonly RetainJob[]): RetainItem[] => {
  const items: RetainItem[] = [];
  const indexOfDocument = new Map<string, { index: number; last: RetainJob }>();
  for (const job of jobs) {
    const seen = indexOfDocument.get(job.documentId);
    const target = seen === undefined ? undefined : items[seen.index];
    if (seen !== undefined && target !== undefined && canMerge(seen.last, job)) {
      const entities = [...(target.entities ?? []), ...(job.item.entities ?? [])];
      items[seen.index] = {
        ...target,
        content: `${target.content}\n${job.item.content}`,
        ...(entities.length > 0 ? { entities } : {}),
      };
      indexOfDocument.set(job.documentId, { index: seen.index, last: job });
      continue;
    }
    indexOfDocument.set(job.documentId, { index: items.length, last: job });
    items.push(itemOf(job));
  }
  return items;
};
