/**
 * Conformance (4): the tag truth table of reference 2.2 (and the tag_groups examples of 2.3),
 * row by row, through the official client's `recall` and `reflect` against the embedded
 * server. Bank: M1 [user:alice], M2 [user:bob], M3 [user:alice, team], M4 untagged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HindsightClient } from '@vectorize-io/hindsight-client';
import type { TagGroupAndInput, TagGroupLeaf, TagGroupNotInput, TagGroupOrInput } from '@vectorize-io/hindsight-client';
import { startTestServer } from '../../helpers/embeddedServer.js';
import type { TestServer } from '../../helpers/embeddedServer.js';

type Mode = 'any' | 'all' | 'any_strict' | 'all_strict' | 'exact';
type Group = TagGroupLeaf | TagGroupAndInput | TagGroupOrInput | TagGroupNotInput;

interface Row {
  readonly request: string;
  readonly tags?: string[];
  readonly tagsMatch?: Mode;
  readonly tagGroups?: Group[];
  readonly expected: readonly string[];
}

const table: readonly Row[] = [
  { request: 'no tags (any)', expected: ['M1', 'M2', 'M3', 'M4'] },
  { request: 'no tags (all_strict)', tagsMatch: 'all_strict', expected: ['M1', 'M2', 'M3', 'M4'] },
  { request: '[user:alice] any', tags: ['user:alice'], tagsMatch: 'any', expected: ['M1', 'M3', 'M4'] },
  { request: '[user:alice] any_strict', tags: ['user:alice'], tagsMatch: 'any_strict', expected: ['M1', 'M3'] },
  { request: '[user:alice, team] all', tags: ['user:alice', 'team'], tagsMatch: 'all', expected: ['M3', 'M4'] },
  { request: '[user:alice, team] all_strict', tags: ['user:alice', 'team'], tagsMatch: 'all_strict', expected: ['M3'] },
  { request: '[user:alice] all_strict', tags: ['user:alice'], tagsMatch: 'all_strict', expected: ['M1', 'M3'] },
  { request: '[user:alice] exact', tags: ['user:alice'], tagsMatch: 'exact', expected: ['M1'] },
  { request: '[team, user:alice] exact', tags: ['team', 'user:alice'], tagsMatch: 'exact', expected: ['M3'] },
  { request: '[] exact', tags: [], tagsMatch: 'exact', expected: ['M4'] },
  { request: 'omitted exact', tagsMatch: 'exact', expected: ['M4'] },
  { request: '[nobody] any', tags: ['nobody'], tagsMatch: 'any', expected: ['M4'] },
  { request: '[nobody] any_strict', tags: ['nobody'], tagsMatch: 'any_strict', expected: [] },
  {
    request: 'groups: alice all_strict AND NOT team',
    tagGroups: [{ tags: ['user:alice'], match: 'all_strict' }, { not: { tags: ['team'], match: 'any_strict' } }],
    expected: ['M1'],
  },
  { request: 'groups: bob OR team (leaf default any_strict)', tagGroups: [{ or: [{ tags: ['user:bob'] }, { tags: ['team'] }] }], expected: ['M2', 'M3'] },
  { request: 'groups: NOT team (strict child)', tagGroups: [{ not: { tags: ['team'], match: 'any_strict' } }], expected: ['M1', 'M2', 'M4'] },
  { request: 'groups: NOT team (lenient child)', tagGroups: [{ not: { tags: ['team'], match: 'any' } }], expected: ['M1', 'M2'] },
];

const label = (text: string): string => text.slice(0, 2);

describe('tag truth table (reference 2.2) through the official client', () => {
  let server: TestServer;
  let client: HindsightClient;
  const BANK = 'tags';

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    client = new HindsightClient({ baseUrl: server.url });
    await client.retainBatch(BANK, [
      { content: 'M1 planning memo', document_id: 'm1', tags: ['user:alice'] },
      { content: 'M2 planning memo', document_id: 'm2', tags: ['user:bob'] },
      { content: 'M3 planning memo', document_id: 'm3', tags: ['user:alice', 'team'] },
      { content: 'M4 planning memo', document_id: 'm4' },
    ]);
  });
  afterAll(async () => {
    await server.dispose();
  });

  for (const row of table) {
    const options = {
      ...(row.tags === undefined ? {} : { tags: row.tags }),
      ...(row.tagsMatch === undefined ? {} : { tagsMatch: row.tagsMatch }),
      ...(row.tagGroups === undefined ? {} : { tagGroups: row.tagGroups }),
    };

    it(`recall ${row.request} -> ${row.expected.join(' ') || '(none)'}`, async () => {
      const res = await client.recall(BANK, 'planning memo', { types: ['world'], ...options });
      expect(res.results.map((r) => label(r.text)).sort()).toEqual(row.expected);
    });

    it(`reflect based_on ${row.request} -> ${row.expected.join(' ') || '(none)'}`, async () => {
      const res = await client.reflect(BANK, 'planning memo', { factTypes: ['world'], includeFacts: true, ...options });
      expect((res.based_on?.memories ?? []).map((m) => label(m.text)).sort()).toEqual(row.expected);
    });
  }
});
