import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRight } from 'fp-ts/lib/Either.js';
import { composeTagFilter, TagGroup, tagsMatchModes, type TagFilterInput } from '../../src/config/tagFilter.js';
import { decodeWith } from '../../src/codecs/decode.js';
import { matchesGroup } from '../../src/server/recall/tagFilter.js';

// Which memories a composed filter selects, judged by the embedded server's own tag evaluator
// (itself pinned to the reference truth table in test/server), not by how the request looks.
const selects = (input: TagFilterInput, memoryTags: readonly string[]): boolean => {
  const filter = composeTagFilter(input);
  // The composition only ever produces groups; a flat `tags` next to groups is a 422 upstream.
  expect(filter.tags).toBeUndefined();
  return (filter.tag_groups ?? []).every((g) => matchesGroup(g, memoryTags));
};

const SCOPE = ['project:acme/app', 'repo:app-1234'];
const bank: Record<string, readonly string[]> = {
  mine: ['project:acme/app'],
  mineLegacy: ['repo:app-1234'],
  mineAuth: ['project:acme/app', 'area:auth'],
  mineAuthDb: ['project:acme/app', 'area:auth', 'area:db'],
  other: ['project:other'],
  otherAuth: ['project:other', 'area:auth'],
  untagged: [],
  authOnly: ['area:auth'],
};

const selected = (input: TagFilterInput): string[] =>
  Object.entries(bank)
    .filter(([, tags]) => selects(input, tags))
    .map(([name]) => name)
    .sort();

describe('composeTagFilter: which memories each mode selects', () => {
  const cases: { name: string; input: Omit<TagFilterInput, 'scopeTags'>; expected: string[] }[] = [
    { name: 'no caller tags: the scope alone', input: {}, expected: ['mine', 'mineAuth', 'mineAuthDb', 'mineLegacy'] },
    // A leaf in `any` also admits untagged memories, which the scope leaf then drops.
    { name: 'any', input: { tags: ['area:auth'], tagsMatch: 'any' }, expected: ['mineAuth', 'mineAuthDb'] },
    { name: 'any_strict', input: { tags: ['area:auth'], tagsMatch: 'any_strict' }, expected: ['mineAuth', 'mineAuthDb'] },
    { name: 'all', input: { tags: ['area:auth', 'area:db'], tagsMatch: 'all' }, expected: ['mineAuthDb'] },
    { name: 'all_strict', input: { tags: ['area:auth', 'area:db'], tagsMatch: 'all_strict' }, expected: ['mineAuthDb'] },
    { name: 'exact folds the scope tags into the set', input: { tags: ['area:auth'], tagsMatch: 'exact' }, expected: [] },
    { name: 'default mode is any_strict', input: { tags: ['area:db'] }, expected: ['mineAuthDb'] },
    { name: 'tags that nothing has', input: { tags: ['nobody'], tagsMatch: 'any_strict' }, expected: [] },
    { name: 'caller groups narrow', input: { tagGroups: [{ not: { tags: ['area:db'], match: 'any_strict' } }] }, expected: ['mine', 'mineAuth', 'mineLegacy'] },
    {
      name: 'a caller group that tries to widen with or is still AND-ed with the scope',
      input: { tagGroups: [{ or: [{ tags: ['project:other'] }, { tags: ['area:auth'] }] }] },
      expected: ['mineAuth', 'mineAuthDb'],
    },
    { name: 'shared observations add untagged memories', input: { includeSharedObservations: true }, expected: ['mine', 'mineAuth', 'mineAuthDb', 'mineLegacy', 'untagged'] },
    {
      name: 'shared observations with a caller filter',
      input: { tags: ['area:auth'], tagsMatch: 'any', includeSharedObservations: true },
      expected: ['mineAuth', 'mineAuthDb', 'untagged'],
    },
  ];
  it.each(cases)('$name', ({ input, expected }) => {
    expect(selected({ scopeTags: SCOPE, ...input })).toEqual(expected);
  });

  it('exact with the whole tag set selects that memory alone', () => {
    const exactBank = { only: ['project:acme/app', 'area:auth'], more: ['project:acme/app', 'area:auth', 'area:db'] };
    const input: TagFilterInput = { scopeTags: ['project:acme/app'], tags: ['area:auth'], tagsMatch: 'exact' };
    expect(selects(input, exactBank.only)).toBe(true);
    expect(selects(input, exactBank.more)).toBe(false);
    expect(composeTagFilter(input)).toEqual({ tag_groups: [{ tags: ['project:acme/app', 'area:auth'], match: 'exact' }] });
  });

  it('every mode produces a request the server accepts: groups only, each decodable', () => {
    for (const mode of tagsMatchModes) {
      for (const shared of [false, true]) {
        const filter = composeTagFilter({ scopeTags: SCOPE, tags: ['a'], tagsMatch: mode, includeSharedObservations: shared });
        expect(filter.tags).toBeUndefined();
        expect(filter.tags_match).toBeUndefined();
        for (const g of filter.tag_groups ?? []) expect(isRight(decodeWith(TagGroup, 'tag group')(g))).toBe(true);
      }
    }
  });

  it('with no scope and no filter sends nothing', () => {
    expect(composeTagFilter({ scopeTags: [] })).toEqual({});
  });

  it('with no scope but shared observations selects only untagged memories', () => {
    expect(composeTagFilter({ scopeTags: [], includeSharedObservations: true })).toEqual({ tag_groups: [{ tags: [], match: 'exact' }] });
  });

  it('deduplicates tags', () => {
    expect(composeTagFilter({ scopeTags: ['p', 'p'], tags: ['x', 'x'], tagsMatch: 'all' })).toEqual({
      tag_groups: [
        { tags: ['p'], match: 'any_strict' },
        { tags: ['x'], match: 'all' },
      ],
    });
  });
});

