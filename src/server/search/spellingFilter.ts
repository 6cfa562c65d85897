/**
 * Which spellings a bank cannot have, told without making the string. The typo stage that looks
 * for a bank's misspellings of a query word (ranker.ts) tries every spelling one slip from it,
 * about 30 a letter, and nearly none is a word of the bank: made and looked up one by one they
 * were a tenth of a recall's CPU at 100k memories. Each spelling's hash is computed from the
 * word's prefix and suffix hashes instead, and only one the filter may hold is made.
 *
 * The hash is a polynomial over UTF-16 code units (`spellingHash`), so a slip's hash is a sum of
 * the word's parts; the filter is a Bloom filter of every term's hash, two probes, about 16
 * bits a term. It answers "maybe" for every term it was given (no false negatives), so what it
 * lets through is a superset of the bank's terms and the caller's lookup decides as before.
 */

import { HashFilter } from './hashFilter.js';

const BASE = 0x01000193;
const MIN_BITS = 1 << 12;
/** Bits per term when the filter is made; it is made again once terms pass half that (8). */
const BITS_PER_TERM = 16;

export const spellingHash = (s: string): number => {
  let h = 0;
  let power = 1;
  for (let i = 0; i < s.length; i += 1) {
    h = (h + Math.imul(s.charCodeAt(i), power)) | 0;
    power = Math.imul(power, BASE);
  }
  return h;
};

export class SpellingFilter extends HashFilter {
  private count = 0;

  /** A filter holding `terms`, sized for them. */
  static of(terms: readonly string[]): SpellingFilter {
    const filter = new SpellingFilter(terms.length, BITS_PER_TERM, MIN_BITS);
    for (const term of terms) filter.add(term);
    return filter;
  }

  add(term: string): void {
    this.addHash(spellingHash(term));
    this.count += 1;
  }

  /** Past half its bits per term its false answers grow: the owner makes a new one. */
  get full(): boolean {
    return this.count * (BITS_PER_TERM / 2) > this.size;
  }
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

const anySpelling = (): boolean => true;

/**
 * The spellings one slip from a stem, each once: two neighbouring letters swapped, one letter
 * left out or one added inside it (at the end it is a suffix: "gamer" for "game", "dreami" for
 * "dream"; a letter changed most often makes another word), the first two letters kept, as the
 * typo stage's near spellings keep them. Generated and looked up (about 30 a letter of the
 * stem), not searched for among the bank's words: the cost does not grow with the bank. Those
 * `mayBe` rules out by their hash (a bank's SpellingFilter) are not made.
 */
export const slipSpellings = (stem: string, mayBe: (hash: number) => boolean = anySpelling): Set<string> => {
  const out = new Set<string>();
  const n = stem.length;
  // power[i] = BASE^i; prefix[i] = hash of stem[0, i); suffix[i] = hash of stem[i, n).
  const power = new Int32Array(n + 3);
  const prefix = new Int32Array(n + 1);
  const suffix = new Int32Array(n + 2);
  power[0] = 1;
  for (let i = 1; i < n + 3; i += 1) power[i] = Math.imul(power[i - 1] ?? 0, BASE);
  for (let i = 0; i < n; i += 1) prefix[i + 1] = ((prefix[i] ?? 0) + Math.imul(stem.charCodeAt(i), power[i] ?? 0)) | 0;
  for (let i = n - 1; i >= 0; i -= 1) suffix[i] = (stem.charCodeAt(i) + Math.imul(suffix[i + 1] ?? 0, BASE)) | 0;
  const head = stem.slice(0, 2);
  const keep = (t: string): void => {
    if (t !== stem && t.slice(0, 2) === head) out.add(t);
  };
  for (let i = 0; i + 1 < n; i += 1) {
    const p = power[i] ?? 0;
    const p1 = power[i + 1] ?? 0;
    const p2 = power[i + 2] ?? 0;
    if (stem[i] !== stem[i + 1]) {
      const swapped = ((prefix[i] ?? 0) + Math.imul(stem.charCodeAt(i + 1), p) + Math.imul(stem.charCodeAt(i), p1) + Math.imul(suffix[i + 2] ?? 0, p2)) | 0;
      if (mayBe(swapped)) keep(stem.slice(0, i) + (stem[i + 1] ?? '') + (stem[i] ?? '') + stem.slice(i + 2));
    }
    const dropped = ((prefix[i] ?? 0) + Math.imul(suffix[i + 1] ?? 0, p)) | 0;
    if (mayBe(dropped)) keep(stem.slice(0, i) + stem.slice(i + 1));
    const before = prefix[i + 1] ?? 0;
    const after = Math.imul(suffix[i + 1] ?? 0, p2);
    for (let l = 0; l < LETTERS.length; l += 1) {
      const added = (before + Math.imul(LETTERS.charCodeAt(l), p1) + after) | 0;
      if (mayBe(added)) keep(stem.slice(0, i + 1) + (LETTERS[l] ?? '') + stem.slice(i + 1));
    }
  }
  return out;
};
