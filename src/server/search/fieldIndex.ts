/**
 * A compact BM25F inverted index: each document has a few weighted fields (the memory text,
 * its context, its entities); a term's frequencies in every field are length-normalised per
 * field, weighted and summed into one pseudo-frequency before BM25 saturation (k1 = 1.2), so
 * a word in the context counts, but less than in the text, and is not counted twice.
 * Documents get dense numbers. Everything is kept in typed arrays: a sealed part (postings of
 * every term as one CSR array, per-document columns) that compaction writes and a saved index
 * loads as it is (indexSegment.ts: views over the file's bytes, nothing rebuilt), and per term
 * a tail of postings for documents added since. Removal marks the number dead (and out of its
 * terms' document counts); compaction seals live documents once half the numbers are dead.
 * Scoring accumulates into reused Float64Arrays, so a query costs O(postings of its terms).
 *
 * Why not minisearch: on the same loaded 2-core machine with the same 100k synthetic facts,
 * minisearch took 20 s to index and 15 ms p50 / 760 ms p99 per search (its per-term Maps of
 * Maps); a flat index like this one 5.5 s and 0.34 ms p50; the targets are < 10 ms p50 recall
 * and < 2 s start-up.
 */
import { analyze, stemWord, wordsAndTerms } from './analyzer.js';
import { asksQuestion, earlierQuestions, opensWithYesOrNo } from './attribution.js';
import { relativeDayWords, relativeSpanWords } from './temporal.js';
import { boundedDistance } from '../../codecs/editDistance.js';
import { DocList } from './docList.js';
import { SpellingFilter } from './spellingFilter.js';
import { StoredIds } from './storedIds.js';
import { IdNumbers } from './idNumbers.js';
import { count, f64, i32, item, narrowed, u16, u8, type Counts } from './columns.js';
import type { DiskPostings, PostingRun } from './diskPostings.js';

const K1 = 1.2;
/** Shortest word a misspelling is looked for (shorter ones are too often another word). */
const SPELLED_MIN = 4;
const LETTERS = /^\p{L}+$/u;

/** Files a word under its first two letters and length, where a misspelling of it looks. */
const spellingBucket = (buckets: Map<string, string[]>, term: string): void => {
  if (term.length < SPELLED_MIN || !LETTERS.test(term)) return;
  const key = `${term.slice(0, 2)}${term.length}`;
  const list = buckets.get(key);
  if (list === undefined) buckets.set(key, [term]);
  else list.push(term);
};

/** Field order in the postings: text, context, entities. */
const FIELD_COUNT = 3;

/** A document's flags (`derivedDocs`): an observation; removed (its id is gone, its postings stay until compaction). */
const DERIVED = 1;
const REMOVED = 2;

export interface FieldWeights {
  readonly weight: readonly [number, number, number];
  readonly b: readonly [number, number, number];
  readonly k1: number;
}

// b 0.5 for the text: memories are short and their length says little about relevance; chosen on
// LoCoMo conversations 0-1 (0.4-0.5 tie there), checked on 2-4 (docs/recall.md).
export const DEFAULT_FIELDS: FieldWeights = { weight: [1, 0, 0.5], b: [0.5, 0.75, 0.5], k1: K1 };

export interface IndexedDocument {
  readonly id: string;
  readonly text: string;
  readonly context?: string | undefined;
  readonly entities?: readonly string[] | undefined;
  /** Documents of one thread (a session's chunks, or turns with one context) are neighbours. */
  readonly thread?: string | undefined;
  /** Position inside the thread (time, then chunk index). */
  readonly order?: number | undefined;
  /**
   * Text derived from other documents (an observation quoting its facts): searchable, but kept
   * out of the statistics (document counts, average lengths), so the quoted words do not look
   * twice as common as they are.
   */
  readonly derived?: boolean | undefined;
  /** Who said it, when the memory is a transcript line ("Priya: ..."; attribution.ts). */
  readonly speaker?: string | undefined;
  /** What the speaker says of themselves in it (attribution.ts `ownWords`). */
  readonly own?: string | undefined;
  /** What the speaker says to and of the one spoken to (attribution.ts `addressedWords`). */
  readonly addressed?: string | undefined;
  /**
   * What the caller files the document under, 1-255 (absent or 0: not known), read back by
   * `kindOf`: indexes.ts keeps a memory's fact type and state here, so a filter on those alone
   * is answered without asking the store about each candidate.
   */
  readonly kind?: number | undefined;
}

export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

/** Scores of one pass: document numbers touched and their scores (valid until the next pass). */
export interface Pass {
  /** Grows as later passes and stages touch more documents (reused by the next query's first pass). */
  readonly touched: DocList;
  readonly scores: Float64Array;
}

/** Per-term postings of the documents added since the last seal (sparse fields as Maps). */
/** A term's counts in the sparse fields for the documents added since the last seal. */
interface TailFields {
  context?: Map<number, number>;
  entities?: Map<number, number>;
}

// The postings added since the last seal lie in one pooled column, per term a chain of blocks:
// [next block or -1, capacity, used, then `capacity` pairs of (document, text count)]. A list of
// numbers per term for documents and one for counts was two heap arrays per term, grown by
// copying, for the collector to trace, and 7% of a 100k sync ingest's CPU in pushes. Blocks
// double up to a bound, so a query still reads runs; a term's first block holds two postings.
const BLOCK_NEXT = 0;
const BLOCK_CAPACITY = 1;
const BLOCK_USED = 2;
const BLOCK_HEADER = 3;
const FIRST_BLOCK = 2;
const LAST_BLOCK = 4096;

/** How a line's own (or addressed) words are kept: none (not a line), '' (no such words), ALL, or a string. */
const NOT_A_LINE = 0;
const NO_WORDS = 1;
const ALL_WORDS = 2;
const SOME_WORDS = 3;
/**
 * Bits of a line's `addressedKind` that say how its words are kept; the bits above say it asks a
 * question, it opens with a yes or a no, it asks a question before its last sentence.
 */
const WORDS_KEPT = 3;
const ASKS = 4;
const YES_OR_NO = 8;
const ASKS_EARLIER = 16;

/**
 * A sealed index: every array a loaded or compacted index starts from. Postings are CSR:
 * term t's documents are `postDocs[postStart[t] .. postStart[t + 1])`, ascending; its context
 * and entity frequencies likewise, only where non-zero. Threads are doubly linked lists of
 * document numbers in order (-1 ends them).
 */
