/**
 * What the browse routes (memory list, entities, graph) read of a bank's facts, kept in memory
 * and in step with every write: per fact its type, state, tags, dates, document and entity
 * names, in the fact table's own order, plus the two orders those routes page through. Those
 * routes read every stored fact on each call before (0.33-0.44 s at 100k memories, and the
 * memory browser polls the list once a second); now a call filters these entries and reads
 * only the facts of the page it answers. Built from the bank on first use (one read of every
 * fact, in slices), so a server nobody browses never holds it.
 *
 * The answers are the old scans' own: the orders break ties by the table's order (`seq`), as
 * the old stable sorts over the table did, and the entities are derived in that order too.
 * Lowercased texts for the text filter are kept only while text searches come (a user typing
 * in the search box), then dropped: they are about as large as the rest (22 MB at 100k, 26 MB).
 */
import type { FactRecord, FactType } from '../store/model.js';
import type { BankState, FactChange } from '../store/state.js';
import { entityId } from './entities.js';
import type { BankEntity, Cooccurrence } from './entities.js';
import { runSliced, sliceTimer } from '../slices.js';
import type { SliceTimer } from '../slices.js';
import { Interned } from './interned.js';
import { SortedEntries } from './sortedEntries.js';

export interface FactEntry {
  readonly id: string;
  /** The fact's place in the table's order. */
  readonly seq: number;
  readonly type: FactType;
  /** Not invalidated. */
  readonly live: boolean;
  readonly tags: readonly string[];
  readonly mentionedAt: string | undefined;
  readonly createdAt: string;
  readonly documentId: string | null;
  /** The entity names the fact gives, as written, by number in `FactIndex.names`. */
  readonly names: readonly number[];
}

/** The memory list's order: `mentioned_at` desc with nulls last, then `created_at` desc, then id. */
export const newestFirst = (a: FactEntry, b: FactEntry): number => {
  if (a.mentionedAt !== b.mentionedAt) {
    if (a.mentionedAt === undefined) return 1;
    if (b.mentionedAt === undefined) return -1;
    return b.mentionedAt.localeCompare(a.mentionedAt) || a.seq - b.seq;
  }
  return b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id) || a.seq - b.seq;
};

/** The graph's order: `created_at` desc. */
export const createdFirst = (a: FactEntry, b: FactEntry): number => b.createdAt.localeCompare(a.createdAt) || a.seq - b.seq;

/** How long lowercased texts are kept after the last text search. */
const TEXTS_KEPT_MS = 120_000;

const NO_NAMES: readonly number[] = [];

export class FactIndex {
  private readonly entries = new Map<string, FactEntry>();
  private nextSeq = 0;
  private readonly newest = new SortedEntries<FactEntry>(newestFirst, (id) => this.entries.get(id));
  private readonly created = new SortedEntries<FactEntry>(createdFirst, (id) => this.entries.get(id));
  /** Tag lists and creation times are few and repeated: one copy each. */
  private readonly tagLists = new Interned<readonly string[]>((tags) => JSON.stringify(tags), (tags) => [...tags]);
  private readonly times = new Interned<string>((time) => time);
  private readonly nameNumbers = new Map<string, number>();
  /** Entity names as written, by number. */
  private readonly names: string[] = [];
  /** Each name's entity id (hashed once, when the name is first seen), by the name's number. */
  private readonly nameIds: string[] = [];
  /** Changes since the index was made: the derived entities are kept until the next one. */
  private version = 0;
  private entityCache: { readonly version: number; readonly entities: Map<string, BankEntity> } | undefined;
  private pairCache: { readonly version: number; readonly pairs: Cooccurrence[] } | undefined;
  private readonly entityIds = new Map<string, string>();
  /** Lowercased texts by `seq`: an array read is several times faster than a lookup by id (29 -> 9 ms a search at 100k). */
  private texts: (string | undefined)[] | undefined;
  private textsTimer: NodeJS.Timeout | undefined;
  /** The last text search: its text, the index's version and order it ran on, its matches. */
  private lastSearch: { readonly q: string; readonly version: number; readonly order: readonly FactEntry[]; readonly matched: readonly FactEntry[] } | undefined;
  /** The texts being read, and the writes to apply to them once read. */
  private textsReading: { readonly ready: Promise<(string | undefined)[]>; readonly writes: [number, string | undefined][] } | undefined;

