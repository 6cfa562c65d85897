import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ObservationInput, consolidate, diffObservations, scopesOf, stableUuid } from '../../../src/server/features/observations.js';
import { keyTerms } from '../../../src/server/features/terms.js';
import type { ObservationSourceFact } from '../../../src/server/features/observations.js';

const fact = (id: string, text: string, extra: Partial<ObservationSourceFact> = {}): ObservationSourceFact => ({
  id,
  text,
  type: 'world',
  tags: [],
  entities: [],
  mentionedAt: `2026-01-0${id.length}T00:00:00Z`,
  ...extra,
});

describe('scopesOf (reference 3.4)', () => {
  it('combined keeps the full tag set, sorted and unique', () => {
    expect(scopesOf(['b', 'a', 'b'], 'combined')).toEqual([['a', 'b']]);
    expect(scopesOf(['b', 'a'], undefined)).toEqual([['a', 'b']]);
  });
  it('per_tag gives one scope per tag; shared gives the untagged scope', () => {
    expect(scopesOf(['x', 'y'], 'per_tag')).toEqual([['x'], ['y']]);
    expect(scopesOf(['x', 'y'], 'shared')).toEqual([[]]);
  });
  it('all_combinations gives every non-empty subset (3 tags -> 7 scopes)', () => {
    expect(scopesOf(['a', 'b', 'c'], 'all_combinations')).toHaveLength(7);
  });
  it('an explicit list is used as given; [] falls back to combined', () => {
    expect(scopesOf(['a', 'b'], [['b'], [], ['b']])).toEqual([['b'], []]);
    expect(scopesOf(['a', 'b'], [])).toEqual([['a', 'b']]);
  });
});

describe('ObservationInput', () => {
  it("keeps each fact's key terms as numbers into one table holding each distinct term once", () => {
    const input = new ObservationInput();
    const texts = ['The deploy pipeline runs nightly', 'Nightly the pipeline deploys', 'Billing owns the pipeline'];
    texts.forEach((text, i) => input.add(fact(`f${i}`, text)));
    const all = texts.map((_, i) => input.termsOf(i));
    expect(all).toEqual(texts.map((text) => keyTerms(text)));
    // A pass over 1M facts holds every fact's terms: as numbers, with each term's string once.
    expect([...input.terms].sort()).toEqual([...new Set(all.flat())].sort());
    expect(input.ids).toEqual(['f0', 'f1', 'f2']);
  });
  it('leaves observations out and files a fact under each of its scopes', () => {
    const input = new ObservationInput();
    expect(input.add(fact('o1', 'deploy deploy', { type: 'observation' }))).toBe(-1);
    expect(input.add(fact('f1', 'Tabs win', { tags: ['b', 'a'], observationScopes: 'per_tag' }))).toBe(0);
    expect([...input.scopes.keys()]).toEqual(['["a"]', '["b"]']);
    expect(input.size).toBe(1);
  });
});

describe('consolidate', () => {
  const facts = [
    fact('f1', 'The deploy pipeline runs on GitHub Actions. Coffee is nice.'),
    fact('f2', 'Deploys need the staging approval first.'),
    fact('f3', 'Alice prefers tabs over spaces.', { entities: ['Alice'] }),
    fact('f4', 'The cache layer uses Redis.'),
  ];

  it('groups facts sharing a key term and quotes the sentence that mentions it', () => {
    const out = consolidate(facts, { bankId: 'b' });
    const deploy = out.find((o) => o.key === 'term:deploy');
    expect(deploy).toBeDefined();
    expect(deploy?.sourceFactIds).toEqual(['f2', 'f1'].sort((a, b) => (a < b ? -1 : 1)));
    expect(deploy?.proofCount).toBe(2);
    expect(deploy?.text).toContain('The deploy pipeline runs on GitHub Actions.');
    expect(deploy?.text).not.toContain('Coffee');
    expect(deploy?.tags).toEqual([]);
  });

  it('an entity makes an observation even from one fact; a lone term does not', () => {
    const out = consolidate(facts, { bankId: 'b' });
    expect(out.find((o) => o.key === 'entity:alice')?.sourceFactIds).toEqual(['f3']);
    expect(out.find((o) => o.key === 'term:redis')).toBeUndefined();
  });

  it('never builds observations from observations', () => {
    const out = consolidate([fact('o1', 'deploy deploy', { type: 'observation' }), fact('o2', 'deploy again', { type: 'observation' })], { bankId: 'b' });
    expect(out).toEqual([]);
  });

  it('keeps scopes apart: the same term in two tag sets gives two observations with those tags', () => {
    const out = consolidate(
      [
        fact('a1', 'Release notes live in CHANGELOG.', { tags: ['project:a'] }),
        fact('a2', 'Release happens on Fridays.', { tags: ['project:a'] }),
        fact('b1', 'Release is automated.', { tags: ['project:b'] }),
        fact('b2', 'Release needs two reviewers.', { tags: ['project:b'] }),
      ],
      { bankId: 'b' },
    );
    const releases = out.filter((o) => o.key === 'term:release');
    expect(releases.map((o) => o.tags)).toEqual([['project:a'], ['project:b']]);
    expect(new Set(releases.map((o) => o.id)).size).toBe(2);
  });

  it('shared scope puts tagged facts into one untagged observation', () => {
    const out = consolidate(
      [
        fact('a1', 'Linting uses eslint.', { tags: ['source:host', 'project:a'], observationScopes: 'shared' }),
        fact('a2', 'Eslint runs in CI.', { tags: ['source:import', 'project:a'], observationScopes: 'shared' }),
      ],
      { bankId: 'b' },
    );
    const eslint = out.find((o) => o.key === 'term:eslint');
    expect(eslint?.tags).toEqual([]);
    expect(eslint?.proofCount).toBe(2);
  });

  it('is deterministic and its ids are stable UUIDs', () => {
    const a = consolidate(facts, { bankId: 'b' });
    const b = consolidate([...facts].reverse(), { bankId: 'b' });
    expect(b).toEqual(a);
    for (const o of a) expect(o.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stableUuid('x')).toBe(stableUuid('x'));
    expect(stableUuid('x', 'y')).not.toBe(stableUuid('xy'));
  });

  it('a new fact updates the group: diff upserts it and deletes groups that vanished', () => {
    const before = consolidate(facts, { bankId: 'b' });
    const after = consolidate([...facts.filter((f) => f.id !== 'f2'), fact('f5', 'Redis runs in a container.')], { bankId: 'b' });
    const diff = diffObservations(before, after);
    expect(diff.deletes).toContain(before.find((o) => o.key === 'term:deploy')?.id);
    expect(diff.upserts.map((o) => o.key)).toContain('term:redis');
    expect(diffObservations(after, after)).toEqual({ upserts: [], deletes: [] });
  });

  it('every source fact id exists in the input and every observation has proof', () => {
    const text = fc.array(fc.constantFrom('deploy', 'cache', 'redis', 'tests', 'the', 'runs', 'fast', 'slow', 'Alice'), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.subarray(['a', 'b', 'c'])), { maxLength: 12 }), (rows) => {
        const input = rows.map(([words, tags], i) => fact(`f${i}`, words.join(' '), { tags }));
        const ids = new Set(input.map((f) => f.id));
        for (const o of consolidate(input, { bankId: 'p' })) {
          expect(o.proofCount).toBe(o.sourceFactIds.length);
          expect(o.proofCount).toBeGreaterThan(0);
          for (const id of o.sourceFactIds) expect(ids.has(id)).toBe(true);
          expect(o.text.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});
