/**
 * The browse routes as they were before their indexes: each call read every stored record,
 * filtered and sorted it. Kept here as the oracle the indexed answers are held against
 * (browseIndex.test.ts); the code is the routes' own, moved out of them unchanged.
 */
import { matchesFlat } from '../../../src/server/recall/tagFilter.js';
import type { TagsMatch } from '../../../src/server/recall/tagFilter.js';
import { entityId, isLive } from '../../../src/server/features/entities.js';
import type { BankEntity, Cooccurrence } from '../../../src/server/features/entities.js';
import type { GraphFilter, MemoryFilter, Page } from '../../../src/server/features/browseQueries.js';
import type { DocumentRecord, FactRecord } from '../../../src/server/store/model.js';
import type { BankState } from '../../../src/server/store/state.js';

const seenAt = (fact: FactRecord): string => fact.mentioned_at ?? fact.created_at;

export const scanEntities = (bankId: string, bank: BankState | undefined): Map<string, BankEntity> => {
  const out = new Map<string, BankEntity>();
  for (const fact of bank?.facts.values() ?? []) {
    if (fact.fact_type === 'observation' || !isLive(fact)) continue;
    const at = seenAt(fact);
    for (const e of fact.entities ?? []) {
      const id = entityId(bankId, e.text);
      let entity = out.get(id);
      if (entity === undefined) {
        entity = { id, canonicalName: e.text, factIds: [], firstSeen: at, lastSeen: at };
        out.set(id, entity);
      }
      if (entity.factIds[entity.factIds.length - 1] !== fact.id) entity.factIds.push(fact.id);
      if (entity.firstSeen === undefined || at < entity.firstSeen) entity.firstSeen = at;
      if (entity.lastSeen === undefined || at > entity.lastSeen) entity.lastSeen = at;
    }
  }
  return out;
};

export const scanCooccurrences = (bankId: string, bank: BankState | undefined): Cooccurrence[] => {
  const pairs = new Map<string, Cooccurrence>();
  for (const fact of bank?.facts.values() ?? []) {
    if (fact.fact_type === 'observation' || !isLive(fact)) continue;
    const ids = [...new Set((fact.entities ?? []).map((e) => entityId(bankId, e.text)))].sort();
    const at = seenAt(fact);
    for (let i = 0; i < ids.length; i += 1) {
      for (let j = i + 1; j < ids.length; j += 1) {
        const source = ids[i] ?? '';
        const target = ids[j] ?? '';
        const key = `${source}|${target}`;
        const pair = pairs.get(key);
        if (pair === undefined) pairs.set(key, { source, target, count: 1, last: at });
        else {
          pair.count += 1;
          if (at > pair.last) pair.last = at;
        }
      }
    }
  }
  return [...pairs.values()].sort((a, b) => b.count - a.count || b.last.localeCompare(a.last));
};

const newestFirst = (a: FactRecord, b: FactRecord): number => {
  if (a.mentioned_at !== b.mentioned_at) {
    if (a.mentioned_at === undefined) return 1;
    if (b.mentioned_at === undefined) return -1;
    return b.mentioned_at.localeCompare(a.mentioned_at);
  }
  return b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id);
};

export const scanMemoryPage = (bankId: string, bank: BankState | undefined, filter: MemoryFilter, limit: number, offset: number): Page<FactRecord> => {
  const { type, documentId, entityId: entity, state, q, tags, tagsMatch } = filter;
  const mentioning = entity === undefined ? undefined : new Set(scanEntities(bankId, bank).get(entity)?.factIds ?? []);
  const all = [...(bank?.facts.values() ?? [])]
    .filter(
      (f) =>
        (type === undefined || f.fact_type === type) &&
        (documentId === undefined || f.document_id === documentId) &&
        (mentioning === undefined || mentioning.has(f.id)) &&
        (state === undefined || (f.state ?? 'valid') === state) &&
        (q === undefined || f.text.toLowerCase().includes(q)) &&
        matchesFlat(tags, tagsMatch, f.tags),
    )
    .sort(newestFirst);
  return { items: all.slice(offset, offset + limit), total: all.length };
};

export const scanGraphUnits = (bank: BankState | undefined, filter: GraphFilter, limit: number): Page<FactRecord> => {
  const { type, q, documentId, chunkId, tags, tagsMatch } = filter;
  const all = [...(bank?.facts.values() ?? [])].filter(
    (f) =>
      isLive(f) &&
      (type === undefined || f.fact_type === type) &&
      (q === undefined || f.text.toLowerCase().includes(q)) &&
      (documentId === undefined || f.document_id === documentId) &&
      (chunkId === undefined || f.chunk_id === chunkId) &&
      matchesFlat(tags, tagsMatch, f.tags),
  );
  const units = all.sort((a, b) => b.created_at.localeCompare(a.created_at)).slice(0, limit);
  return { items: units, total: all.length };
};

export const scanDocumentPage = (
  bank: BankState | undefined,
  q: string | undefined,
  tags: readonly string[] | undefined,
  tagsMatch: TagsMatch,
  limit: number,
  offset: number,
): Page<DocumentRecord> => {
  const all = [...(bank?.documents.values() ?? [])]
    .filter((d) => (q === undefined || d.id.toLowerCase().includes(q)) && matchesFlat(tags, tagsMatch, d.tags))
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.id.localeCompare(b.id));
  return { items: all.slice(offset, offset + limit), total: all.length };
};
