import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { topK } from '../../../src/server/search/topK.js';

/** What topK must answer: every accepted candidate sorted by score (higher first), then number, cut at limit. */
const reference = (candidates: readonly number[], scores: Float64Array, accept: (n: number) => boolean, limit: number): number[] =>
  candidates
    .filter(accept)
    .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b)
    .slice(0, Math.max(0, limit));

/** Distinct document numbers below `slots`, in a shuffled order (a query touches them in postings order). */
const candidatesArb = (slots: number): fc.Arbitrary<number[]> => fc.uniqueArray(fc.integer({ min: 0, max: slots - 1 }), { maxLength: slots });

describe('topK', () => {
  it('answers as sorting every accepted candidate would: same documents, same order', () => {
    const slots = 3000;
    fc.assert(
      fc.property(
        candidatesArb(slots),
        // Few distinct values make ties (broken by the lower number); wide ones spread the buckets.
        fc.oneof(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: slots, maxLength: slots }), fc.array(fc.double({ min: 0.001, max: 1e6, noNaN: true }), { minLength: slots, maxLength: slots })),
        // The filter keeps every document, none, or a share of them chosen by number.
        fc.oneof(fc.constant(1), fc.constant(0), fc.integer({ min: 2, max: 9 })),
        fc.integer({ min: 0, max: 900 }),
        (candidates, values, keepEvery, limit) => {
          const scores = Float64Array.from(values);
          const accept = (n: number): boolean => keepEvery !== 0 && n % keepEvery === 0;
          expect(topK(Int32Array.from(candidates), scores, accept, limit)).toEqual(reference(candidates, scores, accept, limit));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('picks the best of a threshold bucket that holds many equal scores', () => {
    // Two or three distinct scores over hundreds of candidates: the bucket at the threshold holds
    // far more than are wanted, and only the lowest numbers among its equal scores may be taken.
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 799 }), { minLength: 40, maxLength: 800 }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 800, maxLength: 800 }),
        fc.integer({ min: 1, max: 60 }),
        (candidates, values, limit) => {
          const scores = Float64Array.from(values);
          const all = (): boolean => true;
          expect(topK(Int32Array.from(candidates), scores, all, limit)).toEqual(reference(candidates, scores, all, limit));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('asks the filter only about candidates that can rank, and keeps its answer when it rejects most of the best', () => {
    const n = 20_000;
    const scores = new Float64Array(n);
    for (let d = 0; d < n; d += 1) scores[d] = 1 + ((d * 7919) % 10_007) / 100;
    const candidates = Int32Array.from({ length: n }, (_, i) => i);
    const asked = new Set<number>();
    const all = (d: number): boolean => {
      asked.add(d);
      return true;
    };
    const best = topK(candidates, scores, all, 100);
    expect(best).toEqual(reference([...candidates], scores, () => true, 100));
    // Whole buckets around the 100th score are asked about, not 20,000 documents.
    expect(asked.size).toBeLessThan(400);
    // A filter that rejects nine in ten still gets the best 100 it keeps.
    const tenth = (d: number): boolean => d % 10 === 3;
    expect(topK(candidates, scores, tenth, 100)).toEqual(reference([...candidates], scores, tenth, 100));
  });

  it('handles equal scores, one candidate, scores beyond a finite range and an empty list', () => {
    const flat = new Float64Array(50).fill(2);
    const all = Int32Array.from({ length: 50 }, (_, i) => 49 - i);
    expect(topK(all, flat, () => true, 5)).toEqual([0, 1, 2, 3, 4]);
    expect(topK(Int32Array.of(7), flat, () => true, 3)).toEqual([7]);
    const wide = Float64Array.of(Number.MAX_VALUE, -Number.MAX_VALUE, 0, 1, Number.POSITIVE_INFINITY);
    expect(topK(Int32Array.of(0, 1, 2, 3, 4), wide, () => true, 3)).toEqual([4, 0, 3]);
    expect(topK(new Int32Array(0), flat, () => true, 10)).toEqual([]);
    expect(topK(all, flat, () => true, 0)).toEqual([]);
  });
});
