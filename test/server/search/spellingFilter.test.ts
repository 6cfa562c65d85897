import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../src/server/search/analyzer.js';
import { FieldIndex } from '../../../src/server/search/fieldIndex.js';
import { SpellingFilter, slipSpellings, spellingHash } from '../../../src/server/search/spellingFilter.js';

/** The typo stage's spellings as ranker.ts made them before the filter: every one built and kept in a Set. */
const madeOneByOne = (stem: string): string[] => {
  const out = new Set<string>();
  const keep = (t: string): void => {
    if (t !== stem && t.slice(0, 2) === stem.slice(0, 2)) out.add(t);
  };
  for (let i = 0; i + 1 < stem.length; i += 1) {
    if (stem[i] !== stem[i + 1]) keep(stem.slice(0, i) + (stem[i + 1] ?? '') + (stem[i] ?? '') + stem.slice(i + 2));
    keep(stem.slice(0, i) + stem.slice(i + 1));
    for (const letter of 'abcdefghijklmnopqrstuvwxyz') keep(stem.slice(0, i + 1) + letter + stem.slice(i + 1));
  }
  return [...out];
};

// Stems with repeated letters (a swap of two equal letters is no slip) and a few non-ASCII ones.
const stem = fc.string({ unit: fc.constantFrom('a', 'b', 'e', 'n', 'r', 's', 't', 'é', 'ß', '日'), minLength: 0, maxLength: 12 });

/** Whether `sub` is `all` with some elements left out, the rest in the same order. */
const inOrder = (sub: readonly string[], all: readonly string[]): boolean => {
  let at = 0;
  for (const s of sub) {
    at = all.indexOf(s, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
};

describe('slipSpellings', () => {
  it('makes the spellings the typo stage made one by one, in the same order', () => {
    fc.assert(
      fc.property(stem, (s) => {
        expect([...slipSpellings(s)]).toEqual(madeOneByOne(s));
      }),
      { numRuns: 500 },
    );
  });

  it('computes each spelling hash from the parts as spellingHash of the spelling made: a filter of exact hashes keeps every term among them', () => {
    fc.assert(
      fc.property(stem, fc.array(fc.nat(), { maxLength: 8 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 5 }), (s, picks, others) => {
        const all = madeOneByOne(s);
        const terms = [...picks.map((p) => all[p % Math.max(1, all.length)] ?? ''), ...others];
        const hashes = new Set(terms.map(spellingHash));
        const kept = [...slipSpellings(s, (h) => hashes.has(h))];
        expect(inOrder(kept, all)).toBe(true);
        for (const t of all) if (terms.includes(t)) expect(kept).toContain(t);
      }),
      { numRuns: 500 },
    );
  });

  it('through a SpellingFilter keeps every spelling the terms have, in order, and drops most others', () => {
    fc.assert(
      fc.property(stem, fc.array(fc.nat(), { maxLength: 8 }), (s, picks) => {
        const all = madeOneByOne(s);
        const terms = picks.map((p) => all[p % Math.max(1, all.length)] ?? '');
        const filter = SpellingFilter.of(terms);
        const kept = [...slipSpellings(s, (h) => filter.mayHave(h))];
        expect(inOrder(kept, all)).toBe(true);
        for (const t of terms) if (all.includes(t)) expect(kept).toContain(t);
      }),
      { numRuns: 500 },
    );
    // A filter of a few terms lets through few of a long word's ~300 spellings.
    const few = SpellingFilter.of(['deployment', 'rollback', 'kubernetes']);
    expect([...slipSpellings('infrastructure', (h) => few.mayHave(h))].length).toBeLessThan(10);
  });
});

describe('FieldIndex.mayHaveTerm', () => {
  it('is true for every term of the index, also for terms added after the filter was made and past its size', () => {
    const ix = new FieldIndex();
    const words = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
    ix.add({ id: 'first', text: words.slice(0, 10).join(' ') });
    const asked = (text: string): void => {
      for (const term of analyze(text)) expect(ix.mayHaveTerm(spellingHash(term))).toBe(true);
    };
    asked(words.slice(0, 10).join(' '));
    for (let i = 10; i < words.length; i += 50) {
      const text = words.slice(i, i + 50).join(' ');
      ix.add({ id: `d${i}`, text });
      asked(text);
    }
    asked(words.join(' '));
    // From a seal, the filter is made from the sealed terms.
    const sealed = FieldIndex.fromSealed(ix.seal());
    for (const term of analyze(words.join(' '))) expect(sealed.mayHaveTerm(spellingHash(term))).toBe(true);
  });
});