export interface SealedIndex {
  readonly terms: readonly string[];
  readonly textDocs: Int32Array<ArrayBufferLike>;
  readonly liveDocs: Int32Array<ArrayBufferLike>;
  readonly postStart: Int32Array<ArrayBufferLike>;
  readonly postDocs: Int32Array<ArrayBufferLike>;
  readonly postTfs: Counts;
  /** A loaded index's postings left in its file: then `postDocs` and `postTfs` are empty and these are read instead. */
  readonly postingsOnDisk?: DiskPostings;
  readonly ctxStart: Int32Array<ArrayBufferLike>;
  readonly ctxDocs: Int32Array<ArrayBufferLike>;
  readonly ctxTfs: Counts;
  readonly entStart: Int32Array<ArrayBufferLike>;
  readonly entDocs: Int32Array<ArrayBufferLike>;
  readonly entTfs: Counts;
  /** Document ids by number; a loaded index's as the file holds them, until the store's strings are taken for them. */
  readonly ids: readonly string[] | StoredIds;
  /** FIELD_COUNT per document. */
  readonly lengths: Int32Array<ArrayBufferLike>;
  readonly orders: Float64Array<ArrayBufferLike>;
  readonly derived: Uint8Array<ArrayBufferLike>;
  /** Per document its kind (IndexedDocument `kind`; 0: not known). */
  readonly kinds: Uint8Array<ArrayBufferLike>;
  /**
   * Thread names by number, or a function that reads them: a loaded index has them read only
   * when a new document joins a thread or the index is sealed (a recall goes by number).
   */
  readonly threadNames: readonly string[] | (() => readonly string[]);
  /** Per document its thread (-1: none); per thread its first and last member. */
  readonly threadOf: Int32Array<ArrayBufferLike>;
  readonly threadHead: Int32Array<ArrayBufferLike>;
  readonly threadTail: Int32Array<ArrayBufferLike>;
  readonly prev: Int32Array<ArrayBufferLike>;
  readonly next: Int32Array<ArrayBufferLike>;
  /** Per document the terms it counts in (text terms first), CSR, and how many are text terms. */
  readonly docTermStart: Int32Array<ArrayBufferLike>;
  readonly docTermIds: Counts;
  readonly docTextTerms: Int32Array<ArrayBufferLike>;
  readonly speakerNames: readonly string[];
  /** Per document its speaker (-1: none). */
  readonly speakerOf: Int32Array<ArrayBufferLike>;
  readonly ownKind: Uint8Array<ArrayBufferLike>;
  readonly addressedKind: Uint8Array<ArrayBufferLike>;
  /** Documents whose own (addressed) words are some of its terms: [number, " a b "]. */
  readonly ownSome: readonly (readonly [number, string])[];
  readonly addressedSome: readonly (readonly [number, string])[];
  readonly statCount: number;
  readonly statLength: readonly number[];
}

/** Typed arrays over any buffer: a loaded index's columns are views over the file's bytes. */
type I32 = Int32Array<ArrayBufferLike>;
type F64 = Float64Array<ArrayBufferLike>;
type U8 = Uint8Array<ArrayBufferLike>;
type U16 = Uint16Array<ArrayBufferLike>;

const NO_TERMS: I32 = new Int32Array(0);
const NO_SPAN_WORDS: readonly string[] = [];
const NO_DAY_WORDS: readonly string[] = [];

const grownI32 = (a: I32, size: number, fill = 0): I32 => {
  if (a.length >= size) return a;
  const b = new Int32Array(Math.max(size, a.length * 2, 64));
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
};
const grownF64 = (a: F64, size: number): F64 => {
  if (a.length >= size) return a;
  const b = new Float64Array(Math.max(size, a.length * 2, 64));
  b.set(a);
  return b;
};
const grownU8 = (a: U8, size: number): U8 => {
  if (a.length >= size) return a;
  const b = new Uint8Array(Math.max(size, a.length * 2, 64));
  b.set(a);
  return b;
};
const grownU16 = (a: U16, size: number): U16 => {
  if (a.length >= size) return a;
  const b = new Uint16Array(Math.max(size, a.length * 2, 64));
  b.set(a);
  return b;
};

/**
 * `norms` holds a document's text length in its low 14 bits (LONG_TEXT: longer, read `lengths`)
 * and its flags above them, so the scoring loop reads one two-byte column a posting for both.
 */
const LONG_TEXT = 0x3fff;
const DERIVED_NORM = 0x4000;
const REMOVED_NORM = 0x8000;
/** A document's `norms` entry: its text length (capped) and its flags (DERIVED, REMOVED). */
const normOf = (textLength: number, flags: number): number =>
  Math.min(LONG_TEXT, textLength) | ((flags & DERIVED) !== 0 ? DERIVED_NORM : 0) | ((flags & REMOVED) !== 0 ? REMOVED_NORM : 0);
/** The sealed documents' `norms`, from their lengths and flags. */
const normsOf = (lengths: I32, derived: U8, count: number): Uint16Array => {
  const out = new Uint16Array(count);
  // A flag column shorter than the documents (a damaged file) reads as no flags, as the loop read it before.
  for (let n = 0; n < count; n += 1) out[n] = normOf(i32(lengths, n * FIELD_COUNT), derived[n] ?? 0);
  return out;
};


export class FieldIndex {
  // ---- terms: ids, document counts, sealed postings (CSR) and tails
  private termIds = new Map<string, number>();
  private terms: string[] = [];
  /** Words of four letters or more by their first two letters and length (built at the first misspelling): where a misspelt query word looks for the word it meant. */
  private byPrefix: Map<string, string[]> | undefined;
  /** Every term's spelling hash (made at the first ask): which slips of a query word the bank cannot have. */
  private spellings: SpellingFilter | undefined;
  private textDocs: I32 = new Int32Array(0);
  private liveDocs: I32 = new Int32Array(0);
  /** Terms that have sealed postings (ids below this). */
  private sealedTerms = 0;
  private postStart: I32 = new Int32Array(1);
  private postDocs: I32 = new Int32Array(0);
  private postTfs: Counts = new Int32Array(0);
  private diskPostings: DiskPostings | undefined = undefined;
  private ctxStart: I32 = new Int32Array(1);
  private ctxDocs: I32 = new Int32Array(0);
  private ctxTfs: Counts = new Int32Array(0);
  private entStart: I32 = new Int32Array(1);
  private entDocs: I32 = new Int32Array(0);
  private entTfs: Counts = new Int32Array(0);
  /** Per term its first and last block in `pool` (-1: no postings since the last seal). */
  private tailFirst: I32 = new Int32Array(0);
  private tailLast: I32 = new Int32Array(0);
  private pool: I32 = new Int32Array(0);
  private poolUsed = 0;
  /** Postings in `pool`. */
  private tailPostings = 0;
  private tailFields: (TailFields | undefined)[] = [];

  // ---- documents: number n has slot n of every column
  private ids: (string | undefined)[] = [];
  /** Id -> number, made when first needed (a loaded index answers searches without it). */
  private numbers: IdNumbers | undefined;
  private slots = 0;
  /** Documents below this number have their terms in the sealed CSR; the others in `tailTermIds`. */
  private sealedDocs = 0;
  private lengths: I32 = new Int32Array(0);
  /**
   * Each document's text length again with its flags (normOf), two bytes a document: the one
   * column the scoring loop reads per posting. `lengths` is 12 bytes a document (1.2 MB at 100k),
   * and with the CPU's caches cold, as they are between recalls, a random read of it per posting
   * was a third of scoring a query; this one is 200 KB, and reading the flags from it too saves
   * the loop a second random read (of `derivedDocs`) per posting.
   */
  private norms: U16 = new Uint16Array(0);
  private orders: F64 = new Float64Array(0);
  /**
   * Per document DERIVED (an observation), and REMOVED once its id is gone (also in `norms`, which
   * the scoring loop reads instead of the id column: a 100k-document index's ids are 400 KB of
   * pointers, and a random read of them per posting was most of a query's scoring with the CPU's
   * caches cold, as they are between recalls).
   */
  private derivedDocs: U8 = new Uint8Array(0);
  private kinds: U8 = new Uint8Array(0);
  private docTermStart: I32 = new Int32Array(1);
  private docTermIds: Counts = new Int32Array(0);
  /**
   * The term ids of the documents added since (number `sealedDocs + k`), back to back in one
   * column: document k's are at [tailTermFrom[k], tailTermTo[k]), from -1 once removed. One typed
   * array per document was a buffer outside the heap per document for the collector to track.
   */
  private tailTermIds: I32 = new Int32Array(0);
  private tailTermCount = 0;
  private tailTermFrom: I32 = new Int32Array(0);
  private tailTermTo: I32 = new Int32Array(0);
  private docTextTerms: I32 = new Int32Array(0);

  // ---- threads: names, and per thread a doubly linked list of its members in order
  private threadNameList: string[] | undefined = [];
  private threadNameSource: (() => readonly string[]) | undefined;
  private threadIds: Map<string, number> | undefined = new Map();
  private threadOfDoc: I32 = new Int32Array(0);
  private threadHead: I32 = new Int32Array(0);
  private threadTail: I32 = new Int32Array(0);
  private prev: I32 = new Int32Array(0);
  private next: I32 = new Int32Array(0);

