import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../../src/server/search/analyzer.js';
import { DEFAULT_FIELDS, FieldIndex, type WeightedTerm } from '../../../src/server/search/fieldIndex.js';
import { topK } from '../../../src/server/search/topK.js';

const terms = (query: string): WeightedTerm[] => [...new Set(analyze(query))].map((term) => ({ term, weight: 1 }));

/** Ids of the documents a query scores, best first. */
const search = (ix: FieldIndex, query: string, accept: (id: string) => boolean = () => true, limit = 1000): string[] => {
  const pass = ix.score(terms(query));
  const ids = topK(pass.touched.view(), pass.scores, (n) => accept(ix.idOf(n) ?? ''), limit).map((n) => ix.idOf(n) ?? '');
  ix.release(pass);
  return ids;
};

describe('analyze', () => {
  it('stems both word forms to one term, drops stop words, single letters and contraction pieces', () => {
    expect(analyze('testing tests tested')).toEqual(['test', 'test', 'test']);
    expect(analyze('deploying deploys')).toEqual(analyze('deploy deploy'));
    // "Mel" is a nickname: it reads as the name it stands for (names.ts).
    expect(analyze("the and of I'm Mel's don't")).toEqual(['melani']);
  });

  it('counts a hyphenated compound as its parts and as one word, the parts first and in order', () => {
    expect(analyze('on-call rotation')).toEqual(['call', 'rotat', 'oncal']);
    expect(analyze('e-mail')).toEqual(analyze('mail email'));
    expect(analyze('end-to-end tests')).toEqual(['end', 'end', 'test', 'endtoend']);
  });

  it('splits identifiers at case changes and underscores, keeping the whole', () => {
    expect(analyze('retainQueue')).toEqual(['retainqueu', 'retain', 'queue']);
    expect(analyze('retain_queue')).toContain('queue');
  });

  it('ends an acronym run at the capital that starts a word, and keeps a plural acronym whole', () => {
    // "the deadlock" finds a pasted `PG::TRDeadlockDetected`.
    expect(analyze('PG::TRDeadlockDetected')).toEqual(['pg', 'trdeadlockdetect', 'tr', 'deadlock', 'detect']);
    expect(analyze('HTTPServer')).toEqual(['httpserver', 'http', 'server']);
    expect(analyze('URLs and PRs')).toEqual(['url', 'pr']);
  });
});

