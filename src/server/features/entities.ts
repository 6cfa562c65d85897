/**
 * The bank's entities, derived from its facts (each fact names its own entities, given at
 * retain or found by the deterministic extractor): one entity per case-insensitive name, with
 * the facts that mention it. Invalidated facts mention nothing, as upstream unlinks them.
 */
import { createHash } from 'node:crypto';
import type { FactRecord } from '../store/model.js';
import type { BankState } from '../store/state.js';

/** A stable UUID-shaped id per bank and name, so ids survive restarts without being stored. */
export const entityId = (bankId: string, name: string): string => {
  const hex = createHash('sha256').update(`${bankId}\u0000${name.toLowerCase()}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

export interface BankEntity {
  readonly id: string;
  readonly canonicalName: string;
  readonly factIds: string[];
  firstSeen: string | undefined;
  lastSeen: string | undefined;
}

export const isLive = (fact: Pick<FactRecord, 'state'>): boolean => fact.state !== 'invalidated';

const seenAt = (fact: FactRecord): string => fact.mentioned_at ?? fact.created_at;

/** Entities of raw facts (observations inherit theirs from their sources upstream, so are not counted twice). */
export const bankEntities = (bankId: string, bank: BankState | undefined): Map<string, BankEntity> => {
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

/** Most mentioned first, then most recently seen, then id (upstream's order). */
export const byMentions = (a: BankEntity, b: BankEntity): number =>
  b.factIds.length - a.factIds.length || (b.lastSeen ?? '').localeCompare(a.lastSeen ?? '') || a.id.localeCompare(b.id);

export interface Cooccurrence {
  readonly source: string;
  readonly target: string;
  count: number;
  last: string;
}

/** Pairs of entities named by the same fact, with how often and when last. */
export const cooccurrences = (bankId: string, bank: BankState | undefined): Cooccurrence[] => {
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
