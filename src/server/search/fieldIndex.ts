/**
 * A compact BM25F inverted index: each document has a few weighted fields (the memory text,
 * its context, its entities); a term's frequencies in every field are length-normalised per
 * field, weighted and summed into one pseudo-frequency before BM25 saturation (k1 = 1.2), so
 * a word in the context counts, but less than in the text, and is not counted twice.
 * Documents get dense numbers; postings are parallel arrays; removal marks the number dead (and out of its terms' document counts) and
 * compaction runs once half the numbers are dead. Scoring accumulates into reused
 * Float64Arrays, so a query costs O(postings of its terms).
 *
 * Why not minisearch: on the same loaded 2-core machine with the same 100k synthetic facts,
 * minisearch took 20 s to index and 15 ms p50 / 760 ms p99 per search (its per-term Maps of
 * Maps); a flat index like this one 5.5 s and 0.34 ms p50; the targets are < 10 ms p50 recall
 * and < 2 s start-up.
 */
import { analyze } from './analyzer.js';
import { boundedDistance } from './editDistance.js';

export const K1 = 1.2;
/** Shortest word a misspelling is looked for (shorter ones are too often another word). */
export const SPELLED_MIN = 4;
const LETTERS = /^\p{L}+$/u;

/** Field order in the postings: text, context, entities. */
export const FIELD_COUNT = 3;

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
}

export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

interface Postings {
  readonly term: string;
  docs: number[];
  /** Text-field frequency per document (0 when the term is only in another field). */
  tfs: number[];
  /** Context and entity frequencies, kept sparse: most documents have neither field. */
  context?: Map<number, number>;
  entities?: Map<number, number>;
  /** Live documents with the term in their text field. */
  textDocs: number;
  /** Live documents with the term in any field (dead ones stay in `docs` until compaction). */
  liveDocs: number;
}

/** Scores of one pass: document numbers touched and their scores (valid until the next pass). */
export interface Pass {
  /** Grows as later passes and stages touch more documents. */
  readonly touched: number[];
  readonly scores: Float64Array;
}

export class FieldIndex {
  private ids: (string | undefined)[] = [];
  /** FIELD_COUNT lengths per document. */
  private lengths: number[] = [];
  private threads: (string | undefined)[] = [];
  private orders: number[] = [];
  private numbers = new Map<string, number>();
  private postings = new Map<string, Postings>();
  /** Words of four letters or more by their first two letters and length: where a misspelt query word looks for the word it meant. */
  private byPrefix = new Map<string, string[]>();
  private threadMembers = new Map<string, number[]>();
  /**
   * Per live document, the postings it is in, its text-field terms first, and how many of
   * those: removal takes it out of their counts, so idf stays right after deletes and edits.
   */
  private docPostings: (Postings[] | undefined)[] = [];
  private docTextTerms: number[] = [];
  private liveCount = 0;
  /** Live documents that count in the statistics (not derived), and their field lengths. */
  private statCount = 0;
  private statLength = [0, 0, 0];
  private derivedDocs: boolean[] = [];
  /**
   * Per document: its speaker and the terms of its own words, for transcript lines only: ALL
   * when they are every term of its text (most lines), else one string (" made bowl "), not a
   * set, so a transcript of 100k lines stays small.
   */
  private speakers: (string | undefined)[] = [];
  private ownTerms: (string | undefined)[] = [];
  /** Per line: the terms of its addressed words, as ownTerms ('' for most lines: they say no "you"). */
  private addressedTerms: (string | undefined)[] = [];
  /** Live lines per speaker. */
  private lineCounts = new Map<string, number>();
  private dead = 0;
  private compactions = 0;
  private scratch = new Float64Array(0);

  constructor(private readonly fields: FieldWeights = DEFAULT_FIELDS) {}

  get size(): number {
    return this.liveCount;
  }

  has(id: string): boolean {
    return this.numbers.has(id);
  }

  idOf(n: number): string | undefined {
    return this.ids[n];
  }

