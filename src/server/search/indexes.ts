/**
 * Ranked search per bank. Every bank's index is ready before the server listens (`buildAll`):
 * taken from the saved index file when it matches (indexFile.ts; the log entries after its
 * position are applied to it), else built from the store. It then follows the store
 * incrementally: facts added by a mutation are added, removed ones removed, and a bank's first
 * facts make its index. No recall ever waits for a build. With a data dir the indexes are
 * saved beside every snapshot. Ranking is the pipeline in ranker.ts.
 *
 * Facts a commit adds are indexed in slices (`slices.ts`), not inside the commit: a retain of
 * megabytes is hundreds of facts to analyse, and another bank's recall must not wait for them.
 * A bank's changes wait in order in its own queue; a search (or a save) of that bank first
 * takes in whatever is still queued, so a recall after an acknowledged retain sees it.
 */
import { crc32 } from 'node:zlib';
import type { FactHead, FactRecord } from '../store/model.js';
import type { FactType } from '../../wire/hindsight.js';
import type { ServerStore } from '../store/store.js';
import { analyze } from './analyzer.js';
import { asksQuestion, attributionOf } from './attribution.js';
import { FieldIndex, type IndexedDocument, type SealedIndex } from './fieldIndex.js';
import { StoredIds } from './storedIds.js';
import { encodeIndexFile, writeIndexFile, type SavedIndexes } from './indexFile.js';
import type { PostingsFile } from './diskPostings.js';
import { rank, type DocumentFilter, type Ranking, type Stage } from './ranker.js';
import { loadWordNet } from './wordnet.js';
import { sliceTimer, yieldToLoop } from '../slices.js';
import { objectList } from './objectList.js';

export interface SearchHit {
  readonly id: string;
  /** Read when first asked for: a stored fact past the caller's token budget is never read. */
  readonly fact: FactRecord;
  /** The fact's type, from its head: a caller sorting hits by type reads no stored fact. */
  readonly factType: FactType;
  /** BM25F score after every stage, relative within a query. */
  readonly score: number;
  /** confidence x score / best score: 0-1, comparable across queries. */
  readonly final: number;
  /** The stage that first found this fact. */
  readonly stage: Stage;
}

/**
 * A hit whose fact is read when first asked for. A class, not an object literal with a getter:
 * a recall makes hundreds of hits, and each literal carried its own accessor pair and closure.
 */
class LazyHit implements SearchHit {
  private read: FactRecord | undefined;

  constructor(
    private readonly facts: { get(id: string): FactRecord | undefined; head(id: string): FactHead | undefined },
    readonly id: string,
    /** The memory's kind in the index (KIND_TYPES), 0 when the index does not know it. */
    private readonly kind: number,
    readonly score: number,
    readonly final: number,
    readonly stage: Stage,
  ) {}

  get fact(): FactRecord {
    this.read ??= this.facts.get(this.id);
    if (this.read === undefined) throw new Error(`search: fact ${this.id} was deleted before its hit was read`);
    return this.read;
  }

  /**
   * From the index's kind when it has one (a fact's type never changes): a recall with
   * prefer_observations asks it of every hit, twice, and the store's head was a lookup of the
   * id in the fact table each time (1,200 a recall of the extension's request).
   */
  get factType(): FactType {
    return this.read?.fact_type ?? KIND_TYPES[(this.kind & ~INVALIDATED_KIND) - 1] ?? this.facts.head(this.id)?.fact_type ?? this.fact.fact_type;
  }
}

export interface SearchResult {
  readonly hits: readonly SearchHit[];
  /** Share of the query's information the best hit covers (0-1). */
  readonly confidence: number;
  readonly terms: Ranking['terms'];
  /** The bank's participants the query names, and the attribution factor in the confidence. */
  readonly participants: Ranking['participants'];
  readonly attributed: number;
  /** A search with a larger limit would begin with these same hits (Ranking['prefixOfLarger']). */
  readonly prefixOfLarger: boolean;
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
  /**
   * Set when `accept` keeps exactly the live (not invalidated) memories of these fact types and
   * reads nothing else (no tags): the index answers it from each memory's kind, not the store.
   */
  readonly liveOfTypes?: readonly FactType[];
}

