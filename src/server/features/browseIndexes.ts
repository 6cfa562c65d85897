/**
 * The browse routes' indexes of one server's banks (facts and documents), each made when a
 * route first asks for it and kept in step with the store's changes from then on. A bank's
 * indexes are made in slices of the event loop (reading every fact of a 100k bank takes
 * 0.3-0.4 s, which would hold the agent's recalls): the writes that land meanwhile are kept
 * and applied once it is read, and every route asking meanwhile waits for the same build.
 * They are dropped after `IDLE_MS` with no browse call: about 38 MB at 100k memories, which a
 * server the browser is no longer open on should not keep (the browser's poll keeps them while
 * it is open). Route modules reach them through the store they already hold, so wiring them
 * needs no new field in the server context.
 */
import { runSliced, sliceTimer } from '../slices.js';
import type { SliceTimer } from '../slices.js';
import type { FactChange } from '../store/state.js';
import type { ServerStore } from '../store/store.js';
import { DocumentIndex } from './documentIndex.js';
import { FactIndex } from './factIndex.js';

export interface BrowseIndexes {
  /** The bank's fact index, or undefined if there is no such bank. */
  facts(bankId: string): Promise<FactIndex | undefined>;
  /** The bank's document index, or undefined if there is no such bank. */
  documents(bankId: string): Promise<DocumentIndex | undefined>;
}

/** A build under way: what it resolves to, and the writes to apply once it has read the bank. */
interface Building<I, W> {
  readonly ready: Promise<I>;
  readonly writes: W[];
}

/** A bank's indexes are dropped after this long with no browse call (a rebuild is about 0.5 s at 100k). */
const IDLE_MS = 10 * 60_000;

/** `slice` is how long a build runs between two turns of the event loop (tests make every step one). */
export const createBrowseIndexes = (store: ServerStore, slice: () => SliceTimer = sliceTimer): BrowseIndexes => {
  const facts = new Map<string, FactIndex>();
  const documents = new Map<string, DocumentIndex>();
  const factBuilds = new Map<string, Building<FactIndex, FactChange>>();
  const documentBuilds = new Map<string, Building<DocumentIndex, [string, boolean]>>();
  const idle = new Map<string, NodeJS.Timeout>();
  const drop = (bankId: string): void => {
    facts.get(bankId)?.dispose();
    facts.delete(bankId);
    documents.delete(bankId);
    // A build under way still answers the calls waiting for it, and is not kept.
    factBuilds.delete(bankId);
    documentBuilds.delete(bankId);
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
    factBuilds.get(change.bankId)?.writes.push(change);
    if (change.document === undefined) return;
    const present = store.bank(change.bankId)?.documents.has(change.document) === true;
    documents.get(change.bankId)?.update(change.document, present);
    documentBuilds.get(change.bankId)?.writes.push([change.document, present]);
  });

  /** The built index, the build under way, or a new build; kept once built unless dropped meanwhile. */
  const indexOf = <I, W>(
    bankId: string,
    built: Map<string, I>,
    builds: Map<string, Building<I, W>>,
    make: () => I,
    fill: (index: I) => Generator<undefined, void>,
    apply: (index: I, write: W) => void,
  ): Promise<I> => {
    used(bankId);
    const ready = built.get(bankId);
    if (ready !== undefined) return Promise.resolve(ready);
    const building = builds.get(bankId);
    if (building !== undefined) return building.ready;
    const index = make();
    const writes: W[] = [];
    const promise = runSliced(fill(index), slice()).then(() => {
      for (const write of writes) apply(index, write);
      if (builds.get(bankId)?.ready === promise) {
        builds.delete(bankId);
        built.set(bankId, index);
      }
      return index;
    });
    builds.set(bankId, { ready: promise, writes });
    // A failed read (damaged files) is not kept: the next call tries again.
    promise.catch(() => {
      if (builds.get(bankId)?.ready === promise) builds.delete(bankId);
    });
    return promise;
  };

  return {
    facts: async (bankId) => {
      const bank = store.bank(bankId);
      if (bank === undefined) return undefined;
      return indexOf(
        bankId,
        facts,
        factBuilds,
        () => new FactIndex(bankId, bank, slice),
        (index) => index.fill(),
        (index, change) => index.apply(change),
      );
    },
    documents: async (bankId) => {
      const bank = store.bank(bankId);
      if (bank === undefined) return undefined;
      return indexOf(
        bankId,
        documents,
        documentBuilds,
        () => new DocumentIndex(bank),
        (index) => index.fill(),
        (index, [id, present]) => index.update(id, present),
      );
    },
  };
};

const byStore = new WeakMap<ServerStore, BrowseIndexes>();

export const browseIndexes = (store: ServerStore): BrowseIndexes => {
  let indexes = byStore.get(store);
  if (indexes === undefined) {
    indexes = createBrowseIndexes(store);
    byStore.set(store, indexes);
  }
  return indexes;
};