  numberOf(id: string): number | undefined {
    return this.numbers.get(id);
  }

  add(doc: IndexedDocument): void {
    if (this.numbers.has(doc.id)) this.remove(doc.id);
    const n = this.ids.length;
    this.ids.push(doc.id);
    this.numbers.set(doc.id, n);
    this.liveCount += 1;
    const derived = doc.derived === true;
    this.derivedDocs.push(derived);
    if (!derived) this.statCount += 1;
    const text = countTerms(analyze(doc.text));
    const context = doc.context === undefined || doc.context.length === 0 ? undefined : countTerms(analyze(doc.context));
    const entities = doc.entities === undefined || doc.entities.length === 0 ? undefined : countTerms(analyze(doc.entities.join(' ')));
    const lengths = [text.total, context?.total ?? 0, entities?.total ?? 0];
    lengths.forEach((l, f) => {
      this.lengths.push(l);
      if (!derived) this.statLength[f] = (this.statLength[f] ?? 0) + l;
    });
    const posting = (term: string): Postings => {
      let p = this.postings.get(term);
      if (p === undefined) {
        p = { term, docs: [], tfs: [], textDocs: 0, liveDocs: 0 };
        this.postings.set(term, p);
        if (term.length >= SPELLED_MIN && LETTERS.test(term)) {
          const key = `${term.slice(0, 2)}${term.length}`;
          const list = this.byPrefix.get(key);
          if (list === undefined) this.byPrefix.set(key, [term]);
          else list.push(term);
        }
      }
      return p;
    };
    const mine: Postings[] = [];
    for (const [term, tf] of text.counts) {
      const p = posting(term);
      p.docs.push(n);
      p.tfs.push(tf);
      if (!derived) {
        p.textDocs += 1;
        p.liveDocs += 1;
        mine.push(p);
      }
    }
    this.docTextTerms.push(mine.length);
    const sparse = (counts: Map<string, number> | undefined, field: 'context' | 'entities'): void => {
      if (counts === undefined) return;
      for (const [term, tf] of counts) {
        const p = posting(term);
        if (!text.counts.has(term) && p.docs[p.docs.length - 1] !== n) {
          p.docs.push(n);
          p.tfs.push(0);
          if (!derived) {
            p.liveDocs += 1;
            mine.push(p);
          }
        }
        (p[field] ??= new Map()).set(n, tf);
      }
    };
    sparse(context?.counts, 'context');
    sparse(entities?.counts, 'entities');
    this.docPostings.push(mine);
    this.threads.push(doc.thread);
    this.orders.push(doc.order ?? n);
    // A derived document (an observation) quotes others: it is nobody's line.
    const speaker = derived ? undefined : doc.speaker;
    this.speakers.push(speaker);
    this.ownTerms.push(speaker === undefined ? undefined : ownString(doc.own ?? '', text.counts, speaker));
    this.addressedTerms.push(speaker === undefined ? undefined : ownString(doc.addressed ?? '', text.counts, speaker));
    if (speaker !== undefined) this.lineCounts.set(speaker, (this.lineCounts.get(speaker) ?? 0) + 1);
    if (doc.thread !== undefined) this.joinThread(doc.thread, n);
  }

  /** Keeps each thread's members sorted by order; appends are the common case. */
  private joinThread(thread: string, n: number): void {
    let members = this.threadMembers.get(thread);
    if (members === undefined) {
      members = [];
      this.threadMembers.set(thread, members);
    }
    const order = this.orders[n] ?? 0;
    let i = members.length;
    while (i > 0 && (this.orders[members[i - 1] as number] ?? 0) > order) i -= 1;
    members.splice(i, 0, n);
  }

