import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedDistance } from '../../src/codecs/editDistance.js';

/** The textbook optimal-string-alignment distance, unbounded: what the bounded one must agree with. */
const reference = (a: string, b: string): number => {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1)
    for (let j = 1; j <= b.length; j += 1) {
      const row = d[i]!;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
};

describe('boundedDistance', () => {
  it('counts a substitution, an insertion, a deletion and a transposition as one edit', () => {
    expect(boundedDistance('kate', 'kati', 2)).toBe(1);
    expect(boundedDistance('recomend', 'recommend', 2)).toBe(1);
    expect(boundedDistance('databse', 'database', 2)).toBe(1);
    expect(boundedDistance('recieve', 'receive', 2)).toBe(1);
    expect(boundedDistance('same', 'same', 1)).toBe(0);
  });

  it('answers max + 1 past the bound', () => {
    expect(boundedDistance('postgres', 'mysql', 2)).toBe(3);
    expect(boundedDistance('a'.repeat(50), 'b'.repeat(50), 1)).toBe(2);
  });

  it('agrees with the unbounded distance within the bound (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 9 }), fc.string({ maxLength: 9 }), fc.integer({ min: 0, max: 3 }), (a, b, max) => {
        expect(boundedDistance(a, b, max)).toBe(Math.min(reference(a, b), max + 1));
      }),
    );
  });
});