  // ---- transcript lines: speaker, own and addressed words
  private speakerNames: string[] = [];
  private speakerIds = new Map<string, number>();
  private speakerOfDoc: I32 = new Int32Array(0);
  private ownKind: U8 = new Uint8Array(0);
  private addressedKind: U8 = new Uint8Array(0);
  private ownSome = new Map<number, string>();
  private addressedSome = new Map<number, string>();
  /** Live lines per speaker. */
  private lineCounts = new Map<string, number>();

  private liveCount = 0;
  /** Live documents that count in the statistics (not derived), and their field lengths. */
  private statCount = 0;
  private statLength = [0, 0, 0];
  private dead = 0;
  private compactions = 0;
  private scratch: F64 = new Float64Array(0);
  private readonly touchedScratch = new DocList();

  constructor(private readonly fields: FieldWeights = DEFAULT_FIELDS) {}

  /** An index that starts from sealed arrays as they are (a saved index, or compaction's output). */
  static fromSealed(sealed: SealedIndex, fields: FieldWeights = DEFAULT_FIELDS): FieldIndex {
    const index = new FieldIndex(fields);
    index.adopt(sealed);
    return index;
  }

  get size(): number {
    return this.liveCount;
  }

  has(id: string): boolean {
    return this.numberMap().has(id);
  }

  idOf(n: number): string | undefined {
    return this.ids[n];
  }

  /** The id of a document known to be live (one a search accepted); a dead one is a bug. */
  liveIdOf(n: number): string {
    const id = this.ids[n];
    if (id === undefined) throw new RangeError(`search index: document ${n} is not live`);
    return id;
  }

  numberOf(id: string): number | undefined {
    return this.numberMap().get(id);
  }

  private numberMap(): IdNumbers {
    this.numbers ??= new IdNumbers(this.ids);
    return this.numbers;
  }

  /** Thread names by number, read from their source the first time they are needed. */
  private get threadNames(): string[] {
    if (this.threadNameList === undefined) {
      this.threadNameList = [...(this.threadNameSource?.() ?? [])];
      this.threadNameSource = undefined;
    }
    return this.threadNameList;
  }

  private threadIdMap(): Map<string, number> {
    if (this.threadIds === undefined) this.threadIds = new Map(this.threadNames.map((name, t) => [name, t]));
    return this.threadIds;
  }

  private termId(term: string): number {
    let t = this.termIds.get(term);
    if (t === undefined) {
      t = this.terms.length;
      this.terms.push(term);
      this.termIds.set(term, t);
      if (this.byPrefix !== undefined) spellingBucket(this.byPrefix, term);
      this.spellings?.add(term);
      this.textDocs = grownI32(this.textDocs, t + 1);
      this.liveDocs = grownI32(this.liveDocs, t + 1);
      this.tailFirst = grownI32(this.tailFirst, t + 1, -1);
      this.tailLast = grownI32(this.tailLast, t + 1, -1);
    }
    return t;
  }

  /** Per term id, its count in the text of the document being added; zero between adds. */
  private tfScratch: I32 = new Int32Array(0);

  /**
   * The distinct term ids of `terms` in order of first occurrence (ids given in that order),
   * each one's count left in `tfScratch` for the caller to read and zero: a Map of counts per
   * document was a third of what indexing allocated.
   */
  private countIds(terms: readonly string[]): number[] {
    const ids: number[] = [];
    for (const term of terms) {
      const t = this.termId(term);
      this.tfScratch = grownI32(this.tfScratch, t + 1);
      const seen = i32(this.tfScratch, t);
      if (seen === 0) ids.push(t);
      this.tfScratch[t] = seen + 1;
    }
    return ids;
  }

  /** A new empty block of `capacity` postings at the pool's end. */
  private newBlock(capacity: number): number {
    const at = this.poolUsed;
    this.poolUsed += BLOCK_HEADER + 2 * capacity;
    this.pool = grownI32(this.pool, this.poolUsed);
    this.pool[at + BLOCK_NEXT] = -1;
    this.pool[at + BLOCK_CAPACITY] = capacity;
    this.pool[at + BLOCK_USED] = 0;
    return at;
  }

  /** Appends document n's posting (text count `tf`) to term t's since the last seal. */
  private appendPosting(t: number, n: number, tf: number): void {
    let block = i32(this.tailLast, t);
    if (block < 0) {
      block = this.newBlock(FIRST_BLOCK);
      this.tailFirst[t] = block;
      this.tailLast[t] = block;
    } else if (i32(this.pool, block + BLOCK_USED) === i32(this.pool, block + BLOCK_CAPACITY)) {
      const full = block;
      block = this.newBlock(Math.min(LAST_BLOCK, 2 * i32(this.pool, full + BLOCK_CAPACITY)));
      this.pool[full + BLOCK_NEXT] = block;
      this.tailLast[t] = block;
    }
    const pool = this.pool;
    const used = i32(pool, block + BLOCK_USED);
    pool[block + BLOCK_HEADER + 2 * used] = n;
    pool[block + BLOCK_HEADER + 2 * used + 1] = tf;
    pool[block + BLOCK_USED] = used + 1;
    this.tailPostings += 1;
  }

  /** The document of term t's last posting since the last seal, -1 if none. */
  private lastPostedDoc(t: number): number {
    const block = t < this.tailLast.length ? i32(this.tailLast, t) : -1;
    return block < 0 ? -1 : i32(this.pool, block + BLOCK_HEADER + 2 * (i32(this.pool, block + BLOCK_USED) - 1));
  }

  /** Slots every per-document column has room for (they grow together). */
  private docCapacity = 0;

  /** Grows every per-document column to hold document `n`. */
  private roomFor(n: number): void {
    if (n < this.docCapacity && this.lengths.length >= (n + 1) * FIELD_COUNT) return;
    this.lengths = grownI32(this.lengths, (n + 1) * FIELD_COUNT);
    this.norms = grownU16(this.norms, n + 1);
    this.orders = grownF64(this.orders, n + 1);
    this.derivedDocs = grownU8(this.derivedDocs, n + 1);
    this.kinds = grownU8(this.kinds, n + 1);
    this.docTextTerms = grownI32(this.docTextTerms, n + 1);
    this.threadOfDoc = grownI32(this.threadOfDoc, n + 1, -1);
    this.prev = grownI32(this.prev, n + 1, -1);
    this.next = grownI32(this.next, n + 1, -1);
    this.speakerOfDoc = grownI32(this.speakerOfDoc, n + 1, -1);
    this.ownKind = grownU8(this.ownKind, n + 1);
    this.addressedKind = grownU8(this.addressedKind, n + 1);
    this.docCapacity = Math.min(
      this.norms.length,
      this.orders.length,
      this.derivedDocs.length,
      this.kinds.length,
      this.docTextTerms.length,
      this.threadOfDoc.length,
      this.prev.length,
      this.next.length,
      this.speakerOfDoc.length,
      this.ownKind.length,
      this.addressedKind.length,
    );
  }

  add(doc: IndexedDocument): void {
    const numbers = this.numberMap();
    if (numbers.has(doc.id)) this.remove(doc.id);
    const n = this.slots;
    this.slots += 1;
    this.ids.push(doc.id);
    numbers.added(n);
    this.liveCount += 1;
    this.roomFor(n);
    this.kinds[n] = doc.kind ?? 0;
    const derived = doc.derived === true;
    this.derivedDocs[n] = derived ? DERIVED : 0;
    this.norms[n] = derived ? DERIVED_NORM : 0;
    if (!derived) this.statCount += 1;
    const { words: said, terms: saidTerms, spans, days } = wordsAndTerms(doc.text);
    const textIds = this.countIds(saidTerms);
    try {
      this.addCounted(doc, n, derived, days ? said : NO_DAY_WORDS, spans, saidTerms.length, textIds);
    } finally {
      for (const t of textIds) this.tfScratch[t] = 0;
    }
  }

