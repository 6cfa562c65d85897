/**
 * Ranked search per bank. An index is built on first use (or warmed in the background after
 * start-up) and then follows the store incrementally: facts added by a mutation are added,
 * removed ones removed. Ranking is the pipeline in ranker.ts.
 */
import type { FactRecord } from '../store/model.js';
import type { ServerStore } from '../store/store.js';
import { attributionOf } from './attribution.js';
import { FieldIndex, type IndexedDocument } from './fieldIndex.js';
import { rank, type Ranking, type Stage } from './ranker.js';
import { loadWordNet } from './wordnet.js';

export interface SearchHit {
  readonly fact: FactRecord;
  /** BM25F score after every stage, relative within a query. */
  readonly score: number;
  /** confidence x score / best score: 0-1, comparable across queries. */
  readonly final: number;
  /** The stage that first found this fact. */
  readonly stage: Stage;
}

export interface SearchResult {
  readonly hits: readonly SearchHit[];
  /** Share of the query's information the best hit covers (0-1). */
  readonly confidence: number;
  readonly terms: Ranking['terms'];
  /** The bank's participants the query names, and the attribution factor in the confidence. */
  readonly participants: Ranking['participants'];
  readonly attributed: number;
}

export interface SearchOptions {
  /** Epoch ms that anchors relative dates in the query ("last week"). */
  readonly now?: number;
  /** false leaves observations out before scoring (a caller that does not want them). */
  readonly observations?: boolean;
  /**
   * Names `accept` exactly (the types, states and tags it keeps): searches with one key share
   * `accept`'s verdicts per memory, so a repeated filter is asked only about new memories.
   */
  readonly acceptKey?: string;
}

export interface SearchIndexes {
  /** Facts matching `query`, best first, restricted to those `accept` keeps, at most `limit`. */
  search(bankId: string, query: string, accept: (fact: FactRecord) => boolean, limit: number, options?: SearchOptions): SearchResult;
  /** Builds every bank's index now, one bank per event-loop turn. */
  warm(): Promise<void>;
  close(): void;
}

/** Neighbours share a thread: the context names the session, else the document does. */
export const indexedDocument = (f: FactRecord): IndexedDocument => {
  const at = Date.parse(f.mentioned_at ?? f.created_at);
  return {
    id: f.id,
    text: f.text,
    context: f.context,
    entities: f.entities?.map((e) => e.text),
    thread: f.fact_type === 'observation' ? undefined : (f.context ?? (f.document_id === null ? undefined : `document:${f.document_id}`)),
    order: Number.isNaN(at) ? undefined : at,
    // An observation quotes its facts: counting it would make their words look common.
    derived: f.fact_type === 'observation',
    // "Priya: ..." is something Priya said (attribution.ts); an observation is nobody's line.
    ...(f.fact_type === 'observation' ? {} : attributionOf(f.text)),
  };
};

export const searchableText = (f: FactRecord): string => [f.text, f.context ?? '', ...(f.entities ?? []).map((e) => e.text)].join('\n');

export const createSearchIndexes = (store: ServerStore): SearchIndexes => {
  const indexes = new Map<string, FieldIndex>();
  // Per bank, per accept key: verdicts by document number, valid for one index generation.
  const verdictCaches = new Map<string, Map<string, { generation: number; verdicts: Uint8Array }>>();
  let closed = false;

  /** At most this many filters per bank keep verdicts (a session uses one or two). */
  const MAX_FILTERS = 16;
  const verdictsFor = (bankId: string, index: FieldIndex, key: string): Uint8Array => {
    let byKey = verdictCaches.get(bankId);
    if (byKey === undefined) {
      byKey = new Map();
      verdictCaches.set(bankId, byKey);
    }
    let entry = byKey.get(key);
    if (entry === undefined || entry.generation !== index.generation) {
      if (entry === undefined && byKey.size >= MAX_FILTERS) byKey.clear();
      entry = { generation: index.generation, verdicts: new Uint8Array(Math.max(64, index.capacity * 2)) };
      byKey.set(key, entry);
    } else if (entry.verdicts.length < index.capacity) {
      const grown = new Uint8Array(index.capacity * 2);
      grown.set(entry.verdicts);
      entry.verdicts = grown;
    }
    return entry.verdicts;
  };

  const build = (bankId: string): FieldIndex | undefined => {
    const existing = indexes.get(bankId);
    if (existing !== undefined) return existing;
    const bank = store.bank(bankId);
    if (bank === undefined) return undefined;
    const index = new FieldIndex();
    for (const f of bank.facts.values()) index.add(indexedDocument(f));
    indexes.set(bankId, index);
    return index;
  };

  const unsubscribe = store.onFactChange((change) => {
    if (change.bankDeleted === true) {
      indexes.delete(change.bankId);
      verdictCaches.delete(change.bankId);
      return;
    }
    const index = indexes.get(change.bankId);
    if (index === undefined) return; // built from the store when first searched
    for (const f of change.removed) index.remove(f.id);
    for (const f of change.added) index.add(indexedDocument(f));
  });

  return {
    search: (bankId, query, accept, limit, options = {}) => {
      const index = build(bankId);
      const bank = store.bank(bankId);
      if (index === undefined || bank === undefined) return { hits: [], confidence: 0, terms: { keyword: [], expansion: [], feedback: [] }, participants: [], attributed: 1 };
      const acceptId = (id: string): boolean => {
        const fact = bank.facts.get(id);
        return fact !== undefined && accept(fact);
      };
      const textOf = (id: string): string => {
        const fact = bank.facts.get(id);
        return fact === undefined ? '' : searchableText(fact);
      };
      const { now, observations = true, acceptKey } = options;
      const ranking = rank({
        index,
        query,
        accept: acceptId,
        limit,
        textOf,
        derived: observations,
        ...(now === undefined ? {} : { now }),
        ...(acceptKey === undefined ? {} : { verdicts: verdictsFor(bankId, index, acceptKey) }),
      });
      const hits: SearchHit[] = [];
      for (const h of ranking.hits) {
        const fact = bank.facts.get(h.id);
        if (fact !== undefined) hits.push({ fact, score: h.score, final: h.final, stage: h.stage });
      }
      return { hits, confidence: ranking.confidence, terms: ranking.terms, participants: ranking.participants, attributed: ranking.attributed };
    },
    warm: async () => {
      // The lexical database first: the first recall should not pay for opening it.
      loadWordNet();
      for (const bankId of [...store.state.banks.keys()]) {
        // Yield first: the caller (start-up) must not wait for the first bank's build.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (closed) return;
        build(bankId);
      }
    },
    close: () => {
      closed = true;
      unsubscribe();
      indexes.clear();
      verdictCaches.clear();
    },
  };
};
