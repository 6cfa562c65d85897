/**
 * The best `limit` of a query's candidates: highest score first, ties by lower document number,
 * only those `accept` keeps. A query at 100k memories touches a few hundred to tens of thousands
 * of documents and asks for 600 (twice the thinking budget): a heap of 600 took most of them in
 * and out one at a time (a third of a recall's ranking, in the server's CPU profile).
 *
 * Instead the scores are counted into BUCKETS equal-width buckets between the lowest and the
 * highest. The bucket of a score only grows with the score, so every candidate in a higher bucket
 * scores more than every one in a lower bucket: taking whole buckets from the top until they hold
 * `limit` accepted candidates, then sorting those, gives exactly the heap's answer. `accept` is
 * asked only about the candidates in the buckets taken (verdicts never change within a query, so
 * which ones are asked changes nothing but the cost).
 */
import { i32 } from './columns.js';

const BUCKETS = 1024;
/** Partitions this short are sorted by insertion. */
const SHORT = 16;

// Reused across calls (ranking is synchronous; the answer is a fresh array).
const counts = new Int32Array(BUCKETS);
let picked = new Int32Array(1024);
/** The candidates' scores in candidate order (read from the score column once), then their buckets. */
let values = new Float64Array(1024);

const pick = (at: number, n: number): void => {
  if (at === picked.length) {
    const grown = new Int32Array(picked.length * 2);
    grown.set(picked);
    picked = grown;
  }
  picked[at] = n;
};

/**
 * The best `limit` of `candidates` (distinct document numbers) by `scores` that `accept` keeps,
 * best first, ties by lower number.
 */
export const topK = (candidates: Int32Array, scores: Float64Array, accept: (n: number) => boolean, limit: number): number[] => {
  if (limit <= 0) return [];
  const m = candidates.length;
  let count = 0;
  if (m <= limit) {
    // All of them fit: no threshold to find.
    for (let i = 0; i < m; i += 1) {
      const d = Number(candidates[i]);
      if (accept(d)) pick(count++, d);
    }
  } else {
    if (values.length < m) values = new Float64Array(Math.max(m, values.length * 2));
    // Columns are read as Number(x), as in FieldIndex.score: every slot read exists.
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < m; i += 1) {
      const s = Number(scores[Number(candidates[i])]);
      values[i] = s;
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    // A fixed scale keeps the bucket monotone in the score; a range that is not finite puts
    // everything in one bucket (all taken, then sorted). `| 0` is the floor of these values
    // (0 to BUCKETS - 1, rounding may touch BUCKETS - 1 from either side).
    const base = lo;
    const range = hi - lo;
    const scale = range > 0 && Number.isFinite(range) ? (BUCKETS - 1) / range : 0;
    counts.fill(0);
    for (let i = 0; i < m; i += 1) {
      const b = Math.min(BUCKETS - 1, ((Number(values[i]) - base) * scale) | 0);
      values[i] = b;
      counts[b] = Number(counts[b]) + 1;
    }
    // Buckets [floor, BUCKETS) are taken; each round takes more below them until enough of the
    // taken candidates are accepted (one round when the filter keeps what scores best).
    let floor = BUCKETS;
    let taken = 0;
    while (count < limit && floor > 0) {
      // As many more as the filter's share so far says are needed to reach `limit` accepted.
      const wanted = taken === 0 ? limit : count === 0 ? m : Math.ceil(((limit - count) * taken) / count);
      const top = floor;
      let more = 0;
      while (floor > 0 && more < wanted) {
        floor -= 1;
        more += i32(counts, floor);
      }
      taken += more;
      for (let i = 0; i < m; i += 1) {
        const b = Number(values[i]);
        if (b < floor || b >= top) continue;
        const d = Number(candidates[i]);
        if (accept(d)) pick(count++, d);
      }
    }
  }
  // The bucket at the threshold can hold many more than are wanted (equal scores are common):
  // the best `limit` are moved to the front, then only they are sorted.
  if (count > limit) selectBest(picked, 0, count - 1, limit, scores);
  sortBest(picked, 0, Math.min(limit, count) - 1, scores);
  // Pushed, not `new Array(n)`: a holey array would come back as the next call's candidates.
  const out: number[] = [];
  const n = Math.min(limit, count);
  for (let i = 0; i < n; i += 1) out.push(i32(picked, i));
  return out;
};

/** `a` ranks before `b`: a higher score, or the same score and a lower number. */
const before = (a: number, b: number, scores: Float64Array): boolean => {
  const sa = Number(scores[a]);
  const sb = Number(scores[b]);
  return sa > sb || (sa === sb && a < b);
};

/**
 * Hoare partition of list[lo..hi] around the median of its first, middle and last: returns
 * [i, j] with list[lo..j] ranking before list[i..hi] and, between them, only the pivot.
 */
const partition = (list: Int32Array, lo: number, hi: number, scores: Float64Array): [number, number] => {
  const mid = (lo + hi) >> 1;
  // Order lo, mid, hi; the median then sits at mid.
  if (before(i32(list, mid), i32(list, lo), scores)) swap(list, lo, mid);
  if (before(i32(list, hi), i32(list, lo), scores)) swap(list, lo, hi);
  if (before(i32(list, hi), i32(list, mid), scores)) swap(list, mid, hi);
  const pivot = i32(list, mid);
  let i = lo;
  let j = hi;
  while (i <= j) {
    while (before(i32(list, i), pivot, scores)) i += 1;
    while (before(pivot, i32(list, j), scores)) j -= 1;
    if (i <= j) {
      swap(list, i, j);
      i += 1;
      j -= 1;
    }
  }
  return [i, j];
};

/**
 * Sorts list[lo..hi] best first, in place: quicksort on the median of three, insertion sort for
 * short parts. Keys are distinct (the numbers are), so no run of equal keys can degrade it.
 */
const sortBest = (list: Int32Array, lo: number, hi: number, scores: Float64Array): void => {
  while (hi - lo >= SHORT) {
    const [i, j] = partition(list, lo, hi, scores);
    // The shorter side recursively, the longer one in this loop: the stack stays logarithmic.
    if (j - lo < hi - i) {
      sortBest(list, lo, j, scores);
      lo = i;
    } else {
      sortBest(list, i, hi, scores);
      hi = j;
    }
  }
  for (let i = lo + 1; i <= hi; i += 1) {
    const d = i32(list, i);
    let j = i - 1;
    while (j >= lo && before(d, i32(list, j), scores)) {
      list[j + 1] = i32(list, j);
      j -= 1;
    }
    list[j + 1] = d;
  }
};

/** Moves the best `k` of list[lo..hi] (k within it) to list[lo..lo + k), in no order. */
const selectBest = (list: Int32Array, lo: number, hi: number, k: number, scores: Float64Array): void => {
  const last = lo + k - 1;
  while (hi - lo >= SHORT) {
    const [i, j] = partition(list, lo, hi, scores);
    // list[lo..j] rank before list[i..hi] (and anything between them is the pivot).
    if (last <= j) hi = j;
    else if (last >= i) lo = i;
    else return;
  }
  sortBest(list, lo, hi, scores);
};

const swap = (list: Int32Array, a: number, b: number): void => {
  const t = i32(list, a);
  list[a] = i32(list, b);
  list[b] = t;
};