  /** Empty until `fill` has run. */
  constructor(
    private readonly bankId: string,
    private readonly bank: BankState,
    /** How long a read of the texts runs between two turns of the event loop. */
    private readonly slice: () => SliceTimer = sliceTimer,
  ) {}

  /**
   * Reads every fact of the bank, one step each (run in slices: at 100k the reads take 0.3-0.4 s,
   * which would hold the agent's recalls). Writes that land meanwhile are given to `apply` after
   * it, in order: a fact it read in its old place and a write moved is moved again, so the
   * entries end in the table's order.
   */
  *fill(): Generator<undefined, void> {
    // The table's own id strings: a stored fact read back carries a copy of its id.
    for (const id of [...this.bank.facts.keys()]) {
      const fact = this.bank.facts.get(id);
      if (fact !== undefined) this.put(id, fact);
      yield undefined;
    }
    this.newest.reset(this.entries.values());
    this.created.reset(this.entries.values());
  }

  get size(): number {
    return this.entries.size;
  }

  /** Follows one change of the bank, as the table did. */
  apply(change: FactChange): void {
    this.version += 1;
    // A facts.put replaces in place; other mutations remove facts, then append theirs.
    if (change.inPlace !== true) {
      for (const fact of change.removed) {
        const seq = this.entries.get(fact.id)?.seq;
        this.entries.delete(fact.id);
        if (seq !== undefined) {
          if (this.texts !== undefined) this.texts[seq] = undefined;
          this.textsReading?.writes.push([seq, undefined]);
        }
        this.newest.touch(fact.id);
        this.created.touch(fact.id);
      }
    }
    for (const fact of change.added) {
      const seq = this.put(fact.id, fact);
      // Lowercased only while texts are held or being read (an import writes many facts).
      if (this.texts !== undefined || this.textsReading !== undefined) {
        const text = fact.text.toLowerCase();
        if (this.texts !== undefined) this.texts[seq] = text;
        this.textsReading?.writes.push([seq, text]);
      }
      this.newest.touch(fact.id);
      this.created.touch(fact.id);
    }
  }

  /** Every fact, newest first (the memory list's order). */
  newestFirst(): readonly FactEntry[] {
    return this.newest.entries();
  }

  /** Every fact, most recently created first (the graph's order). */
  createdFirst(): readonly FactEntry[] {
    return this.created.entries();
  }

  /**
   * Each fact's text lowercased, for the text filter: read from the bank at the first search, in
   * slices (writes landing meanwhile are applied after), and kept while searches come.
   */
  private lowerTexts(): Promise<readonly (string | undefined)[]> {
    if (this.texts !== undefined) {
      this.textsTimer?.refresh();
      return Promise.resolve(this.texts);
    }
    if (this.textsReading !== undefined) return this.textsReading.ready;
    const writes: [number, string | undefined][] = [];
    const ready = runSliced(this.readTexts(), this.slice()).then((texts) => {
      for (const [seq, text] of writes) texts[seq] = text;
      if (this.textsReading?.ready === ready) {
        this.textsReading = undefined;
        this.keepTexts(texts);
      }
      return texts;
    });
    this.textsReading = { ready, writes };
    // A failed read (damaged files) is not kept: the next search tries again.
    ready.catch(() => {
      if (this.textsReading?.ready === ready) this.textsReading = undefined;
    });
    return ready;
  }

  /**
   * The facts whose lowercased text holds `q`, newest first. The last search is kept until the
   * next write: paging through its results asks it again, and typing on in the search box asks
   * for a longer text, found among the last one's matches only.
   */
  async textMatches(q: string): Promise<readonly FactEntry[]> {
    const texts = await this.lowerTexts();
    const ordered = this.newestFirst();
    const last = this.lastSearch;
    const same = last !== undefined && last.version === this.version && last.order === ordered;
    if (same && last.q === q) return last.matched;
    const from = same && q.includes(last.q) ? last.matched : ordered;
    const matched = from.filter((f) => (texts[f.seq] ?? '').includes(q));
    this.lastSearch = { q, version: this.version, order: ordered, matched };
    return matched;
  }

  /** A test of an entry's text for `q`, for the graph's filter (its own order). */
  async holdsText(q: string): Promise<(entry: FactEntry) => boolean> {
    const texts = await this.lowerTexts();
    return (entry) => (texts[entry.seq] ?? '').includes(q);
  }

