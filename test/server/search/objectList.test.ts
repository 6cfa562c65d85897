import { describe, expect, it } from 'vitest';
import { askV8 } from '../../helpers/askV8.js';
import { objectList } from '../../../src/server/search/objectList.js';

describe('objectList', () => {
  it('gives a new empty list each call, which holds what is pushed and nothing of another', () => {
    const a = objectList<{ n: number }>();
    const b = objectList<{ n: number }>({ n: 0.5 });
    expect(a).toEqual([]);
    expect(b).toEqual([]);
    a.push({ n: 1 });
    expect(a).toEqual([{ n: 1 }]);
    expect(b).toEqual([]);
    expect(objectList()).toEqual([]);
  });

  it('is an array of objects to V8 while empty, where a [] literal and the .map of an empty array are not', () => {
    const kinds = askV8<Record<string, boolean>>(`
      const { objectList } = await import('./src/server/search/objectList.ts');
      const empty = objectList();
      const mapped = [].map((x) => ({ x }));
      console.log(JSON.stringify({ list: %HasObjectElements(empty), listPacked: !%HasHoleyElements(empty), literal: %HasObjectElements([]), mapped: %HasObjectElements(mapped) }));
    `);
    expect(kinds).toEqual({ list: true, listPacked: true, literal: false, mapped: false });
  });

  it("rank's hits and expansion terms are arrays of objects when empty too (the lists it read `.length` of)", () => {
    const kinds = askV8<Record<string, boolean>>(`
      const { FieldIndex } = await import('./src/server/search/fieldIndex.ts');
      const { rank } = await import('./src/server/search/ranker.ts');
      const index = new FieldIndex();
      index.add({ id: 'a', text: 'The database is PostgreSQL on the managed instance.' });
      index.add({ id: 'b', text: 'Sprint planning happens every other Wednesday.' });
      const input = (query) => ({ index, query, accept: () => true, limit: 10, textOf: () => '' });
      const none = rank(input('zzqx'));
      const some = rank(input('planning'));
      console.log(JSON.stringify({ noHits: none.hits.length === 0 && %HasObjectElements(none.hits), someHits: some.hits.length > 0 && %HasObjectElements(some.hits), noExpansion: some.terms.expansion.length === 0 && %HasObjectElements(some.terms.expansion) }));
    `);
    expect(kinds).toEqual({ noHits: true, someHits: true, noExpansion: true });
  });
  it("rank optimised on queries without an expansion stays optimised at the first with one, and its keyword and expansion terms are one kind of array", () => {
    // The server's first query with an expansion came after V8 had optimised `rank` on queries
    // without one: it was thrown away there (an access it had never run), and `score` at its loop
    // over terms of another array kind. %ActiveTierIsTurbofan: whether optimised code runs now.
    const seen = askV8<Record<string, boolean>>(`
      const { FieldIndex } = await import('./src/server/search/fieldIndex.ts');
      const { rank } = await import('./src/server/search/ranker.ts');
      const index = new FieldIndex();
      index.add({ id: 'a', text: 'The database is PostgreSQL on the managed instance.' });
      index.add({ id: 'b', text: 'Sprint planning happens every other Wednesday.' });
      index.add({ id: 'c', text: 'We bought a new automobile last spring.' });
      const input = (query) => ({ index, query, accept: () => true, limit: 10, textOf: () => '' });
      %PrepareFunctionForOptimization(rank);
      for (let i = 0; i < 3; i += 1) rank(input('planning'));
      rank(input('planning sprint'));
      %OptimizeFunctionOnNextCall(rank);
      const plain = rank(input('planning'));
      const before = %ActiveTierIsTurbofan(rank);
      const expanded = rank(input('car'));
      console.log(JSON.stringify({ plain: plain.terms.expansion.length === 0, expanded: expanded.terms.expansion.length > 0 && expanded.hits.length > 0, before, after: %ActiveTierIsTurbofan(rank), sameKind: %HaveSameMap(plain.terms.keyword, expanded.terms.expansion) }));
    `);
    expect(seen).toEqual({ plain: true, expanded: true, before: true, after: true, sameKind: true });
  });
});