export interface SearchIndexes {
  /** Facts matching `query`, best first, restricted to those `accept` keeps, at most `limit`. */
  search(bankId: string, query: string, accept: (fact: FactHead) => boolean, limit: number, options?: SearchOptions): SearchResult;
  /**
   * Makes every bank's index now (start-up, before the server listens): from `saved` where it
   * can be brought forward to the store's state, else from the store. Returns how many banks
   * the file did not hold whole: built from the store, or loaded without their memories' kinds
   * (a file of format 4 or older; the next save writes them).
   */
  buildAll(saved?: SavedIndexes): number;
  /** Writes the saved index file for the store's current state (no-op without a data dir). */
  save(): Promise<void>;
  close(): void;
}

/**
 * The saved index with its ids replaced by the store's own strings for them: the file's copies
 * would otherwise double every fact id in memory (6 MB at 100k memories), and a recall's
 * lookups of its hits in the store compare one string with itself instead of two equal ones.
 */
const withStoreIds = (sealed: SealedIndex, facts: ReadonlyMap<string, unknown> | undefined): SealedIndex => {
  if (sealed.ids instanceof StoredIds) return { ...sealed, ids: sealed.ids.resolve(facts === undefined ? undefined : () => facts.keys()) };
  if (facts === undefined) return sealed;
  const ids = [...sealed.ids];
  // Usually both list the facts in the same order: then no map of every id is made at start-up.
  let k = 0;
  for (const id of facts.keys()) {
    if (ids[k] !== id) break;
    ids[k] = id;
    k += 1;
  }
  if (k < ids.length) {
    const own = new Map<string, string>();
    for (const id of facts.keys()) own.set(id, id);
    for (; k < ids.length; k += 1) ids[k] = own.get(ids[k] ?? '') ?? ids[k] ?? '';
  }
  return { ...sealed, ids };
};

/**
 * A memory's kind in its index (fieldIndex.ts `kindOf`): 1 + its fact type's place here, plus
 * INVALIDATED_KIND once invalidated. Saved indexes hold these codes: a change to them must bump
 * the index file's format.
 */
const KIND_TYPES: readonly FactType[] = ['world', 'experience', 'observation'];
const INVALIDATED_KIND = 0x80;
const kindOfHead = (head: FactHead): number => (KIND_TYPES.indexOf(head.fact_type) + 1) | (head.state === 'invalidated' ? INVALIDATED_KIND : 0);

/** The kinds' bits (1 << kind) of the live memories of `types`. */
const liveKindsOf = (types: readonly FactType[]): number => types.reduce((bits, type) => bits | (1 << (KIND_TYPES.indexOf(type) + 1)), 0);

/**
 * Live memories of some fact types, by the memory's kind: the store's head is read only for one
 * the index does not know yet. A class (see ranker's DocumentFilter): topK calls it in its loop.
 */
class KindFilter implements DocumentFilter {
  constructor(
    private readonly index: FieldIndex,
    private readonly facts: { head(id: string): FactHead | undefined },
    private readonly liveKinds: number,
  ) {}

  accepts(n: number): boolean {
    let kind = this.index.kindOf(n);
    if (kind === 0) {
      const head = this.facts.head(this.index.liveIdOf(n));
      if (head === undefined) return false;
      kind = kindOfHead(head);
      this.index.learnKind(n, kind);
    }
    return (kind & INVALIDATED_KIND) === 0 && (this.liveKinds & (1 << kind)) !== 0;
  }
}