  /** Appends term `t` to the term ids of the document being added (room made beforehand). */
  private countIn(t: number): void {
    this.tailTermIds[this.tailTermCount] = t;
    this.tailTermCount += 1;
  }

  /**
   * The rest of `add`, with the text's term ids counted (`countIds`). `said`: the text's words
   * when one may name a relative day (else none); `spans`: whether one may name a relative span.
   */
  private addCounted(doc: IndexedDocument, n: number, derived: boolean, said: readonly string[], spans: boolean, textLength: number, textIds: readonly number[]): void {
    const context = doc.context === undefined || doc.context.length === 0 ? undefined : countTerms(analyze(doc.context));
    // "yesterday" in a line dated 8 May also names "may 7": filed with the entities (the text's
    // length and words stay as written), so a question naming the date finds it.
    const dayWords = relativeDayWords(said, doc.order);
    // The analyzer says when the text holds no word a span needs (most texts): no second scan then.
    const spanWords = spans ? relativeSpanWords(doc.text, doc.order) : NO_SPAN_WORDS;
    // Most documents name no entity and no relative day: nothing to count then.
    const entities =
      doc.entities === undefined && dayWords.length === 0 && spanWords.length === 0
        ? undefined
        : countTerms([...(doc.entities === undefined ? [] : analyze(doc.entities.join(' '))), ...[...dayWords, ...spanWords].map(stemWord)]);
    const at = n * FIELD_COUNT;
    this.lengths[at] = textLength;
    this.norms[n] = normOf(textLength, u8(this.derivedDocs, n));
    this.lengths[at + 1] = context?.total ?? 0;
    this.lengths[at + 2] = entities?.total ?? 0;
    if (!derived) {
      this.statLength[0] = (this.statLength[0] ?? 0) + textLength;
      this.statLength[1] = (this.statLength[1] ?? 0) + (context?.total ?? 0);
      this.statLength[2] = (this.statLength[2] ?? 0) + (entities?.total ?? 0);
    }
    const k = n - this.sealedDocs;
    const from = this.tailTermCount;
    // Room for every term the document can count in: its text's, its context's and its entities'.
    this.tailTermIds = grownI32(this.tailTermIds, from + textIds.length + (context?.counts.size ?? 0) + (entities?.counts.size ?? 0));
    for (const t of textIds) {
      this.appendPosting(t, n, i32(this.tfScratch, t));
      if (!derived) {
        this.textDocs[t] = i32(this.textDocs, t) + 1;
        this.liveDocs[t] = i32(this.liveDocs, t) + 1;
        this.countIn(t);
      }
    }
    this.docTextTerms[n] = this.tailTermCount - from;
    if (context !== undefined) this.addSparse(context.counts, 'context', n, derived);
    if (entities !== undefined) this.addSparse(entities.counts, 'entities', n, derived);
    this.tailTermFrom = grownI32(this.tailTermFrom, k + 1);
    this.tailTermTo = grownI32(this.tailTermTo, k + 1);
    this.tailTermFrom[k] = from;
    this.tailTermTo[k] = this.tailTermCount;
    this.orders[n] = doc.order ?? n;
    // A derived document (an observation) quotes others: it is nobody's line.
    const speaker = derived ? undefined : doc.speaker;
    if (speaker !== undefined) {
      let s = this.speakerIds.get(speaker);
      if (s === undefined) {
        s = this.speakerNames.length;
        this.speakerNames.push(speaker);
        this.speakerIds.set(speaker, s);
      }
      this.speakerOfDoc[n] = s;
      const textTerms = textIds.map((t) => item(this.terms, t));
      this.setWords(n, ownString(doc.own ?? '', textTerms, speaker), this.ownKind, this.ownSome);
      this.setWords(n, ownString(doc.addressed ?? '', textTerms, speaker), this.addressedKind, this.addressedSome);
      if (asksQuestion(doc.text)) this.addressedKind[n] = u8(this.addressedKind, n) | ASKS;
      else if (earlierQuestions(doc.text).length > 0) this.addressedKind[n] = u8(this.addressedKind, n) | ASKS_EARLIER;
      if (opensWithYesOrNo(doc.text)) this.addressedKind[n] = u8(this.addressedKind, n) | YES_OR_NO;
      this.lineCounts.set(speaker, (this.lineCounts.get(speaker) ?? 0) + 1);
    }
    if (doc.thread !== undefined) this.joinThread(doc.thread, n);
  }

  /** Document n's counts in a sparse field (context or entities), after its text terms are in. */
  private addSparse(counts: Map<string, number>, field: 'context' | 'entities', n: number, derived: boolean): void {
    // `forEach`, not `for (const [term, tf] of ...)`: that allocated each entry (4 KB per
    // document when the text's counts were read so).
    counts.forEach((tf, term) => {
      const t = this.termId(term);
      // Not in the text (its count there is zero between adds) and not yet listed for n.
      if ((this.tfScratch[t] ?? 0) === 0 && this.lastPostedDoc(t) !== n) {
        this.appendPosting(t, n, 0);
        if (!derived) {
          this.liveDocs[t] = i32(this.liveDocs, t) + 1;
          this.countIn(t);
        }
      }
      let fields = this.tailFields[t];
      if (fields === undefined) {
        fields = {};
        this.tailFields[t] = fields;
      }
      (fields[field] ??= new Map()).set(n, tf);
    });
  }

  private setWords(n: number, words: string, kinds: U8, some: Map<number, string>): void {
    if (words === ALL) kinds[n] = ALL_WORDS;
    else if (words.length === 0) kinds[n] = NO_WORDS;
    else {
      kinds[n] = SOME_WORDS;
      some.set(n, words);
    }
  }

  /** Keeps each thread's members in order; appends are the common case. */
  private joinThread(thread: string, n: number): void {
    const ids = this.threadIdMap();
    let t = ids.get(thread);
    if (t === undefined) {
      t = this.threadNames.length;
      this.threadNames.push(thread);
      ids.set(thread, t);
      this.threadHead = grownI32(this.threadHead, t + 1, -1);
      this.threadTail = grownI32(this.threadTail, t + 1, -1);
      this.threadHead[t] = -1;
      this.threadTail[t] = -1;
    }
    this.threadOfDoc[n] = t;
    const order = f64(this.orders, n);
    // After the last member whose order is not above n's.
    let after = i32(this.threadTail, t);
    while (after >= 0 && f64(this.orders, after) > order) after = i32(this.prev, after);
    const before = after < 0 ? i32(this.threadHead, t) : i32(this.next, after);
    this.prev[n] = after;
    this.next[n] = before;
    if (after < 0) this.threadHead[t] = n;
    else this.next[after] = n;
    if (before < 0) this.threadTail[t] = n;
    else this.prev[before] = n;
  }

  /** The term ids document `n` counts in (text terms first). */
  private docTerms(n: number): Counts {
    if (n < this.sealedDocs) return this.docTermIds.subarray(i32(this.docTermStart, n), i32(this.docTermStart, n + 1));
    const k = n - this.sealedDocs;
    const from = k < this.tailTermFrom.length ? i32(this.tailTermFrom, k) : -1;
    return from < 0 ? NO_TERMS : this.tailTermIds.subarray(from, i32(this.tailTermTo, k));
  }

