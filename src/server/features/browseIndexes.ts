/**
 * The browse routes' indexes of one server's banks (facts and documents), each made when a
 * route first asks for it and kept in step with the store's changes from then on. A bank's
 * indexes are dropped after `IDLE_MS` with no browse call: they hold some 40-50 MB at 100k
 * memories, which a server the browser is no longer open on should not keep (the browser's
 * poll keeps them while it is open). Route modules reach them through the store they already
 * hold, so wiring them needs no new field in the server context.
 */
import type { ServerStore } from '../store/store.js';
import { DocumentIndex } from './documentIndex.js';
import { FactIndex } from './factIndex.js';

export interface BrowseIndexes {
  /** The bank's fact index, or undefined if there is no such bank. */
  facts(bankId: string): FactIndex | undefined;
  /** The bank's document index, or undefined if there is no such bank. */
  documents(bankId: string): DocumentIndex | undefined;
}

const byStore = new WeakMap<ServerStore, BrowseIndexes>();

/** A bank's indexes are dropped after this long with no browse call (a rebuild is about 0.5 s at 100k). */
const IDLE_MS = 10 * 60_000;

const create = (store: ServerStore): BrowseIndexes => {
  const facts = new Map<string, FactIndex>();
  const documents = new Map<string, DocumentIndex>();
  const idle = new Map<string, NodeJS.Timeout>();
  const drop = (bankId: string): void => {
    facts.get(bankId)?.dispose();
    facts.delete(bankId);
    documents.delete(bankId);
    const timer = idle.get(bankId);
    if (timer !== undefined) clearTimeout(timer);
    idle.delete(bankId);
  };
  const used = (bankId: string): void => {
    const timer = idle.get(bankId);
    if (timer !== undefined) {
      timer.refresh();
      return;
    }
    const fresh = setTimeout(() => drop(bankId), IDLE_MS);
    // Never what keeps a process alive.
    fresh.unref();
    idle.set(bankId, fresh);
  };
  // Lives as long as the store: its listeners go with it.
  store.onFactChange((change) => {
    if (change.bankDeleted === true) {
      drop(change.bankId);
      return;
    }
    facts.get(change.bankId)?.apply(change);
    if (change.document !== undefined) documents.get(change.bankId)?.update(change.document);
  });
  return {
    facts: (bankId) => {
      const bank = store.bank(bankId);
      if (bank === undefined) return undefined;
      used(bankId);
      let index = facts.get(bankId);
      if (index === undefined) {
        index = new FactIndex(bankId, bank);
        facts.set(bankId, index);
      }
      return index;
    },
    documents: (bankId) => {
      const bank = store.bank(bankId);
      if (bank === undefined) return undefined;
      used(bankId);
      let index = documents.get(bankId);
      if (index === undefined) {
        index = new DocumentIndex(bank);
        documents.set(bankId, index);
      }
      return index;
    },
  };
};

export const browseIndexes = (store: ServerStore): BrowseIndexes => {
  let indexes = byStore.get(store);
  if (indexes === undefined) {
    indexes = create(store);
    byStore.set(store, indexes);
  }
  return indexes;
};