describe('composeTagFilter: the scope filter can never be dropped (property)', () => {
  const tag = fc.constantFrom('project:acme/app', 'repo:app-1234', 'project:other', 'area:auth', 'area:db', 'x');
  const tags = fc.uniqueArray(tag, { maxLength: 4 });
  const mode = fc.constantFrom(...tagsMatchModes);
  const group: fc.Arbitrary<TagGroup> = fc.letrec<{ g: TagGroup }>((tie) => ({
    g: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.record({ tags, match: mode }),
      fc.record({ and: fc.array(tie('g'), { maxLength: 3 }) }),
      fc.record({ or: fc.array(tie('g'), { maxLength: 3 }) }),
      fc.record({ not: tie('g') }),
    ),
  })).g;

  it('a selected memory carries a scope tag, or is an untagged shared observation', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(tag, { minLength: 1, maxLength: 2 }),
        fc.option(tags, { nil: undefined }),
        fc.option(mode, { nil: undefined }),
        fc.option(fc.array(group, { maxLength: 3 }), { nil: undefined }),
        fc.boolean(),
        tags,
        (scopeTags, callerTags, tagsMatch, tagGroups, shared, memoryTags) => {
          const input: TagFilterInput = { scopeTags, tags: callerTags, tagsMatch, tagGroups, includeSharedObservations: shared };
          if (!selects(input, memoryTags)) return;
          const inScope = memoryTags.some((t) => scopeTags.includes(t));
          const sharedObservation = shared && memoryTags.length === 0;
          expect(inScope || sharedObservation).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('adding caller tags or groups never selects a memory the scope alone would not', () => {
    fc.assert(
      fc.property(fc.uniqueArray(tag, { minLength: 1, maxLength: 2 }), tags, mode, fc.array(group, { maxLength: 2 }), tags, (scopeTags, callerTags, tagsMatch, tagGroups, memoryTags) => {
        const narrowed = selects({ scopeTags, tags: callerTags, tagsMatch, tagGroups }, memoryTags);
        const scopeOnly = selects({ scopeTags }, memoryTags);
        // `exact` replaces the scope leaf by an exact set that contains the scope tags.
        if (narrowed && !(tagsMatch === 'exact' && callerTags.length > 0)) expect(scopeOnly).toBe(true);
        if (narrowed) expect(memoryTags.some((t) => scopeTags.includes(t))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