  remove(id: string): void {
    const n = this.numbers.get(id);
    if (n === undefined) return;
    this.numbers.delete(id);
    this.ids[n] = undefined;
    this.liveCount -= 1;
    const mine = this.docPostings[n] ?? [];
    const textTerms = this.docTextTerms[n] ?? 0;
    mine.forEach((p, i) => {
      p.liveDocs -= 1;
      if (i < textTerms) p.textDocs -= 1;
    });
    this.docPostings[n] = undefined;
    const speaker = this.speakers[n];
    if (speaker !== undefined) {
      const left = (this.lineCounts.get(speaker) ?? 1) - 1;
      if (left > 0) this.lineCounts.set(speaker, left);
      else this.lineCounts.delete(speaker);
    }
    if (this.derivedDocs[n] !== true) {
      this.statCount -= 1;
      for (let f = 0; f < FIELD_COUNT; f += 1) this.statLength[f] = (this.statLength[f] ?? 0) - (this.lengths[n * FIELD_COUNT + f] ?? 0);
    }
    this.dead += 1;
    if (this.dead > 1024 && this.dead > this.liveCount) this.compact();
  }

  /** Renumbers live documents and drops dead postings. */
  private compact(): void {
    const remap = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    const lengths: number[] = [];
    const threads: (string | undefined)[] = [];
    const orders: number[] = [];
    const docPostings: (Postings[] | undefined)[] = [];
    const docTextTerms: number[] = [];
    const derivedDocs: boolean[] = [];
    const speakers: (string | undefined)[] = [];
    const ownTerms: (string | undefined)[] = [];
    const addressedTerms: (string | undefined)[] = [];
    this.ids.forEach((id, n) => {
      if (id === undefined) return;
      remap[n] = ids.length;
      ids.push(id);
      derivedDocs.push(this.derivedDocs[n] === true);
      speakers.push(this.speakers[n]);
      ownTerms.push(this.ownTerms[n]);
      addressedTerms.push(this.addressedTerms[n]);
      docPostings.push(this.docPostings[n]);
      docTextTerms.push(this.docTextTerms[n] ?? 0);
      for (let f = 0; f < FIELD_COUNT; f += 1) lengths.push(this.lengths[n * FIELD_COUNT + f] ?? 0);
      threads.push(this.threads[n]);
      orders.push(this.orders[n] ?? 0);
    });
    for (const [term, p] of this.postings) {
      const docs: number[] = [];
      const tfs: number[] = [];
      let textDocs = 0;
      let liveDocs = 0;
      p.docs.forEach((d, i) => {
        const to = remap[d] ?? -1;
        if (to < 0) return;
        docs.push(to);
        const tf = p.tfs[i] ?? 0;
        tfs.push(tf);
        if (derivedDocs[to] === true) return;
        liveDocs += 1;
        if (tf > 0) textDocs += 1;
      });
      const moved = (m: Map<number, number> | undefined): Map<number, number> | undefined => {
        if (m === undefined) return undefined;
        const out = new Map<number, number>();
        for (const [d, tf] of m) if ((remap[d] ?? -1) >= 0) out.set(remap[d] as number, tf);
        return out.size === 0 ? undefined : out;
      };
      const context = moved(p.context);
      const entities = moved(p.entities);
      // Updated in place: live documents' lists of postings point at these objects.
      if (docs.length === 0) this.postings.delete(term);
      else {
        p.docs = docs;
        p.tfs = tfs;
        p.textDocs = textDocs;
        p.liveDocs = liveDocs;
        if (context === undefined) delete p.context;
        else p.context = context;
        if (entities === undefined) delete p.entities;
        else p.entities = entities;
      }
    }
    for (const [thread, members] of this.threadMembers) {
      const kept = members.map((n) => remap[n] ?? -1).filter((n) => n >= 0);
      if (kept.length === 0) this.threadMembers.delete(thread);
      else this.threadMembers.set(thread, kept);
    }
    this.ids = ids;
    this.lengths = lengths;
    this.threads = threads;
    this.orders = orders;
    this.docPostings = docPostings;
    this.docTextTerms = docTextTerms;
    this.derivedDocs = derivedDocs;
    this.speakers = speakers;
    this.ownTerms = ownTerms;
    this.addressedTerms = addressedTerms;
    this.numbers = new Map(ids.map((id, n) => [id, n]));
    this.dead = 0;
    this.compactions += 1;
  }