  remove(id: string): void {
    const numbers = this.numberMap();
    const n = numbers.get(id);
    if (n === undefined) return;
    // Clearing the id is what removes it from `numbers` (its slot stops matching).
    this.ids[n] = undefined;
    this.liveCount -= 1;
    const mine = this.docTerms(n);
    const textTerms = i32(this.docTextTerms, n);
    for (let i = 0; i < mine.length; i += 1) {
      const t = count(mine, i);
      this.liveDocs[t] = i32(this.liveDocs, t) - 1;
      if (i < textTerms) this.textDocs[t] = i32(this.textDocs, t) - 1;
    }
    if (n >= this.sealedDocs) this.tailTermFrom[n - this.sealedDocs] = -1;
    const s = i32(this.speakerOfDoc, n);
    if (s >= 0) {
      const speaker = item(this.speakerNames, s);
      const left = (this.lineCounts.get(speaker) ?? 1) - 1;
      if (left > 0) this.lineCounts.set(speaker, left);
      else this.lineCounts.delete(speaker);
    }
    if ((u8(this.derivedDocs, n) & DERIVED) === 0) {
      this.statCount -= 1;
      for (let f = 0; f < FIELD_COUNT; f += 1) this.statLength[f] = (this.statLength[f] ?? 0) - i32(this.lengths, n * FIELD_COUNT + f);
    }
    this.derivedDocs[n] = u8(this.derivedDocs, n) | REMOVED;
    this.norms[n] = u16(this.norms, n) | REMOVED_NORM;
    this.dead += 1;
    if (this.dead > 1024 && this.dead > this.liveCount) this.compact();
  }

  /** Renumbers live documents and drops dead postings: the live part, sealed. */
  private compact(): void {
    this.adopt(this.seal());
    this.compactions += 1;
  }

  /**
   * The live documents as sealed arrays, numbered in their current order (this index is not
   * changed): what compaction starts from and what a saved index holds.
   */
  seal(): SealedIndex {
    const remap = new Int32Array(this.slots).fill(-1);
    const ids: string[] = [];
    for (let n = 0; n < this.slots; n += 1) {
      const id = this.ids[n];
      if (id === undefined) continue;
      remap[n] = ids.length;
      ids.push(id);
    }
    const live = ids.length;
    const lengths = new Int32Array(live * FIELD_COUNT);
    const orders = new Float64Array(live);
    const derived = new Uint8Array(live);
    const kinds = new Uint8Array(live);
    const speakerOf = new Int32Array(live);
    const ownKind = new Uint8Array(live);
    const addressedKind = new Uint8Array(live);
    const docTextTerms = new Int32Array(live);
    const ownSome: [number, string][] = [];
    const addressedSome: [number, string][] = [];
    for (let n = 0; n < this.slots; n += 1) {
      const to = i32(remap, n);
      if (to < 0) continue;
      for (let f = 0; f < FIELD_COUNT; f += 1) lengths[to * FIELD_COUNT + f] = i32(this.lengths, n * FIELD_COUNT + f);
      orders[to] = f64(this.orders, n);
      derived[to] = u8(this.derivedDocs, n) & DERIVED;
      kinds[to] = u8(this.kinds, n);
      speakerOf[to] = i32(this.speakerOfDoc, n);
      ownKind[to] = u8(this.ownKind, n);
      addressedKind[to] = u8(this.addressedKind, n);
      docTextTerms[to] = i32(this.docTextTerms, n);
      // Most banks hold no transcript lines: no lookup per document then.
      const own = this.ownSome.size === 0 ? undefined : this.ownSome.get(n);
      if (own !== undefined) ownSome.push([to, own]);
      const addressed = this.addressedSome.size === 0 ? undefined : this.addressedSome.get(n);
      if (addressed !== undefined) addressedSome.push([to, addressed]);
    }

    // Postings: terms keep their order; a term with no live document is dropped. Written into
    // typed arrays sized beforehand (an upper bound: dead documents' postings are skipped), not
    // pushed to lists of numbers and copied: a save seals every bank's whole index.
    let postings = i32(this.postStart, this.sealedTerms);
    let ctxPostings = i32(this.ctxStart, this.sealedTerms);
    let entPostings = i32(this.entStart, this.sealedTerms);
    postings += this.tailPostings;
    for (const fields of this.tailFields) {
      if (fields === undefined) continue;
      ctxPostings += fields.context?.size ?? 0;
      entPostings += fields.entities?.size ?? 0;
    }
    const termRemap = new Int32Array(this.terms.length).fill(-1);
    const terms: string[] = [];
    const docsOut = new Int32Array(postings);
    const tfsOut = new Int32Array(postings);
    const ctxDocs = new Int32Array(ctxPostings);
    const ctxTfs = new Int32Array(ctxPostings);
    const entDocs = new Int32Array(entPostings);
    const entTfs = new Int32Array(entPostings);
    let p = 0;
    let pc = 0;
    let pe = 0;
    const postStart: number[] = [0];
    const ctxStart: number[] = [0];
    const entStart: number[] = [0];
    const textDocs: number[] = [];
    const liveDocs: number[] = [];
    let text = 0;
    let counted = 0;
    /** One posting of the term being sealed, renumbered (a dead document's is dropped). */
    const emit = (d: number, tf: number, ctx: number, ent: number): void => {
      const to = i32(remap, d);
      if (to < 0) return;
      docsOut[p] = to;
      tfsOut[p] = tf;
      p += 1;
      if (ctx !== 0) {
        ctxDocs[pc] = to;
        ctxTfs[pc] = ctx;
        pc += 1;
      }
      if (ent !== 0) {
        entDocs[pe] = to;
        entTfs[pe] = ent;
        pe += 1;
      }
      if (derived[to] === 1) return;
      counted += 1;
      if (tf > 0) text += 1;
    };
    for (let t = 0; t < this.terms.length; t += 1) {
      const before = p;
      text = 0;
      counted = 0;
      if (t < this.sealedTerms) {
        let c = i32(this.ctxStart, t);
        const cEnd = i32(this.ctxStart, t + 1);
        let e = i32(this.entStart, t);
        const eEnd = i32(this.entStart, t + 1);
        const { docs, tfs } = this.sealedPostings(t);
        for (let i = 0; i < docs.length; i += 1) {
          const d = i32(docs, i);
          let ctx = 0;
          let ent = 0;
          if (c < cEnd && this.ctxDocs[c] === d) ctx = count(this.ctxTfs, c++);
          if (e < eEnd && this.entDocs[e] === d) ent = count(this.entTfs, e++);
          emit(d, count(tfs, i), ctx, ent);
        }
      }
      const fields = this.tailFields[t];
      const pool = this.pool;
      for (let block = t < this.tailFirst.length ? i32(this.tailFirst, t) : -1; block >= 0; block = i32(pool, block + BLOCK_NEXT)) {
        const end = block + BLOCK_HEADER + 2 * i32(pool, block + BLOCK_USED);
        for (let at = block + BLOCK_HEADER; at < end; at += 2) {
          const d = i32(pool, at);
          emit(d, i32(pool, at + 1), fields?.context?.get(d) ?? 0, fields?.entities?.get(d) ?? 0);
        }
      }
      if (p === before) continue;
      termRemap[t] = terms.length;
      terms.push(item(this.terms, t));
      textDocs.push(text);
      liveDocs.push(counted);
      postStart.push(p);
      ctxStart.push(pc);
      entStart.push(pe);
    }

    const docTermStart = new Int32Array(live + 1);
    let docTermCount = 0;
    for (let n = 0; n < this.slots; n += 1) if (i32(remap, n) >= 0) docTermCount += this.docTerms(n).length;
    const docTermIds = new Int32Array(docTermCount);
    let q = 0;
    for (let n = 0; n < this.slots; n += 1) {
      const to = i32(remap, n);
      if (to < 0) continue;
      const mine = this.docTerms(n);
      for (let i = 0; i < mine.length; i += 1) docTermIds[q++] = i32(termRemap, count(mine, i));
      docTermStart[to + 1] = q;
    }

    // Threads: live members only, in their order; a thread with none is dropped.
    const threadNames: string[] = [];
    const threadHead: number[] = [];
    const threadTail: number[] = [];
    const threadOf = new Int32Array(live).fill(-1);
    const prev = new Int32Array(live).fill(-1);
    const next = new Int32Array(live).fill(-1);
    for (let t = 0; t < this.threadNames.length; t += 1) {
      let last = -1;
      let first = -1;
      const id = threadNames.length;
      for (let m = i32(this.threadHead, t); m >= 0; m = i32(this.next, m)) {
        const to = i32(remap, m);
        if (to < 0) continue;
        threadOf[to] = id;
        prev[to] = last;
        if (last >= 0) next[last] = to;
        else first = to;
        last = to;
      }
      if (first < 0) continue;
      threadNames.push(item(this.threadNames, t));
      threadHead.push(first);
      threadTail.push(last);
    }
    return {
      terms,
      textDocs: Int32Array.from(textDocs),
      liveDocs: Int32Array.from(liveDocs),
      postStart: Int32Array.from(postStart),
      postDocs: docsOut.slice(0, p),
      postTfs: narrowed(tfsOut.subarray(0, p)),
      ctxStart: Int32Array.from(ctxStart),
      ctxDocs: ctxDocs.slice(0, pc),
      ctxTfs: narrowed(ctxTfs.subarray(0, pc)),
      entStart: Int32Array.from(entStart),
      entDocs: entDocs.slice(0, pe),
      entTfs: narrowed(entTfs.subarray(0, pe)),
      ids,
      lengths,
      orders,
      derived,
      kinds,
      threadNames,
      threadOf,
      threadHead: Int32Array.from(threadHead),
      threadTail: Int32Array.from(threadTail),
      prev,
      next,
      docTermStart,
      docTermIds: narrowed(docTermIds),
      docTextTerms,
      speakerNames: [...this.speakerNames],
      speakerOf,
      ownKind,
      addressedKind,
      ownSome,
      addressedSome,
      statCount: this.statCount,
      statLength: [...this.statLength],
    };
  }

