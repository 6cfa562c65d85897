/**
 * The browse routes' filters and paging over the bank's indexes (`factIndex.ts`,
 * `documentIndex.ts`): each filters the index's entries, which are in memory, and reads only
 * the records of the page it returns. Kept apart from the routes so a test can hold each answer
 * against the old scan of every stored record on generated banks.
 */
import { matchesFlat } from '../recall/tagFilter.js';
import type { TagsMatch } from '../recall/tagFilter.js';
import type { DocumentRecord, FactRecord } from '../store/model.js';
import type { BankState } from '../store/state.js';
import type { DocumentIndex } from './documentIndex.js';
import type { FactEntry, FactIndex } from './factIndex.js';

export interface Page<T> {
  readonly items: T[];
  readonly total: number;
}

export interface MemoryFilter {
  readonly type?: string | undefined;
  readonly documentId?: string | undefined;
  readonly entityId?: string | undefined;
  readonly state?: string | undefined;
  /** Lowercased. */
  readonly q?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly tagsMatch: TagsMatch;
}

const factsOf = (bank: BankState | undefined, entries: readonly FactEntry[]): FactRecord[] =>
  entries.flatMap((entry) => {
    const fact = bank?.facts.get(entry.id);
    return fact === undefined ? [] : [fact];
  });

/** `GET {b}/memories/list`: newest first, filtered, one page. */
export const memoryPage = async (bank: BankState | undefined, index: FactIndex | undefined, filter: MemoryFilter, limit: number, offset: number): Promise<Page<FactRecord>> => {
  const { type, documentId, entityId, state, q, tags, tagsMatch } = filter;
  // The text first (it may wait for the texts to be read), then the rest as the index is now.
  const ordered = q === undefined ? (index?.newestFirst() ?? []) : ((await index?.textMatches(q)) ?? []);
  const mentioning = entityId === undefined ? undefined : new Set(index?.entities().get(entityId)?.factIds ?? []);
  // The browser's poll (no filter) only slices; `tags_match=exact` alone is a filter (untagged only).
  const unfiltered = [type, documentId, entityId, state, tags].every((f) => f === undefined) && tagsMatch !== 'exact';
  const matched = unfiltered
    ? ordered
    : ordered.filter(
        (f) =>
          (type === undefined || f.type === type) &&
          (documentId === undefined || f.documentId === documentId) &&
          (mentioning === undefined || mentioning.has(f.id)) &&
          (state === undefined || (f.live ? 'valid' : 'invalidated') === state) &&
          matchesFlat(tags, tagsMatch, f.tags),
      );
  return { items: factsOf(bank, matched.slice(offset, offset + limit)), total: matched.length };
};

export interface GraphFilter {
  readonly type?: string | undefined;
  /** Lowercased. */
  readonly q?: string | undefined;
  readonly documentId?: string | undefined;
  readonly chunkId?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly tagsMatch: TagsMatch;
}

/** `GET {b}/graph`'s units: live facts, most recently created first, up to `limit`. */
export const graphUnits = async (bank: BankState | undefined, index: FactIndex | undefined, filter: GraphFilter, limit: number): Promise<Page<FactRecord>> => {
  const { type, q, documentId, chunkId, tags, tagsMatch } = filter;
  const holdsText = q === undefined ? undefined : await index?.holdsText(q);
  const matched = (index?.createdFirst() ?? []).filter(
    (f) =>
      f.live &&
      (type === undefined || f.type === type) &&
      (holdsText === undefined || holdsText(f)) &&
      (documentId === undefined || f.documentId === documentId) &&
      matchesFlat(tags, tagsMatch, f.tags) &&
      // No index holds chunks: this rare filter reads the candidates' facts.
      (chunkId === undefined || bank?.facts.get(f.id)?.chunk_id === chunkId),
  );
  return { items: factsOf(bank, matched.slice(0, limit)), total: matched.length };
};

/** `GET {b}/documents`: most recently updated first, filtered by id text and tags, one page. */
export const documentPage = (
  bank: BankState | undefined,
  index: DocumentIndex | undefined,
  q: string | undefined,
  tags: readonly string[] | undefined,
  tagsMatch: TagsMatch,
  limit: number,
  offset: number,
): Page<DocumentRecord> => {
  const matched = (index?.recentlyUpdated() ?? []).filter((d) => (q === undefined || d.id.toLowerCase().includes(q)) && matchesFlat(tags, tagsMatch, d.tags));
  const items = matched.slice(offset, offset + limit).flatMap((entry) => {
    const document = bank?.documents.get(entry.id);
    return document === undefined ? [] : [document];
  });
  return { items, total: matched.length };
};
