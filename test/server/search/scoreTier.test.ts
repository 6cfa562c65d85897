import { describe, expect, it } from 'vitest';
import { askV8 } from '../../helpers/askV8.js';

describe('FieldIndex.score under V8', () => {
  it('stays optimised from an index of its own documents to one of derived documents only and back', () => {
    // The field averages were a `.map` of the statistics: all 1 (small integers) for a bank of
    // observations only, doubles for any other, and V8 threw `score`'s optimised code away at
    // the first of the other kind ("wrong map"), in a young server's warm-ups.
    const seen = askV8(`
      const { FieldIndex } = await import('./src/server/search/fieldIndex.ts');
      const own = new FieldIndex();
      own.add({ id: 'a', text: 'The database is PostgreSQL on the managed instance.' });
      own.add({ id: 'b', text: 'Sprint planning happens every other Wednesday.' });
      own.add({ id: 'c', text: 'We bought a new automobile last spring.' });
      const derived = new FieldIndex();
      derived.add({ id: 'o', text: 'Planning: sprint planning happens every other Wednesday.', derived: true });
      const score = FieldIndex.prototype.score;
      const terms = [{ term: 'sprint', weight: 1 }];
      %PrepareFunctionForOptimization(score);
      for (let i = 0; i < 3; i += 1) { own.score(terms); derived.score(terms); }
      %OptimizeFunctionOnNextCall(score);
      const ownTouched = own.score(terms).touched.view().length;
      const before = %ActiveTierIsTurbofan(score);
      const derivedTouched = derived.score(terms).touched.view().length;
      const afterDerived = %ActiveTierIsTurbofan(score);
      own.score(terms);
      console.log(JSON.stringify({ ownTouched, derivedTouched, before, afterDerived, after: %ActiveTierIsTurbofan(score) }));
    `);
    expect(seen).toEqual({ ownTouched: 1, derivedTouched: 1, before: true, afterDerived: true, after: true });
  });
});