  /** Sealed term `t`'s documents and text frequencies: views over the arrays, or read from the saved file (valid until the next read). */
  private sealedPostings(t: number): PostingRun {
    const from = i32(this.postStart, t);
    const to = i32(this.postStart, t + 1);
    if (this.diskPostings !== undefined) return this.diskPostings.read(from, to);
    return { docs: this.postDocs.subarray(from, to), tfs: this.postTfs.subarray(from, to) };
  }

  /** Starts over from sealed arrays (used as they are: a loaded file's views stay views). */
  private adopt(s: SealedIndex): void {
    this.terms = [...s.terms];
    this.termIds = new Map(this.terms.map((term, t) => [term, t]));
    this.byPrefix = undefined;
    this.spellings = undefined;
    this.sealedTerms = this.terms.length;
    this.textDocs = s.textDocs;
    this.liveDocs = s.liveDocs;
    this.postStart = s.postStart;
    this.postDocs = s.postDocs;
    this.postTfs = s.postTfs;
    this.diskPostings = s.postingsOnDisk;
    this.ctxStart = s.ctxStart;
    this.ctxDocs = s.ctxDocs;
    this.ctxTfs = s.ctxTfs;
    this.entStart = s.entStart;
    this.entDocs = s.entDocs;
    this.entTfs = s.entTfs;
    this.tailFirst = new Int32Array(this.terms.length).fill(-1);
    this.tailLast = new Int32Array(this.terms.length).fill(-1);
    this.pool = new Int32Array(0);
    this.poolUsed = 0;
    this.tailPostings = 0;
    this.tailFields = [];
    this.ids = s.ids instanceof StoredIds ? s.ids.resolve(undefined) : [...s.ids];
    this.numbers = undefined;
    this.slots = this.ids.length;
    this.sealedDocs = this.slots;
    // The columns below are the sealed ones now: `roomFor` measures them again.
    this.docCapacity = 0;
    this.lengths = s.lengths;
    this.norms = normsOf(s.lengths, s.derived, this.slots);
    this.orders = s.orders;
    this.derivedDocs = s.derived;
    this.kinds = s.kinds;
    this.docTermStart = s.docTermStart;
    this.docTermIds = s.docTermIds;
    this.tailTermIds = new Int32Array(0);
    this.tailTermCount = 0;
    this.tailTermFrom = new Int32Array(0);
    this.tailTermTo = new Int32Array(0);
    this.docTextTerms = s.docTextTerms;
    if (typeof s.threadNames === 'function') {
      this.threadNameList = undefined;
      this.threadNameSource = s.threadNames;
    } else {
      this.threadNameList = [...s.threadNames];
      this.threadNameSource = undefined;
    }
    this.threadIds = undefined;
    this.threadOfDoc = s.threadOf;
    this.threadHead = s.threadHead;
    this.threadTail = s.threadTail;
    this.prev = s.prev;
    this.next = s.next;
    this.speakerNames = [...s.speakerNames];
    this.speakerIds = new Map(this.speakerNames.map((name, i) => [name, i]));
    this.speakerOfDoc = s.speakerOf;
    this.ownKind = s.ownKind;
    this.addressedKind = s.addressedKind;
    this.ownSome = new Map(s.ownSome.map(([n, w]) => [n, w]));
    this.addressedSome = new Map(s.addressedSome.map(([n, w]) => [n, w]));
    this.lineCounts = new Map();
    for (let n = 0; n < this.slots; n += 1) {
      const sp = i32(this.speakerOfDoc, n);
      if (sp < 0) continue;
      const name = item(this.speakerNames, sp);
      this.lineCounts.set(name, (this.lineCounts.get(name) ?? 0) + 1);
    }
    this.liveCount = this.slots;
    this.statCount = s.statCount;
    this.statLength = [...s.statLength];
    this.dead = 0;
  }

  /**
   * Inverse document frequency of a term, counted over the text field: a context shared by a
   * whole session ("conversation between Ann and Bob") would otherwise make the names in it
   * worthless wherever they occur. A term found only in other fields counts those instead;
   * a term no document has gets the highest value.
   */
  idf(term: string): number {
    const t = this.termIds.get(term);
    const text = t === undefined ? 0 : i32(this.textDocs, t);
    const df = t === undefined ? 0 : text > 0 ? text : i32(this.liveDocs, t);
    return Math.log(1 + (this.statCount - df + 0.5) / (df + 0.5));
  }

  /** false: the bank has no term of this spelling hash (spellingFilter.ts); true: it may. */
  mayHaveTerm(hash: number): boolean {
    if (this.spellings === undefined || this.spellings.full) this.spellings = SpellingFilter.of(this.terms);
    return this.spellings.mayHave(hash);
  }

  documentFrequency(term: string): number {
    const t = this.termIds.get(term);
    return t === undefined ? 0 : i32(this.liveDocs, t);
  }

  /**
   * The live words of the text nearest to a word the bank lacks, within `max` edits (a
   * transposition is one), and their distance: a typo in the query finds what it meant
   * ("recomend" -> "recommend"). Only words sharing its first two letters are read: a typo
   * there is rare, and the rest of the vocabulary is not scanned.
   */
  nearestSpellings(term: string, max: number): { readonly terms: readonly string[]; readonly distance: number } {
    let best = max + 1;
    let terms: string[] = [];
    if (term.length < SPELLED_MIN) return { terms, distance: best };
    // Built at the first misspelling, then kept up as words arrive.
    if (this.byPrefix === undefined) {
      const buckets = new Map<string, string[]>();
      for (const known of this.terms) spellingBucket(buckets, known);
      this.byPrefix = buckets;
    }
    const prefix = term.slice(0, 2);
    for (let length = term.length - max; length <= term.length + max; length += 1) {
      for (const candidate of this.byPrefix.get(`${prefix}${length}`) ?? []) {
        if (candidate === term) continue;
        const d = boundedDistance(term, candidate, Math.min(max, best));
        const t = this.termIds.get(candidate);
        if (d > max || d > best || t === undefined || this.textDocs[t] === 0) continue;
        if (d < best) {
          best = d;
          terms = [candidate];
        } else terms.push(candidate);
      }
    }
    return { terms, distance: best };
  }