  private *readTexts(): Generator<undefined, (string | undefined)[]> {
    const texts = new Array<string | undefined>(this.nextSeq);
    for (const id of [...this.bank.facts.keys()]) {
      const fact = this.bank.facts.get(id);
      const seq = this.entries.get(id)?.seq;
      if (fact !== undefined && seq !== undefined) texts[seq] = fact.text.toLowerCase();
      yield undefined;
    }
    return texts;
  }

  private keepTexts(texts: (string | undefined)[]): void {
    this.texts = texts;
    this.textsTimer = setTimeout(() => {
      this.texts = undefined;
      this.textsTimer = undefined;
    }, TEXTS_KEPT_MS);
    // Never what keeps a process alive.
    this.textsTimer.unref();
  }

  /** Stops the timer that drops the texts (the index is dropped). */
  dispose(): void {
    if (this.textsTimer !== undefined) clearTimeout(this.textsTimer);
    this.texts = undefined;
    this.textsReading = undefined;
  }

  /**
   * The bank's entities, as the old scan derived them from the stored facts: one per case-insensitive
   * name, named as the first live raw fact in the table's order writes it, with the facts that
   * mention it in that order. Observations and invalidated facts mention nothing.
   */
  entities(): Map<string, BankEntity> {
    if (this.entityCache?.version === this.version) return this.entityCache.entities;
    const out = new Map<string, BankEntity>();
    for (const fact of this.entries.values()) {
      if (fact.type === 'observation' || !fact.live) continue;
      const at = fact.mentionedAt ?? fact.createdAt;
      for (const n of fact.names) {
        const name = this.names[n] ?? '';
        const id = this.nameIds[n] ?? '';
        let entity = out.get(id);
        if (entity === undefined) {
          entity = { id, canonicalName: name, factIds: [], firstSeen: at, lastSeen: at };
          out.set(id, entity);
        }
        if (entity.factIds[entity.factIds.length - 1] !== fact.id) entity.factIds.push(fact.id);
        if (entity.firstSeen === undefined || at < entity.firstSeen) entity.firstSeen = at;
        if (entity.lastSeen === undefined || at > entity.lastSeen) entity.lastSeen = at;
      }
    }
    this.entityCache = { version: this.version, entities: out };
    return out;
  }

  /** Pairs of entities named by the same fact, as the old scan counted them. */
  cooccurrences(): Cooccurrence[] {
    if (this.pairCache?.version === this.version) return this.pairCache.pairs;
    const pairs = new Map<string, Cooccurrence>();
    for (const fact of this.entries.values()) {
      if (fact.type === 'observation' || !fact.live) continue;
      const ids = [...new Set(fact.names.map((n) => this.nameIds[n] ?? ''))].sort();
      const at = fact.mentionedAt ?? fact.createdAt;
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
    const sorted = [...pairs.values()].sort((a, b) => b.count - a.count || b.last.localeCompare(a.last));
    this.pairCache = { version: this.version, pairs: sorted };
    return sorted;
  }

  /** Hashing a name was most of an entities call: each name is hashed once. */
  private entityIdOf(name: string): string {
    const key = name.toLowerCase();
    let id = this.entityIds.get(key);
    if (id === undefined) {
      id = entityId(this.bankId, key);
      this.entityIds.set(key, id);
    }
    return id;
  }

  /** Returns the fact's `seq`. */
  private put(id: string, fact: FactRecord): number {
    const old = this.entries.get(id);
    const seq = old?.seq ?? this.nextSeq++;
    this.entries.set(id, {
      id,
      seq,
      type: fact.fact_type,
      live: fact.state !== 'invalidated',
      tags: this.tagLists.of(fact.tags),
      mentionedAt: fact.mentioned_at,
      // One retain's facts share their creation time: one copy of it.
      createdAt: this.times.of(fact.created_at),
      documentId: fact.document_id,
      names: fact.entities === undefined || fact.entities.length === 0 ? NO_NAMES : fact.entities.map((e) => this.nameNumber(e.text)),
    });
    return seq;
  }

  private nameNumber(name: string): number {
    let n = this.nameNumbers.get(name);
    if (n === undefined) {
      n = this.names.push(name) - 1;
      this.nameIds.push(this.entityIdOf(name));
      this.nameNumbers.set(name, n);
    }
    return n;
  }
}