  /**
   * Inverse document frequency of a term, counted over the text field: a context shared by a
   * whole session ("conversation between Ann and Bob") would otherwise make the names in it
   * worthless wherever they occur. A term found only in other fields counts those instead;
   * a term no document has gets the highest value.
   */
  idf(term: string): number {
    const p = this.postings.get(term);
    const df = p === undefined ? 0 : p.textDocs > 0 ? p.textDocs : p.liveDocs;
    return Math.log(1 + (this.statCount - df + 0.5) / (df + 0.5));
  }

  documentFrequency(term: string): number {
    return this.postings.get(term)?.liveDocs ?? 0;
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
    const prefix = term.slice(0, 2);
    for (let length = term.length - max; length <= term.length + max; length += 1) {
      for (const candidate of this.byPrefix.get(`${prefix}${length}`) ?? []) {
        if (candidate === term) continue;
        const d = boundedDistance(term, candidate, Math.min(max, best));
        if (d > max || d > best || (this.postings.get(candidate)?.textDocs ?? 0) === 0) continue;
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
    if (this.scratch.length < this.ids.length) this.scratch = new Float64Array(Math.max(this.ids.length, this.scratch.length * 2));
    const scores = into?.scores ?? this.scratch;
    const touched: number[] = into === undefined ? [] : into.touched;
    if (into === undefined) scores.fill(0, 0, this.ids.length);
    const live = Math.max(1, this.statCount);
    // A bank of derived documents only has no statistics of its own: lengths then count as average.
    const avg = this.statLength.map((l) => (this.statCount === 0 ? 1 : Math.max(1e-9, l / live)));
    const { weight, b, k1 } = this.fields;
    const norm = (f: number, d: number): number => 1 - (b[f] as number) + ((b[f] as number) * (this.lengths[d * FIELD_COUNT + f] as number)) / (avg[f] as number);
    const [w0, w1, w2] = weight;
    for (const { term, weight: w } of terms) {
      const p = this.postings.get(term);
      if (p === undefined || w <= 0) continue;
      const idf = this.idf(term) * w;
      const { docs, tfs } = p;
      const context = w1 > 0 ? p.context : undefined;
      const entities = w2 > 0 ? p.entities : undefined;
      for (let i = 0; i < docs.length; i += 1) {
        const d = docs[i] as number;
        if (this.ids[d] === undefined || (skipDerived && this.derivedDocs[d] === true)) continue;
        const raw = tfs[i] as number;
        let tf = raw === 0 ? 0 : (w0 * raw) / norm(0, d);
        if (context !== undefined) tf += (w1 * (context.get(d) ?? 0)) / norm(1, d);
        if (entities !== undefined) tf += (w2 * (entities.get(d) ?? 0)) / norm(2, d);
        // A term only in a zero-weight field adds nothing (and must not list the document twice).
        if (tf === 0) continue;
        if (scores[d] === 0) touched.push(d);
        scores[d] = (scores[d] as number) + (idf * tf * (k1 + 1)) / (tf + k1);
      }
    }
    return { touched, scores };
  }

  /** Clears a pass's scores so the scratch array is all zeros again. */
  release(pass: Pass): void {
    for (const d of pass.touched) pass.scores[d] = 0;
  }

  isDerived(n: number): boolean {
    return this.derivedDocs[n] === true;
  }

  /** Who said document `n`, if it is a transcript line. */
  speakerOf(n: number): string | undefined {
    return this.speakers[n];
  }

  /**
   * The index terms of what the speaker of line `n` says of themselves (undefined: not a line);
   * a line that is all its speaker's own words gives every term of its text, the name too.
   */
  ownTermsOf(n: number): ReadonlySet<string> | undefined {
    return this.termsOf(n, this.ownTerms[n]);
  }

  /** The index terms of what the speaker of line `n` says to and of the one spoken to (undefined: not a line). */
  addressedTermsOf(n: number): ReadonlySet<string> | undefined {
    return this.termsOf(n, this.addressedTerms[n]);
  }

  private termsOf(n: number, stored: string | undefined): ReadonlySet<string> | undefined {
    if (stored === undefined) return undefined;
    if (stored === ALL) return new Set((this.docPostings[n] ?? []).slice(0, this.docTextTerms[n] ?? 0).map((p) => p.term));
    return new Set(stored.split(' ').filter((t) => t.length > 0));
  }

  /** Whether line `n` has own words: its speaker speaks of themselves in it. */
  hasOwnWords(n: number): boolean {
    return (this.ownTerms[n]?.length ?? 0) > 0;
  }

  /** The speakers of the bank's live lines, with how many lines each. */
  get participants(): ReadonlyMap<string, number> {
    return this.lineCounts;
  }

  /** The document's order value (its time, for facts). */
  orderOf(n: number): number | undefined {
    return this.orders[n];
  }

  threadOf(n: number): string | undefined {
    return this.threads[n];
  }

  /** Live and dead members of a thread, in order (callers skip the dead: `idOf` is undefined). */
  threadMembersOf(thread: string): readonly number[] {
    return this.threadMembers.get(thread) ?? [];
  }

  /** Changes when documents are renumbered: per-number data kept outside is void then. */
  get generation(): number {
    return this.compactions;
  }

  /** Number of document slots, live or dead (an upper bound for per-document scratch arrays). */
  get capacity(): number {
    return this.ids.length;
  }

  /**
   * The live documents right before and after `n` in its thread, if no further than
   * `maxGap` away in order (time): turns of one conversation, not notes filed days apart
   * under the same context.
   */
  neighbours(n: number, span = 1, maxGap = Number.POSITIVE_INFINITY): number[] {
    const thread = this.threads[n];
    if (thread === undefined) return [];
    const members = this.threadMembers.get(thread);
    if (members === undefined) return [];
    const at = members.indexOf(n);
    if (at < 0) return [];
    const out: number[] = [];
    for (const dir of [-1, 1]) {
      let found = 0;
      for (let i = at + dir; i >= 0 && i < members.length && found < span; i += dir) {
        const m = members[i] as number;
        if (this.ids[m] === undefined) continue;
        if (Math.abs((this.orders[m] ?? 0) - (this.orders[n] ?? 0)) > maxGap) break;
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
const ownString = (own: string, textTerms: ReadonlyMap<string, number>, speaker: string): string => {
  const terms = new Set(analyze(own));
  if (terms.size === 0) return '';
  const label = new Set(analyze(speaker));
  for (const t of textTerms.keys()) if (!terms.has(t) && !label.has(t)) return ` ${[...terms].join(' ')} `;
  return ALL;
};

/** Term frequencies of a token list and its length. */
const countTerms = (terms: readonly string[]): { counts: Map<string, number>; total: number } => {
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return { counts, total: terms.length };
};

/** The best `limit` of `candidates` by `scores` that `accept` keeps, ties by lower number. */
export const topK = (candidates: readonly number[], scores: Float64Array, accept: (n: number) => boolean, limit: number): number[] => {
  if (limit <= 0) return [];
  // Min-heap of the best `limit` so far; worse = lower score, then higher number.
  const heap: number[] = [];
  const worse = (a: number, b: number): boolean => {
    const sa = scores[a] as number;
    const sb = scores[b] as number;
    return sa < sb || (sa === sb && a > b);
  };
  const up = (i: number): void => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(heap[i] as number, heap[parent] as number)) break;
      [heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number];
      i = parent;
    }
  };
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l] as number, heap[m] as number)) m = l;
      if (r < heap.length && worse(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
      i = m;
    }
  };
  for (const d of candidates) {
    if (heap.length >= limit && !worse(heap[0] as number, d)) continue;
    if (!accept(d)) continue;
    if (heap.length < limit) {
      heap.push(d);
      up(heap.length - 1);
    } else {
      heap[0] = d;
      down(0);
    }
  }
  return heap.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
};