  /**
   * Scores every document sharing a term with the query: sum over terms of
   * weight x idf x BM25F saturation. The returned arrays are reused by the next pass.
   */
  score(terms: readonly WeightedTerm[], into?: Pass, skipDerived = false): Pass {
    if (this.scratch.length < this.slots) this.scratch = new Float64Array(Math.max(this.slots, this.scratch.length * 2));
    const scores = into?.scores ?? this.scratch;
    const touched = into?.touched ?? this.touchedScratch;
    if (into === undefined) {
      // Only documents a pass touched have a score (the ranking's stages add to touched ones, or
      // touch what they add to), so clearing those empties the array: a fill of every slot wrote
      // 0.8 MB a query at 100k memories, 8 MB at 1M. Usually the ranking has cleared them already.
      const last = touched.view();
      for (let i = 0; i < last.length; i += 1) scores[i32(last, i)] = 0;
      touched.clear();
    }
    const live = Math.max(1, this.statCount);
    // A bank of derived documents only has no statistics of its own: lengths then count as average.
    // Each field's average read out one by one, not as a `.map` of them: that array held small
    // integers for a bank of derived documents only (all 1) and doubles for any other, two maps,
    // and V8 threw `score`'s optimised code away at the first bank of the other kind.
    const derivedOnly = this.statCount === 0;
    const stat = this.statLength;
    const { weight, b, k1 } = this.fields;
    // The hot loop reads its columns as Number(x): every slot read exists, Number() is free on a
    // number (a missing one would be NaN, as before), and it keeps the loads unboxed; a checked
    // call per read or `?? 0` made scoring 12-20% slower at 100k (score + topK, in-process).
    // Everything it reads is a local, and a posting's arithmetic is written out in the loop: the
    // same expressions, so the same scores to the last bit.
    const [w0, w1, w2] = weight;
    const [b0, b1, b2] = b;
    const avg0 = derivedOnly ? 1 : Math.max(1e-9, Number(stat[0]) / live);
    const avg1 = derivedOnly ? 1 : Math.max(1e-9, Number(stat[1]) / live);
    const avg2 = derivedOnly ? 1 : Math.max(1e-9, Number(stat[2]) / live);
    const lengths = this.lengths;
    const norms = this.norms;
    // A field's share of a posting without words in it is 0 when its length norm cannot be 0
    // (0 <= b < 1: the norm is at least 1 - b): then its length is not read.
    const zeroSafe1 = b1 >= 0 && b1 < 1;
    const zeroSafe2 = b2 >= 0 && b2 < 1;
    // A removed document (its id gone) is not scored, nor a derived one when they are skipped.
    const unscored = skipDerived ? REMOVED_NORM | DERIVED_NORM : REMOVED_NORM;
    /** What document d adds for one posting (0 when it is not scored), before the term's idf. */
    const saturated = (d: number, raw: number, ctx: number, ent: number): number => {
      const norm = Number(norms[d]);
      if ((norm & unscored) !== 0) return 0;
      const at = d * FIELD_COUNT;
      let tf = 0;
      if (raw !== 0) {
        const short = norm & LONG_TEXT;
        tf = (w0 * raw) / (1 - b0 + (b0 * (short === LONG_TEXT ? Number(lengths[at]) : short)) / avg0);
      }
      // Adding the 0 a field without the word gives leaves tf as it is (to the bit).
      if (w1 > 0 && (ctx !== 0 || !zeroSafe1)) tf += (w1 * ctx) / (1 - b1 + (b1 * Number(lengths[at + 1])) / avg1);
      if (w2 > 0 && (ent !== 0 || !zeroSafe2)) tf += (w2 * ent) / (1 - b2 + (b2 * Number(lengths[at + 2])) / avg2);
      return tf;
    };
    for (const { term, weight: w } of terms) {
      const t = this.termIds.get(term);
      if (t === undefined || w <= 0) continue;
      const idf = this.idf(term) * w;
      if (t < this.sealedTerms) {
        let c = i32(this.ctxStart, t);
        const cEnd = i32(this.ctxStart, t + 1);
        let e = i32(this.entStart, t);
        const eEnd = i32(this.entStart, t + 1);
        const { docs, tfs } = this.sealedPostings(t);
        const ctxDocs = this.ctxDocs;
        const ctxTfs = this.ctxTfs;
        const entDocs = this.entDocs;
        const entTfs = this.entTfs;
        for (let i = 0, end = docs.length; i < end; i += 1) {
          const d = Number(docs[i]);
          let ctx = 0;
          let ent = 0;
          if (c < cEnd && ctxDocs[c] === d) ctx = Number(ctxTfs[c++]);
          if (e < eEnd && entDocs[e] === d) ent = Number(entTfs[e++]);
          const tf = saturated(d, Number(tfs[i]), ctx, ent);
          // A term only in a zero-weight field adds nothing (and must not list the document twice).
          if (tf === 0) continue;
          const prior = Number(scores[d]);
          if (prior === 0) touched.push(d);
          scores[d] = prior + (idf * tf * (k1 + 1)) / (tf + k1);
        }
      }
      const context = this.tailFields[t]?.context;
      const entities = this.tailFields[t]?.entities;
      const pool = this.pool;
      for (let block = t < this.tailFirst.length ? Number(this.tailFirst[t]) : -1; block >= 0; block = Number(pool[block + BLOCK_NEXT])) {
        const end = block + BLOCK_HEADER + 2 * Number(pool[block + BLOCK_USED]);
        for (let at = block + BLOCK_HEADER; at < end; at += 2) {
          const d = Number(pool[at]);
          const tf = saturated(d, Number(pool[at + 1]), w1 > 0 ? (context?.get(d) ?? 0) : 0, w2 > 0 ? (entities?.get(d) ?? 0) : 0);
          if (tf === 0) continue;
          const prior = Number(scores[d]);
          if (prior === 0) touched.push(d);
          scores[d] = prior + (idf * tf * (k1 + 1)) / (tf + k1);
        }
      }
    }
    return { touched, scores };
  }

  /** Clears a pass's scores so the scratch array is all zeros again. */
  release(pass: Pass): void {
    const touched = pass.touched.view();
    for (let i = 0; i < touched.length; i += 1) pass.scores[i32(touched, i)] = 0;
  }

  isDerived(n: number): boolean {
    return ((this.derivedDocs[n] ?? 0) & DERIVED) !== 0;
  }

  /** Document n's kind (IndexedDocument `kind`), 0 if not known. */
  kindOf(n: number): number {
    return this.kinds[n] ?? 0;
  }

  /**
   * Files live document n under `kind` (1-255) when it was not known: a saved index of an older
   * format has none, and they are filled in as the caller learns them. A document keeps its kind
   * while its number lives (an edit re-adds it under a new number).
   */
  learnKind(n: number, kind: number): void {
    if (n < this.slots && this.ids[n] !== undefined && this.kinds[n] === 0) this.kinds[n] = kind;
  }

  /** Who said document `n`, if it is a transcript line. */
  speakerOf(n: number): string | undefined {
    const s = n < this.slots ? i32(this.speakerOfDoc, n) : -1;
    return s < 0 ? undefined : this.speakerNames[s];
  }

  /**
   * The index terms of what the speaker of line `n` says of themselves (undefined: not a line);
   * a line that is all its speaker's own words gives every term of its text, the name too.
   */
  ownTermsOf(n: number): ReadonlySet<string> | undefined {
    return this.termsOf(n, this.ownKind, this.ownSome);
  }