describe('FieldIndex', () => {
  it('ranks higher term frequency and rarer terms first, ignores stop words', () => {
    const ix = new FieldIndex();
    ix.add({ id: 'a', text: 'parser parser parser bug' });
    ix.add({ id: 'b', text: 'parser bug' });
    ix.add({ id: 'c', text: 'the and of' });
    ix.add({ id: 'd', text: 'lexer' });
    expect(search(ix, 'parser')).toEqual(['a', 'b']);
    expect(search(ix, 'the of')).toEqual([]);
    expect(search(ix, 'lexer parser')[0]).toBe('d');
  });

  it('finds other word forms: a singular query finds a plural memory, "testing" finds "test"', () => {
    const ix = new FieldIndex();
    ix.add({ id: 'p', text: 'our deploys run scripts/ship.sh' });
    ix.add({ id: 'q', text: 'one library for all queries' });
    ix.add({ id: 'r', text: 'we test with vitest' });
    expect(search(ix, 'deploying')).toEqual(['p']);
    expect(search(ix, 'libraries query')).toEqual(['q']);
    expect(search(ix, 'testing')).toEqual(['r']);
  });

  it('counts a word in a weighted field, less than in the text, and takes idf from the text field', () => {
    const ix = new FieldIndex({ ...DEFAULT_FIELDS, weight: [1, 0.3, 0.5] });
    ix.add({ id: 'text', text: 'rollup bundles the package' });
    ix.add({ id: 'ctx', text: 'the package is small', context: 'rollup decision' });
    ix.add({ id: 'ent', text: 'the package is small', entities: ['Rollup'] });
    expect(search(ix, 'rollup')).toEqual(['text', 'ent', 'ctx']);
    // In three documents but in the text of one: as rare as "bundles", which is only in that text.
    expect(ix.idf('rollup')).toBe(ix.idf(analyze('bundles')[0] ?? ''));
    expect(ix.idf('rollup')).toBeGreaterThan(ix.idf(analyze('package')[0] ?? ''));
    // A word only in contexts still counts, at its any-field frequency.
    expect(ix.idf('decis')).toBeGreaterThan(0);
  });

  it('a zero-weight field neither scores nor lists a document twice', () => {
    const ix = new FieldIndex({ ...DEFAULT_FIELDS, weight: [1, 0, 0] });
    ix.add({ id: 'a', text: 'alpha beta', context: 'alpha beta' });
    ix.add({ id: 'b', text: 'gamma', context: 'alpha beta' });
    const pass = ix.score(terms('alpha beta'));
    expect([...pass.touched.view()].map((n) => ix.idOf(n))).toEqual(['a']);
    ix.release(pass);
  });

  it.each([20_000, 70_000])('scores a text of %i terms by its whole length, added and loaded from its seal', (length) => {
    // The scoring loop reads text lengths below 16,383 terms from a two-byte column that also holds
    // the flags; a longer text is read from the full one.
    const ix = new FieldIndex();
    ix.add({ id: 'long', text: `alpha ${'zebra '.repeat(length - 1)}` });
    ix.add({ id: 'short', text: 'alpha beta' });
    const expected = (n: number, index: FieldIndex): number => {
      const [b] = DEFAULT_FIELDS.b;
      const { k1 } = DEFAULT_FIELDS;
      const tf = 1 / (1 - b + (b * n) / ((length + 2) / 2));
      return (index.idf('alpha') * tf * (k1 + 1)) / (tf + k1);
    };
    for (const index of [ix, FieldIndex.fromSealed(ix.seal())]) {
      const pass = index.score(terms('alpha'));
      expect(pass.scores[0]).toBe(expected(length, index));
      expect(pass.scores[1]).toBe(expected(2, index));
      index.release(pass);
    }
  });

  it('scores no removed document, and no derived one when derived are skipped, whatever their length, added, sealed and removed after loading', () => {
    const ix = new FieldIndex();
    ix.add({ id: 'plain', text: 'alpha beta' });
    ix.add({ id: 'obs', text: 'alpha gamma', derived: true });
    ix.add({ id: 'obsLong', text: `alpha ${'zebra '.repeat(20_000)}`, derived: true });
    ix.add({ id: 'gone', text: 'alpha delta' });
    ix.add({ id: 'goneLong', text: `alpha ${'zebra '.repeat(20_000)}` });
    ix.add({ id: 'later', text: 'alpha epsilon' });
    ix.remove('gone');
    ix.remove('goneLong');
    const scored = (index: FieldIndex, skipDerived: boolean): string[] => {
      const pass = index.score(terms('alpha'), undefined, skipDerived);
      const ids = [...pass.touched.view()].map((n) => index.idOf(n) ?? '?').sort();
      index.release(pass);
      return ids;
    };
    const loaded = FieldIndex.fromSealed(ix.seal());
    for (const index of [ix, loaded]) {
      expect(scored(index, false)).toEqual(['later', 'obs', 'obsLong', 'plain']);
      expect(scored(index, true)).toEqual(['later', 'plain']);
    }
    loaded.remove('later');
    loaded.remove('obsLong');
    loaded.add({ id: 'added', text: 'alpha zeta', derived: true });
    expect(scored(loaded, false)).toEqual(['added', 'obs', 'plain']);
    expect(scored(loaded, true)).toEqual(['plain']);
    // Enough removes to compact the index (its columns made again from its seal): the same.
    const long = `alpha ${'zebra '.repeat(20_000)}`;
    loaded.add({ id: 'long', text: long });
    const slot = loaded.numberOf('long') ?? -1;
    const before = loaded.score(terms('alpha')).scores[slot];
    loaded.release(loaded.score(terms('beta')));
    for (let i = 0; i < 1_100; i += 1) loaded.add({ id: `filler${i}`, text: 'omega' });
    for (let i = 0; i < 1_100; i += 1) loaded.remove(`filler${i}`);
    expect(loaded.numberOf('long')).toBeLessThan(slot);
    expect(scored(loaded, false)).toEqual(['added', 'long', 'obs', 'plain']);
    expect(scored(loaded, true)).toEqual(['long', 'plain']);
    const pass = loaded.score(terms('alpha'));
    expect(pass.scores[loaded.numberOf('long') ?? -1]).toBe(before);
    loaded.release(pass);
  });

  it('keeps each document\'s distinct text terms as analyze gives them, added and sealed; none for a derived or removed one', () => {
    const ix = new FieldIndex();
    const texts = ['Deploying the deploy scripts, deployed twice', 'on-call e-mail retainQueue', 'the a of', 'Café naïve 东京 😀'];
    texts.forEach((text, i) => ix.add({ id: `t${i}`, text, context: 'not the text', entities: ['Someone'] }));
    ix.add({ id: 'obs', text: 'deploy scripts', derived: true });
    ix.add({ id: 'gone', text: 'deploy' });
    ix.remove('gone');
    for (const index of [ix, FieldIndex.fromSealed(ix.seal())]) {
      texts.forEach((text, i) => expect(new Set(index.textTermsOf(index.numberOf(`t${i}`) ?? -1)), text).toEqual(new Set(analyze(text))));
      expect(index.textTermsOf(index.numberOf('obs') ?? -1)).toBeUndefined();
    }
    expect(ix.textTermsOf(5)).toBeUndefined();
  });

  it('a new pass starts from zero scores even when the last one was not released', () => {
    const ix = new FieldIndex();
    const docs = ['alpha beta', 'beta gamma', 'gamma delta alpha', 'delta', 'alpha alpha epsilon'];
    docs.forEach((text, i) => ix.add({ id: `d${i}`, text }));
    const scoresOf = (query: string): number[] => {
      const pass = ix.score(terms(query));
      return docs.map((_, n) => pass.scores[n] ?? 0);
    };
    const alone = scoresOf('gamma delta');
    ix.release(ix.score(terms('gamma delta')));
    // Left dirty: 'alpha beta' touched documents 0, 1, 2 and 4, and the next pass must not count them.
    scoresOf('alpha beta');
    expect(scoresOf('gamma delta')).toEqual(alone);
    expect(alone[0]).toBe(0);
    expect(alone[2]).toBeGreaterThan(0);
  });

  it('applies accept before the limit and breaks ties by insertion order', () => {
    const ix = new FieldIndex();
    for (const id of ['x1', 'x2', 'x3', 'x4']) ix.add({ id, text: 'same words here' });
    expect(search(ix, 'words', () => true, 2)).toEqual(['x1', 'x2']);
    expect(search(ix, 'words', (id) => id !== 'x1', 2)).toEqual(['x2', 'x3']);
  });

  it('removes, replaces and compacts without losing live documents or threads', () => {
    const ix = new FieldIndex();
    for (let i = 0; i < 3000; i += 1) ix.add({ id: `d${i}`, text: `common token${i % 7}`, thread: 't', order: i });
    for (let i = 0; i < 2500; i += 1) ix.remove(`d${i}`);
    expect(ix.size).toBe(500);
    const found = search(ix, 'common');
    expect(found).toHaveLength(500);
    expect(found.every((id) => Number(id.slice(1)) >= 2500)).toBe(true);
    ix.add({ id: 'd2999', text: 'replaced text' });
    expect(search(ix, 'common')).toHaveLength(499);
    expect(search(ix, 'replaced')).toEqual(['d2999']);
    const n = ix.numberOf('d2600') ?? -1;
    expect(ix.neighbours(n).map((m) => ix.idOf(m))).toEqual(['d2599', 'd2601']);
  });

  it('counts only live documents for idf and document frequency: after removes, edits and compaction an index equals a fresh one (property)', () => {
    const word = fc.constantFrom<string>('alpha', 'beta', 'gamma', 'delta', 'epsilon');
    const doc = fc.record({ text: fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')), context: fc.option(word, { nil: undefined }), derived: fc.boolean() });
    const op = fc.oneof(fc.record({ add: fc.nat(40), doc }), fc.record({ remove: fc.nat(40) }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const ix = new FieldIndex();
        const live = new Map<string, { text: string; context?: string | undefined; derived: boolean }>();
        for (const o of ops) {
          if ('add' in o) {
            ix.add({ id: `d${o.add}`, ...o.doc });
            live.set(`d${o.add}`, o.doc);
          } else {
            ix.remove(`d${o.remove}`);
            live.delete(`d${o.remove}`);
          }
        }
        const fresh = new FieldIndex();
        for (const [id, d] of live) fresh.add({ id, ...d });
        expect(ix.size).toBe(fresh.size);
        for (const w of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'absent']) {
          expect(ix.idf(w)).toBeCloseTo(fresh.idf(w), 12);
          expect(ix.documentFrequency(w)).toBe(fresh.documentFrequency(w));
        }
      }),
      { numRuns: 50 },
    );
  });

  it('a derived document (an observation quoting facts) is found but left out of the statistics', () => {
    const ix = new FieldIndex();
    for (let i = 0; i < 9; i += 1) ix.add({ id: `n${i}`, text: `note ${i} about lunch` });
    ix.add({ id: 'fact', text: 'We bundle with rollup.' });
    const [rollup = ''] = analyze('rollup');
    const before = { idf: ix.idf(rollup), df: ix.documentFrequency(rollup), lunch: ix.idf('lunch') };
    ix.add({ id: 'obs', text: '**rollup** (1 fact): We bundle with rollup. Lunch lunch lunch.', derived: true });
    expect({ idf: ix.idf(rollup), df: ix.documentFrequency(rollup), lunch: ix.idf('lunch') }).toEqual(before);
    expect(search(ix, 'rollup').sort()).toEqual(['fact', 'obs']);
    ix.remove('obs');
    ix.remove('fact');
    expect(ix.documentFrequency(rollup)).toBe(0);
    expect(ix.idf('lunch')).toBeCloseTo(Math.log(1 + 0.5 / 9.5), 12);
  });

  it('an edited document (removed, re-added) does not make its words look common', () => {
    const ix = new FieldIndex();
    ix.add({ id: 'bob', text: 'Bob deploys on Fridays.' });
    for (let i = 0; i < 9; i += 1) ix.add({ id: `n${i}`, text: `note ${i} about lunch` });
    const [deploy = ''] = analyze('deploys');
    const before = ix.idf(deploy);
    for (let i = 0; i < 5; i += 1) ix.add({ id: 'bob', text: `Bob deploys on Thursdays, edit ${i}.` });
    expect(ix.idf(deploy)).toBeCloseTo(before, 12);
    expect(ix.documentFrequency(deploy)).toBe(1);
    ix.remove('bob');
    expect(ix.documentFrequency(deploy)).toBe(0);
  });

  it('keeps each line\'s speaker and own words, and counts the lines of each live participant through removes and compaction', () => {
    const ix = new FieldIndex();
    ix.add({ id: 'a1', text: 'Ann: I made a bowl.', speaker: 'Ann', own: 'I made a bowl.' });
    ix.add({ id: 'b1', text: 'Bob: What did you make?', speaker: 'Bob', own: '', addressed: 'What did you make?' });
    ix.add({ id: 'a2', text: 'Ann: I made a cup. How is your cat?', speaker: 'Ann', own: 'I made a cup.', addressed: 'How is your cat?' });
    ix.add({ id: 'plain', text: 'We use rollup.' });
    ix.add({ id: 'obs', text: 'Ann: quoted', speaker: 'Ann', own: 'quoted', derived: true });
    expect(ix.participants).toEqual(new Map([['Ann', 2], ['Bob', 1]]));
    const a1 = ix.numberOf('a1') ?? -1;
    expect(ix.speakerOf(a1)).toBe('Ann');
    // A line that is all its speaker's own words gives its text's terms, the name too; another gives its own words only ("made" is indexed as its verb, "make").
    expect([...(ix.ownTermsOf(a1) ?? [])]).toEqual(['ann', 'make', 'bowl']);
    expect([...(ix.ownTermsOf(ix.numberOf('a2') ?? -1) ?? [])]).toEqual(['make', 'cup']);
    expect(ix.ownTermsOf(ix.numberOf('b1') ?? -1)?.size).toBe(0);
    // Addressed words are kept the same way; a line that says no "you" has none, a plain memory is no line.
    // ("Bob" is indexed as the name it is short for, names.ts.)
    expect([...(ix.addressedTermsOf(ix.numberOf('b1') ?? -1) ?? [])]).toEqual(['robert', 'make']);
    expect([...(ix.addressedTermsOf(ix.numberOf('a2') ?? -1) ?? [])]).toEqual(['cat']);
    expect(ix.addressedTermsOf(a1)?.size).toBe(0);
    expect(ix.addressedTermsOf(ix.numberOf('plain') ?? -1)).toBeUndefined();
    expect(ix.hasOwnWords(a1)).toBe(true);
    expect(ix.hasOwnWords(ix.numberOf('b1') ?? -1)).toBe(false);
    expect(ix.hasOwnWords(ix.numberOf('plain') ?? -1)).toBe(false);
    expect(ix.speakerOf(ix.numberOf('plain') ?? -1)).toBeUndefined();
    // An observation quotes lines: it is nobody's line.
    expect(ix.speakerOf(ix.numberOf('obs') ?? -1)).toBeUndefined();
    ix.remove('b1');
    ix.remove('a2');
    expect(ix.participants).toEqual(new Map([['Ann', 1]]));
    for (let i = 0; i < 1100; i += 1) ix.add({ id: `x${i}`, text: `Bob: line ${i}`, speaker: 'Bob', own: `line ${i}` });
    for (let i = 0; i < 1100; i += 1) ix.remove(`x${i}`);
    ix.add({ id: 'x', text: 'Bob: I am back.', speaker: 'Bob', own: 'I am back.' });
    for (let i = 0; i < 1100; i += 1) ix.remove(`gone${i}`);
    expect(ix.participants).toEqual(new Map([['Ann', 1], ['Bob', 1]]));
    expect(ix.speakerOf(ix.numberOf('a1') ?? -1)).toBe('Ann');
    expect([...(ix.ownTermsOf(ix.numberOf('a1') ?? -1) ?? [])]).toEqual(['ann', 'make', 'bowl']);
    expect([...(ix.ownTermsOf(ix.numberOf('x') ?? -1) ?? [])]).toEqual(['robert', 'back']);
    expect(ix.addressedTermsOf(ix.numberOf('a1') ?? -1)?.size).toBe(0);
    ix.add({ id: 'y', text: 'Ann: How was your trip?', speaker: 'Ann', own: '', addressed: 'How was your trip?' });
    for (let i = 0; i < 1100; i += 1) ix.add({ id: `z${i}`, text: `Bob: line ${i}`, speaker: 'Bob', own: `line ${i}` });
    for (let i = 0; i < 1100; i += 1) ix.remove(`z${i}`);
    expect([...(ix.addressedTermsOf(ix.numberOf('y') ?? -1) ?? [])]).toEqual(['ann', 'trip']);
  });

  it('neighbours are the live documents either side in the thread, within the time gap', () => {
    const ix = new FieldIndex();
    ix.add({ id: 'b', text: 'two', thread: 's', order: 2000 });
    ix.add({ id: 'a', text: 'one', thread: 's', order: 1000 });
    ix.add({ id: 'c', text: 'three', thread: 's', order: 3000 });
    ix.add({ id: 'far', text: 'four', thread: 's', order: 10_000_000 });
    ix.add({ id: 'other', text: 'five', thread: 'u', order: 2500 });
    const at = (id: string): number => ix.numberOf(id) ?? -1;
    expect(ix.neighbours(at('b')).map((n) => ix.idOf(n))).toEqual(['a', 'c']);
    expect(ix.neighbours(at('c'), 1, 60_000).map((n) => ix.idOf(n))).toEqual(['b']);
    ix.remove('b');
    expect(ix.neighbours(at('a')).map((n) => ix.idOf(n))).toEqual(['c']);
  });

  it('scores the postings added since the last seal as it scores them sealed, every field, through removes (property)', () => {
    // Enough documents that a common term's postings span several of the pool's blocks.
    const word = fc.constantFrom<string>('alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta');
    const doc = fc.record({
      text: fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')),
      context: fc.option(word, { nil: undefined }),
      entities: fc.option(fc.array(word, { minLength: 1, maxLength: 2 }), { nil: undefined }),
      derived: fc.boolean(),
    });
    const op = fc.oneof({ weight: 6, arbitrary: fc.record({ add: fc.nat(300), doc }) }, { weight: 1, arbitrary: fc.record({ remove: fc.nat(300) }) });
    const all = { weight: [1, 0.4, 0.5] as const, b: [0.5, 0.75, 0.5] as const, k1: DEFAULT_FIELDS.k1 };
    const byId = (ix: FieldIndex, query: readonly WeightedTerm[]): Map<string, number> => {
      const pass = ix.score(query);
      const out = new Map<string, number>();
      for (const n of pass.touched.view()) out.set(ix.idOf(n) ?? '', pass.scores[n] ?? 0);
      ix.release(pass);
      return out;
    };
    fc.assert(
      fc.property(fc.array(op, { minLength: 200, maxLength: 1200 }), (ops) => {
        const ix = new FieldIndex(all);
        const live = new Map<string, { text: string; context?: string | undefined; entities?: string[] | undefined; derived: boolean }>();
        for (const o of ops) {
          if ('add' in o) {
            ix.add({ id: `d${o.add}`, ...o.doc });
            live.delete(`d${o.add}`);
            live.set(`d${o.add}`, o.doc);
          } else {
            ix.remove(`d${o.remove}`);
            live.delete(`d${o.remove}`);
          }
        }
        const sealed = FieldIndex.fromSealed(ix.seal(), all);
        const fresh = new FieldIndex(all);
        for (const [id, d] of live) fresh.add({ id, ...d });
        for (const query of ['alpha', 'zeta beta', 'gamma delta epsilon alpha']) {
          const scores = byId(ix, terms(query));
          expect(scores).toEqual(byId(sealed, terms(query)));
          expect(scores).toEqual(byId(fresh, terms(query)));
        }
        // Each live document that is not derived counts once per word, in whichever fields it has it.
        for (const w of ['alpha', 'zeta']) {
          const has = [...live.values()].filter((d) => !d.derived && [d.text, d.context ?? '', ...(d.entities ?? [])].some((f) => f.split(' ').includes(w)));
          expect(ix.documentFrequency(w)).toBe(has.length);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('scores exactly the accepted documents that share a term, best first (property)', () => {
    const word = fc.constantFrom<string>('alpha', 'beta', 'gamma', 'delta', 'epsilon');
    const doc = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 30 }), fc.array(word, { minLength: 1, maxLength: 3 }), (docs, q) => {
        const ix = new FieldIndex();
        docs.forEach((d, i) => ix.add({ id: `id${i}`, text: d }));
        const accept = (id: string): boolean => Number(id.slice(2)) % 2 === 0;
        const pass = ix.score(terms(q.join(' ')));
        const best = topK(pass.touched.view(), pass.scores, (n) => accept(ix.idOf(n) ?? ''), 1000);
        const scores = best.map((n) => pass.scores[n] ?? 0);
        const result = best.map((n) => ix.idOf(n) ?? '');
        ix.release(pass);
        const wanted = new Set(analyze(q.join(' ')));
        const expected = docs.flatMap((d, i) => (i % 2 === 0 && analyze(d).some((t) => wanted.has(t)) ? [`id${i}`] : []));
        expect([...result].sort()).toEqual(expected.sort());
        for (let i = 1; i < scores.length; i += 1) expect(scores[i - 1]).toBeGreaterThanOrEqual(scores[i] ?? 0);
      }),
    );
  });
});
