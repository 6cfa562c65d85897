/**
 * BM25 search per bank over fact text. An index is built on first use (or warmed in the
 * background after start-up) and then follows the store incrementally: facts added by a
 * mutation are added, removed ones removed.
 */
import type { FactRecord } from '../store/model.js';
import type { ServerStore } from '../store/store.js';
import { Bm25Index } from './bm25.js';

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

export const createSearchIndexes = (store: ServerStore): SearchIndexes => {
  const indexes = new Map<string, Bm25Index>();
  let closed = false;

  const build = (bankId: string): Bm25Index | undefined => {
    const existing = indexes.get(bankId);
    if (existing !== undefined) return existing;
    const bank = store.bank(bankId);
    if (bank === undefined) return undefined;
    const index = new Bm25Index();
    for (const f of bank.facts.values()) index.add(f.id, f.text);
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
    for (const f of change.removed) index.remove(f.id);
    for (const f of change.added) index.add(f.id, f.text);
  });

  return {
    search: (bankId, query, accept, limit) => {
      const index = build(bankId);
      const bank = store.bank(bankId);
      if (index === undefined || bank === undefined) return [];
      const hits: SearchHit[] = [];
      const acceptId = (id: string): boolean => {
        const fact = bank.facts.get(id);
        return fact !== undefined && accept(fact);
      };
      for (const { id, score } of index.search(query, acceptId, limit)) {
        const fact = bank.facts.get(id);
        if (fact !== undefined) hits.push({ fact, score });
      }
      return hits;
    },
    warm: async () => {
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
    },
  };
};
