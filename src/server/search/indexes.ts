/**
 * BM25 search per bank over fact text, with minisearch. An index is built on first use (or
 * warmed in the background after start-up) and then follows the store incrementally: facts
 * added by a mutation are added, removed ones discarded.
 */
import MiniSearch from 'minisearch';
import type { FactRecord } from '../store/model.js';
import type { ServerStore } from '../store/store.js';
import { STOP_WORDS } from './stopwords.js';

export interface SearchHit {
  readonly fact: FactRecord;
  /** BM25 score, relative within a query. */
  readonly score: number;
}

export interface SearchIndexes {
  /** Facts matching `query`, best first, restricted to those `accept` keeps, at most `limit`. */
  search(bankId: string, query: string, accept: (fact: FactRecord) => boolean, limit: number): SearchHit[];
  /** Builds every bank's index now, one bank per event-loop turn. */
  warm(): Promise<void>;
  close(): void;
}

interface Indexed {
  readonly id: string;
  readonly text: string;
}

const newIndex = (): MiniSearch<Indexed> =>
  new MiniSearch<Indexed>({
    fields: ['text'],
    storeFields: [],
    processTerm: (term) => {
      const lower = term.toLowerCase();
      return lower.length === 0 || STOP_WORDS.has(lower) ? null : lower;
    },
    // Lexical and deterministic: no fuzzy or prefix expansion.
    searchOptions: { combineWith: 'OR', prefix: false, fuzzy: false },
  });

export const createSearchIndexes = (store: ServerStore): SearchIndexes => {
  const indexes = new Map<string, MiniSearch<Indexed>>();

  const build = (bankId: string): MiniSearch<Indexed> | undefined => {
    const existing = indexes.get(bankId);
    if (existing !== undefined) return existing;
    const bank = store.bank(bankId);
    if (bank === undefined) return undefined;
    const index = newIndex();
    index.addAll([...bank.facts.values()].map((f) => ({ id: f.id, text: f.text })));
    indexes.set(bankId, index);
    return index;
  };

  const unsubscribe = store.onFactChange((change) => {
    if (change.bankDeleted === true) {
      indexes.delete(change.bankId);
      return;
    }
    const index = indexes.get(change.bankId);
    if (index === undefined) return; // built from the store when first searched
    for (const f of change.removed) if (index.has(f.id)) index.discard(f.id);
    for (const f of change.added) if (!index.has(f.id)) index.add({ id: f.id, text: f.text });
  });

  return {
    search: (bankId, query, accept, limit) => {
      const index = build(bankId);
      const bank = store.bank(bankId);
      if (index === undefined || bank === undefined) return [];
      const hits: SearchHit[] = [];
      for (const result of index.search(query)) {
        const fact = bank.facts.get(String(result.id));
        if (fact === undefined || !accept(fact)) continue;
        hits.push({ fact, score: result.score });
        if (hits.length >= limit) break;
      }
      return hits;
    },
    warm: async () => {
      for (const bankId of [...store.state.banks.keys()]) {
        build(bankId);
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    },
    close: () => {
      unsubscribe();
      indexes.clear();
    },
  };
};
