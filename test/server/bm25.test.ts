import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../src/server/search/bm25.js';
import { tokenize } from '../../src/server/search/tokenize.js';

const all = (): boolean => true;

describe('Bm25Index', () => {
  it('ranks higher term frequency and rarer terms first, ignores stop words', () => {
    const ix = new Bm25Index();
    ix.add('a', 'parser parser parser bug');
    ix.add('b', 'parser bug');
    ix.add('c', 'the and of');
    ix.add('d', 'lexer');
    expect(ix.search('parser', all, 10).map((r) => r.id)).toEqual(['a', 'b']);
    expect(ix.search('the of', all, 10)).toEqual([]);
    expect(ix.search('lexer parser', all, 10)[0]?.id).toBe('d');
  });

  it('folds plurals on both sides, so a singular query finds a plural memory and back', () => {
    const ix = new Bm25Index();
    ix.add('p', 'our deploys run scripts/ship.sh');
    ix.add('q', 'one library for all queries');
    expect(ix.search('deploy', all, 10).map((r) => r.id)).toEqual(['p']);
    expect(ix.search('libraries query', all, 10).map((r) => r.id)).toEqual(['q']);
    expect(tokenize('Deploys Libraries class')).toEqual(['deploy', 'library', 'class']);
  });

  it('applies accept before the limit and breaks ties by insertion order', () => {
    const ix = new Bm25Index();
    for (const id of ['x1', 'x2', 'x3', 'x4']) ix.add(id, 'same words here');
    expect(ix.search('words', all, 2).map((r) => r.id)).toEqual(['x1', 'x2']);
    expect(ix.search('words', (id) => id !== 'x1', 2).map((r) => r.id)).toEqual(['x2', 'x3']);
  });

  it('removes, replaces and compacts without losing live documents', () => {
    const ix = new Bm25Index();
    for (let i = 0; i < 3000; i += 1) ix.add(`d${i}`, `common token${i % 7}`);
    for (let i = 0; i < 2500; i += 1) ix.remove(`d${i}`);
    expect(ix.size).toBe(500);
    const found = ix.search('common', all, 10_000).map((r) => r.id);
    expect(found).toHaveLength(500);
    expect(found.every((id) => Number(id.slice(1)) >= 2500)).toBe(true);
    ix.add('d2999', 'replaced text');
    expect(ix.search('common', all, 10_000)).toHaveLength(499);
    expect(ix.search('replaced', all, 10).map((r) => r.id)).toEqual(['d2999']);
  });

  it('returns exactly the accepted documents that share a term, best first (property)', () => {
    const word = fc.constantFrom<string>('alpha', 'beta', 'gamma', 'delta', 'eps');
    const doc = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 30 }), fc.array(word, { minLength: 1, maxLength: 3 }), (docs, q) => {
        const ix = new Bm25Index();
        docs.forEach((d, i) => ix.add(`id${i}`, d));
        const accept = (id: string): boolean => Number(id.slice(2)) % 2 === 0;
        const result = ix.search(q.join(' '), accept, 1000);
        const expected = docs.flatMap((d, i) => (i % 2 === 0 && tokenize(d).some((t) => q.includes(t)) ? [`id${i}`] : []));
        expect(result.map((r) => r.id).sort()).toEqual(expected.sort());
        for (let i = 1; i < result.length; i += 1) expect(result[i - 1]!.score).toBeGreaterThanOrEqual(result[i]!.score);
      }),
    );
  });
});