/** Neighbours share a thread: the context names the session, else the document does. */
const indexedDocument = (f: FactRecord): IndexedDocument => {
  const at = Date.parse(f.mentioned_at ?? f.created_at);
  return {
    id: f.id,
    kind: kindOfHead(f),
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

/** A saved index is only a head start: the store holds everything, so a failed save loses nothing. */
const saveFailed = (error: unknown): void => {
  console.error(`embedded server: saving the search index failed (${error instanceof Error ? error.message : String(error)}); the next start rebuilds it from the data`);
};

/** Closing a read-only file fails only when the descriptor is already gone; nothing is lost, so it is only said. */
const closeFailed = (error: unknown): void => {
  console.error(`embedded server: closing the saved search index file failed (${error instanceof Error ? error.message : String(error)})`);
};

export const searchableText = (f: FactRecord): string => [f.text, f.context ?? '', ...(f.entities ?? []).map((e) => e.text)].join('\n');

/**
 * What a saved index depends on besides the facts: the analyzer and the fact -> document
 * mapping, read from probe memories that exercise stemming, compounds, identifiers, chat
 * spellings, emoji, nicknames, relative days, speakers, questions and threads. A change to either gives
 * another fingerprint, and saved indexes are rebuilt. A change the probes do not reach must
 * bump INDEX_GENERATION.
 */
// 2: everyday clippings in the chat table ("physio", "meds", "uni"), which the probes do not say.
// 3: a final "y" after a consonant stems as "i" ("cry" meets "cried"), which the probes do not say.
// 4: an acronym used as a verb is the acronym ("DJed" -> "dj"), which the probes do not say.
// 5: a question word and a verb ending in "!" asks ("how was it!!!"), which the probes do not say.
// 6: a line that asks a question before its last sentence is marked ("What concert was it? The
//    advocacy event was ..."), which the probes do not say.
const INDEX_GENERATION = 6;
export const indexFingerprint = (): string => {
  const probe: FactRecord[] = [
    {
      id: 'p1',
      text: "Priya: I've been deploying the retainQueue on-call rotation; you said e-mail backups ran at 9pm yesterday and last week with kt",
      fact_type: 'world',
      context: 'session 1',
      document_id: 'd',
      chunk_id: null,
      tags: [],
      created_at: '2026-01-02T03:04:05+00:00',
      entities: [{ text: 'Priya', type: 'PERSON' }],
    },
    {
      id: 'p2',
      text: 'The tests of scripts/ship.sh took 12 minutes because NODE_OPTIONS set --max-old-space-size; libraries, queries, happier running. wat cfg TRDeadlockDetected, omg thx, see u tmrw nite for the bday 🎂 sooo coool 👨‍🍳 pls',
      fact_type: 'observation',
      document_id: null,
      chunk_id: null,
      tags: [],
      created_at: '2026-01-02T03:04:05+00:00',
      mentioned_at: '2026-01-03T00:00:00+00:00',
    },
  ];
  const shape = probe.map((f) => {
    const d = indexedDocument(f);
    // Whether a line asks something is read by the index itself (fieldIndex.ts `asks`).
    const asks = d.speaker === undefined ? null : asksQuestion(d.text);
    return [analyze(d.text), d.context === undefined ? null : analyze(d.context), d.entities ?? null, d.thread ?? null, d.order ?? null, d.derived ?? null, d.speaker ?? null, d.own ?? null, d.addressed ?? null, asks];
  });
  return `${INDEX_GENERATION}:${crc32(JSON.stringify(shape)).toString(16)}`;
};

export const createSearchIndexes = (store: ServerStore): SearchIndexes => {
  const fingerprint = indexFingerprint();
  const indexes = new Map<string, FieldIndex>();
  // Per bank, per accept key: verdicts by document number, valid for one index generation.
  const verdictCaches = new Map<string, Map<string, { generation: number; verdicts: Uint8Array }>>();

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

  /**
   * Kinds the index does not know (a saved index of format 4 or older has none), from the
   * store's heads: done before a save, so the file written holds every kind.
   */
  const learnKinds = (bankId: string, index: FieldIndex): void => {
    const facts = store.bank(bankId)?.facts;
    if (facts === undefined) return;
    for (let n = 0; n < index.capacity; n += 1) {
      if (index.kindOf(n) !== 0) continue;
      const id = index.idOf(n);
      const head = id === undefined ? undefined : facts.head(id);
      if (head !== undefined) index.learnKind(n, kindOfHead(head));
    }
  };

  /** Per bank, in commit order: facts to take out, then facts to add (`next`: how many added so far). */
  const queued = new Map<string, { removed: readonly FactRecord[] | undefined; added: readonly FactRecord[]; next: number }[]>();
  let draining = false;

  /** Applies the bank's queued changes; with a timer, stops when the slice is due (true: all applied). */
  const apply = (bankId: string, index: FieldIndex, slice?: { due(): boolean }): boolean => {
    const changes = queued.get(bankId);
    if (changes === undefined) return true;
    while (changes.length > 0) {
      const change = changes[0];
      if (change === undefined) break;
      if (change.removed !== undefined) for (const f of change.removed) index.remove(f.id);
      change.removed = undefined;
      while (change.next < change.added.length) {
        if (slice?.due() === true) return false;
        const fact = change.added[change.next];
        change.next += 1;
        if (fact !== undefined) index.add(indexedDocument(fact));
      }
      changes.shift();
    }
    queued.delete(bankId);
    return true;
  };

  const drain = async (): Promise<void> => {
    if (draining) return;
    draining = true;
    try {
      const slice = sliceTimer();
      for (;;) {
        const next = queued.keys().next();
        if (next.done === true) return;
        const bankId = next.value;
        const index = indexes.get(bankId);
        if (index === undefined) queued.delete(bankId);
        else if (!apply(bankId, index, slice)) {
          // Banks take turns: the one cut short goes to the back of the queue.
          const rest = queued.get(bankId);
          queued.delete(bankId);
          if (rest !== undefined) queued.set(bankId, rest);
          await yieldToLoop();
          slice.restart();
        }
      }
    } finally {
      draining = false;
    }
  };

  const enqueue = (bankId: string, removed: readonly FactRecord[], added: readonly FactRecord[]): void => {
    const changes = queued.get(bankId);
    const change = { removed, added, next: 0 };
    if (changes === undefined) queued.set(bankId, [change]);
    else changes.push(change);
    if (!draining) setImmediate(() => void drain());
  };

  /** The bank's index with every committed change in it (a search reads only this). */
  const current = (bankId: string): FieldIndex | undefined => {
    const index = build(bankId);
    if (index !== undefined) apply(bankId, index);
    return index;
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

  /** The saved index file the loaded banks read their postings from (indexFile.ts readParts). */
  let postingsFile: PostingsFile | undefined;
  // One write of the file at a time, in the order the states were sealed.
  let writing: Promise<void> = Promise.resolve();
  /** Seals every bank at this instant (the state of log position `nextSeq`), then writes the file. */
  const save = (nextSeq: number): Promise<void> | undefined => {
    const dir = store.dataDir;
    if (dir === undefined) return undefined;
    try {
      const sealed = new Map<string, SealedIndex>();
      for (const [bankId, index] of indexes) {
        apply(bankId, index);
        learnKinds(bankId, index);
        sealed.set(bankId, index.seal());
      }
      const bytes = encodeIndexFile(nextSeq, fingerprint, sealed);
      writing = writing.then(() => writeIndexFile(dir, bytes)).catch(saveFailed);
      return writing;
    } catch (error) {
      saveFailed(error);
      return undefined;
    }
  };
  const unsnapshot = store.onSnapshot(save);

  const unsubscribe = store.onFactChange((change) => {
    if (change.bankDeleted === true) {
      indexes.delete(change.bankId);
      queued.delete(change.bankId);
      verdictCaches.delete(change.bankId);
      return;
    }
    // A bank's first facts: the store already holds them, so its new index takes them all in.
    if (!indexes.has(change.bankId)) {
      indexes.set(change.bankId, new FieldIndex());
      enqueue(change.bankId, [], [...(store.bank(change.bankId)?.facts.values() ?? [])]);
      return;
    }
    enqueue(change.bankId, change.removed, change.added);
  });

  return {
    search: (bankId, query, accept, limit, options = {}) => {
      const index = current(bankId);
      const bank = store.bank(bankId);
      if (index === undefined || bank === undefined) return { hits: objectList(), confidence: 0, terms: { keyword: [], expansion: [], feedback: [] }, participants: [], attributed: 1, prefixOfLarger: true };
      // The head alone: a stored fact is not read to be filtered.
      const acceptId = (id: string): boolean => {
        const fact = bank.facts.head(id);
        return fact !== undefined && accept(fact);
      };
      const textOf = (id: string): string => {
        const fact = bank.facts.get(id);
        return fact === undefined ? '' : searchableText(fact);
      };
      // A memory with no context and no entities is searched by its text alone, whose terms the
      // index holds: the confidence reads them instead of analysing the text again (the best
      // hit's words were mostly new to the analyzer's memo: 0.1-0.2 ms a recall at 100k).
      // searchableText adds a line break after the text, which gives no term (analyzer tests).
      const termsOf = (n: number): readonly string[] => {
        const fact = bank.facts.get(index.liveIdOf(n));
        if (fact === undefined) return [];
        const own = (fact.context ?? '') === '' && (fact.entities ?? []).length === 0 ? index.textTermsOf(n) : undefined;
        return own ?? analyze(searchableText(fact));
      };
      const { now, observations = true, acceptKey, liveOfTypes } = options;
      const liveKinds = liveOfTypes === undefined ? 0 : liveKindsOf(liveOfTypes);
      const ranking = rank({
        index,
        query,
        accept: acceptId,
        ...(liveOfTypes === undefined ? {} : { acceptDocument: new KindFilter(index, bank.facts, liveKinds) }),
        limit,
        textOf,
        termsOf,
        derived: observations,
        ...(now === undefined ? {} : { now }),
        ...(acceptKey === undefined ? {} : { verdicts: verdictsFor(bankId, index, acceptKey) }),
      });
      // Every hit is a stored fact: `current` applied the bank's every change to the index, and a
      // removed fact's number is out of it (asking the store again cost 0.2 ms a recall at 100k).
      const hits = objectList<SearchHit>();
      for (const h of ranking.hits) hits.push(new LazyHit(bank.facts, h.id, h.kind, h.score, h.final, h.stage));
      return { hits, confidence: ranking.confidence, terms: ranking.terms, participants: ranking.participants, attributed: ranking.attributed, prefixOfLarger: ranking.prefixOfLarger };
    },
    buildAll: (saved) => {
      // The lexical database too: the first recall should not pay for opening it.
      loadWordNet();
      const replayed = store.takeReplayed();
      // Banks the file did not hold whole: built from the store, or loaded without kinds.
      const unsaved = new Set<string>();
      const position = store.logPosition();
      // Usable when the log still holds every entry after the saved position (replayed from the snapshot on).
      if (saved !== undefined && position !== undefined && saved.nextSeq >= store.loadReport.snapshotSeq && saved.nextSeq <= position) {
        // The loaded banks read their postings from the file until the indexes close.
        postingsFile = saved.postingsFile;
        for (const [bankId, sealed] of saved.banks) {
          indexes.set(bankId, FieldIndex.fromSealed(withStoreIds(sealed, store.bank(bankId)?.facts)));
          if (sealed.kinds.includes(0)) unsaved.add(bankId);
        }
        // Banks built from the store below already hold every later change.
        const fresh = new Set<string>();
        for (const { seq, change } of replayed) {
          if (seq < saved.nextSeq || fresh.has(change.bankId)) continue;
          if (change.bankDeleted === true) {
            indexes.delete(change.bankId);
            continue;
          }
          const index = indexes.get(change.bankId);
          if (index === undefined) {
            indexes.delete(change.bankId);
            build(change.bankId);
            fresh.add(change.bankId);
            continue;
          }
          for (const f of change.removed) index.remove(f.id);
          for (const f of change.added) index.add(indexedDocument(f));
        }
        for (const bankId of [...indexes.keys()]) if (store.bank(bankId) === undefined) indexes.delete(bankId);
      } else if (saved?.postingsFile !== undefined) {
        void saved.postingsFile.close().catch(closeFailed);
      }
      for (const bankId of store.state.banks.keys()) {
        if (indexes.has(bankId)) continue;
        build(bankId);
        unsaved.add(bankId);
      }
      return [...unsaved].filter((bankId) => indexes.has(bankId)).length;
    },
    save: async () => {
      const position = store.logPosition();
      if (position !== undefined) await save(position);
    },
    close: () => {
      unsnapshot();
      unsubscribe();
      indexes.clear();
      void postingsFile?.close().catch(closeFailed);
      postingsFile = undefined;
      queued.clear();
      verdictCaches.clear();
    },
  };
};