  /** The index terms of what the speaker of line `n` says to and of the one spoken to (undefined: not a line). */
  addressedTermsOf(n: number): ReadonlySet<string> | undefined {
    return this.termsOf(n, this.addressedKind, this.addressedSome);
  }

  private termsOf(n: number, kinds: U8, some: ReadonlyMap<number, string>): ReadonlySet<string> | undefined {
    const kind = n < this.slots ? u8(kinds, n) & WORDS_KEPT : NOT_A_LINE;
    if (kind === NOT_A_LINE) return undefined;
    if (kind === NO_WORDS) return new Set();
    if (kind === ALL_WORDS) {
      const mine = this.docTerms(n);
      const out = new Set<string>();
      for (let i = 0; i < i32(this.docTextTerms, n) && i < mine.length; i += 1) out.add(item(this.terms, count(mine, i)));
      return out;
    }
    return new Set((some.get(n) ?? '').split(' ').filter((t) => t.length > 0));
  }

  /** Whether line `n` speaks to the one spoken to ("you", their name): it has addressed words. */
  speaksToListener(n: number): boolean {
    const kind = n < this.slots ? u8(this.addressedKind, n) & WORDS_KEPT : NOT_A_LINE;
    return kind === ALL_WORDS || kind === SOME_WORDS;
  }

  /** Whether line `n` asks the one spoken to something (attribution.ts `asksQuestion`). */
  asks(n: number): boolean {
    return n < this.slots && (u8(this.addressedKind, n) & ASKS) !== 0;
  }

  /** Whether line `n`, which does not end on a question, asks one before (attribution.ts `earlierQuestions`). */
  asksEarlier(n: number): boolean {
    return n < this.slots && (u8(this.addressedKind, n) & ASKS_EARLIER) !== 0;
  }

  /** Whether line `n` opens with a yes or a no (attribution.ts `opensWithYesOrNo`): it answers the line before. */
  opensWithYesOrNo(n: number): boolean {
    return n < this.slots && (u8(this.addressedKind, n) & YES_OR_NO) !== 0;
  }

  /**
   * The distinct terms of live document `n`'s text, as `analyze(text)` gives them (in another
   * order): undefined for a derived document, whose terms are not kept.
   */
  textTermsOf(n: number): string[] | undefined {
    if (n >= this.slots || (u8(this.derivedDocs, n) & (DERIVED | REMOVED)) !== 0) return undefined;
    const mine = this.docTerms(n);
    const end = Math.min(i32(this.docTextTerms, n), mine.length);
    const out: string[] = [];
    for (let i = 0; i < end; i += 1) out.push(item(this.terms, count(mine, i)));
    return out;
  }

  /** Whether `term` is a word of document `n`'s text (a short line's words are read one by one). */
  hasTextTerm(n: number, term: string): boolean {
    const t = this.termIds.get(term);
    if (t === undefined || n >= this.slots) return false;
    const mine = this.docTerms(n);
    const end = Math.min(i32(this.docTextTerms, n), mine.length);
    for (let i = 0; i < end; i += 1) if (count(mine, i) === t) return true;
    return false;
  }

  /** How many index terms document `n`'s text has (its length in BM25's sense). */
  textLengthOf(n: number): number {
    return n < this.slots ? i32(this.lengths, n * FIELD_COUNT) : 0;
  }

  /** Whether document `n`'s text has a number among its terms ("£650", "5-7", "9am"). */
  hasNumber(n: number): boolean {
    if (n >= this.slots) return false;
    const mine = this.docTerms(n);
    const end = Math.min(i32(this.docTextTerms, n), mine.length);
    for (let i = 0; i < end; i += 1) if (/^\d/.test(item(this.terms, count(mine, i)))) return true;
    return false;
  }

  /** Whether line `n` has own words: its speaker speaks of themselves in it. */
  hasOwnWords(n: number): boolean {
    const kind = n < this.slots ? this.ownKind[n] : NOT_A_LINE;
    return kind === ALL_WORDS || kind === SOME_WORDS;
  }

  /** The speakers of the bank's live lines, with how many lines each. */
  get participants(): ReadonlyMap<string, number> {
    return this.lineCounts;
  }

  /** The document's order value (its time, for facts). */
  orderOf(n: number): number | undefined {
    return n < this.slots ? this.orders[n] : undefined;
  }

  threadOf(n: number): string | undefined {
    const t = n < this.slots ? i32(this.threadOfDoc, n) : -1;
    return t < 0 ? undefined : this.threadNames[t];
  }

  /** The number of the document's thread, -1 if it has none (the ranking keys threads by it). */
  threadNumberOf(n: number): number {
    return n < this.slots ? i32(this.threadOfDoc, n) : -1;
  }

  /** Live and dead members of a thread, in order (callers skip the dead: `idOf` is undefined). */
  threadMembersOf(thread: string): readonly number[] {
    const t = this.threadIdMap().get(thread);
    return t === undefined ? [] : this.threadMembers(t);
  }

  /**
   * Members of thread number `t` (threadNumberOf), as threadMembersOf. By number, a recall needs
   * no map from every thread's name (100k entries at 100k one-item documents).
   */
  threadMembers(t: number): readonly number[] {
    const out: number[] = [];
    // Bounded by the head column, not the names: they may not have been read.
    if (t < 0 || t >= this.threadHead.length) return out;
    for (let m = i32(this.threadHead, t); m >= 0; m = i32(this.next, m)) out.push(m);
    return out;
  }

  /** Changes when documents are renumbered: per-number data kept outside is void then. */
  get generation(): number {
    return this.compactions;
  }

  /** Number of document slots, live or dead (an upper bound for per-document scratch arrays). */
  get capacity(): number {
    return this.slots;
  }

  /** The live document right after `n` in its thread if no further than `maxGap` away in order, else -1. */
  following(n: number, maxGap = Number.POSITIVE_INFINITY): number {
    if (n >= this.slots || i32(this.threadOfDoc, n) < 0) return -1;
    const at = f64(this.orders, n);
    for (let m = i32(this.next, n); m >= 0; m = i32(this.next, m)) {
      if (this.ids[m] === undefined) continue;
      return f64(this.orders, m) - at > maxGap ? -1 : m;
    }
    return -1;
  }

  /**
   * The live documents right before and after `n` in its thread, if no further than
   * `maxGap` away in order (time): turns of one conversation, not notes filed days apart
   * under the same context.
   */
  neighbours(n: number, span = 1, maxGap = Number.POSITIVE_INFINITY): number[] {
    if (n >= this.slots || i32(this.threadOfDoc, n) < 0) return [];
    const out: number[] = [];
    const at = f64(this.orders, n);
    for (const links of [this.prev, this.next]) {
      let found = 0;
      for (let m = i32(links, n); m >= 0 && found < span; m = i32(links, m)) {
        if (this.ids[m] === undefined) continue;
        if (Math.abs(f64(this.orders, m) - at) > maxGap) break;
        out.push(m);
        found += 1;
      }
    }
    return out;
  }
}

/** A line's own (or addressed) words are every term of its text (its speaker's name aside). */
const ALL = '*';

/** The distinct terms of a line's own (or addressed) words as " a b c " ('' when none, ALL when all its text's). */
const ownString = (own: string, textTerms: readonly string[], speaker: string): string => {
  const terms = new Set(analyze(own));
  if (terms.size === 0) return '';
  const label = new Set(analyze(speaker));
  for (const t of textTerms) if (!terms.has(t) && !label.has(t)) return ` ${[...terms].join(' ')} `;
  return ALL;
};

/** Term frequencies of a token list and its length. */
const countTerms = (terms: readonly string[]): { counts: Map<string, number>; total: number } => {
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return { counts, total: terms.length };
};
