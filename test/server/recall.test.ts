import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';

let server: TestServer;
const B = '/v1/default/banks';
const recall = (bank: string, body: unknown) => call(server, 'POST', `${B}/${bank}/memories/recall`, body);
const names = (res: { body: { results: { document_id: string }[] } }): string[] => res.body.results.map((r) => r.document_id).sort();

beforeAll(async () => {
  server = await startTestServer({ persist: false });
  // Reference 2.2: M1 [alice], M2 [bob], M3 [alice, team], M4 untagged; all share the word "memo".
  await call(server, 'POST', `${B}/tags/memories`, {
    items: [
      { content: 'memo one', document_id: 'M1', tags: ['user:alice'] },
      { content: 'memo two', document_id: 'M2', tags: ['user:bob'] },
      { content: 'memo three', document_id: 'M3', tags: ['user:alice', 'team'] },
      { content: 'memo four', document_id: 'M4' },
    ],
  });
});
afterAll(async () => {
  await server.dispose();
});

// types: world only, so observations built by the server's consolidation stay out of the table.
const base = { query: 'memo', types: ['world'] };

describe('tag filter truth table (reference 2.2)', () => {
  const table: [string, Record<string, unknown>, string[]][] = [
    ['no tags, any', {}, ['M1', 'M2', 'M3', 'M4']],
    ['no tags, all_strict', { tags_match: 'all_strict' }, ['M1', 'M2', 'M3', 'M4']],
    ['[alice] any', { tags: ['user:alice'], tags_match: 'any' }, ['M1', 'M3', 'M4']],
    ['[alice] default mode is any', { tags: ['user:alice'] }, ['M1', 'M3', 'M4']],
    ['[alice] any_strict', { tags: ['user:alice'], tags_match: 'any_strict' }, ['M1', 'M3']],
    ['[alice, team] all', { tags: ['user:alice', 'team'], tags_match: 'all' }, ['M3', 'M4']],
    ['[alice, team] all_strict', { tags: ['user:alice', 'team'], tags_match: 'all_strict' }, ['M3']],
    ['[alice] all_strict', { tags: ['user:alice'], tags_match: 'all_strict' }, ['M1', 'M3']],
    ['[alice] exact', { tags: ['user:alice'], tags_match: 'exact' }, ['M1']],
    ['[team, alice] exact (order-independent)', { tags: ['team', 'user:alice'], tags_match: 'exact' }, ['M3']],
    ['[] exact', { tags: [], tags_match: 'exact' }, ['M4']],
    ['omitted exact', { tags_match: 'exact' }, ['M4']],
    ['[] any (no filter)', { tags: [], tags_match: 'any' }, ['M1', 'M2', 'M3', 'M4']],
    ['[nobody] any', { tags: ['nobody'], tags_match: 'any' }, ['M4']],
    ['[nobody] any_strict', { tags: ['nobody'], tags_match: 'any_strict' }, []],
  ];
  it.each(table)('%s', async (_name, filter, expected) => {
    const res = await recall('tags', { ...base, ...filter });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(expected);
  });
});

describe('tag_groups (reference 2.3)', () => {
  const table: [string, unknown[], string[], string?][] = [
    ['leaf default any_strict', [{ tags: ['user:alice'] }], ['M1', 'M3']],
    ['all_strict alice AND not team', [{ tags: ['user:alice'], match: 'all_strict' }, { not: { tags: ['team'], match: 'any_strict' } }], ['M1']],
    ['or of two leaves', [{ or: [{ tags: ['user:bob'] }, { tags: ['team'] }] }], ['M2', 'M3']],
    ['not strict child keeps untagged', [{ not: { tags: ['team'], match: 'any_strict' } }], ['M1', 'M2', 'M4']],
    ['not lenient child drops untagged', [{ not: { tags: ['team'], match: 'any' } }], ['M1', 'M2']],
    ['and', [{ and: [{ tags: ['user:alice'] }, { tags: ['team'] }] }], ['M3']],
    ['empty leaf any -> untagged only', [{ tags: [], match: 'any' }], ['M4']],
    ['empty leaf any_strict -> nothing', [{ tags: [] }], []],
    ['empty leaf all -> everything', [{ tags: [], match: 'all' }], ['M1', 'M2', 'M3', 'M4']],
    ['empty leaf all_strict -> tagged', [{ tags: [], match: 'all_strict' }], ['M1', 'M2', 'M3']],
    ['top-level exact AND groups -> untagged only', [{ tags: [], match: 'all' }], ['M4'], 'exact'],
  ];
  it.each(table)('%s', async (_name, groups, expected, topMode) => {
    const res = await recall('tags', { ...base, tag_groups: groups, ...(topMode === undefined ? {} : { tags_match: topMode }) });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(expected);
  });

  it('tags with tag_groups is a 422 (tags: [] counts)', async () => {
    const res = await recall('tags', { ...base, tags: [], tag_groups: [{ tags: ['x'] }] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      type: 'value_error',
      loc: ['body'],
      msg: "Value error, 'tags' and 'tag_groups' are mutually exclusive. Use 'tag_groups' for compound filtering.",
    });
  });
});

describe('recall ranking, budgets and tokens', () => {
  beforeAll(async () => {
    const items = Array.from({ length: 30 }, (_, i) => ({
      content: `${'apple '.repeat(30 - i)}filler${i} ${'x'.repeat(40)}`,
      document_id: `doc-${String(i).padStart(2, '0')}`,
    }));
    await call(server, 'POST', `${B}/rank/memories`, { items });
  });

  it('ranks by BM25, best first, with keyword and final scores', async () => {
    const res = await recall('rank', { query: 'apple', types: ['world'] });
    const results = res.body.results as { document_id: string; scores: { keyword: number; final: number } }[];
    expect(results.length).toBe(30);
    expect(results[0]?.document_id).toBe('doc-00');
    expect(results[0]?.scores.final).toBe(1);
    for (let i = 1; i < results.length; i += 1) expect(results[i - 1]!.scores.keyword).toBeGreaterThanOrEqual(results[i]!.scores.keyword);
  });

  it('max_tokens stops at the first result that does not fit; 0 gives no results but still chunks', async () => {
    const all = (await recall('rank', { query: 'apple', types: ['world'] })).body.results as { text: string }[];
    const cost = (t: string) => Math.ceil(t.length / 4);
    const budget = cost(all[0]!.text) + cost(all[1]!.text) + 1;
    const cut = await recall('rank', { query: 'apple', types: ['world'], max_tokens: budget });
    expect(cut.body.results).toHaveLength(2);
    const none = await recall('rank', { query: 'apple', types: ['world'], max_tokens: 0, include: { chunks: { max_tokens: 100 } } });
    expect(none.body.results).toEqual([]);
    const chunks = Object.values(none.body.chunks) as { text: string; truncated: boolean }[];
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks[chunks.length - 1]?.truncated).toBe(true);
    expect(chunks.reduce((n, c) => n + cost(c.text), 0)).toBeLessThanOrEqual(100);
  });

  it('includes entities by default and drops them with include.entities null', async () => {
    await call(server, 'POST', `${B}/ent/memories`, { items: [{ content: 'Alice wrote the parser', entities: [{ text: 'Alice', type: 'PERSON' }] }] });
    const res = await recall('ent', { query: 'parser', types: ['world'] });
    expect(res.body.results[0].entities).toEqual(['Alice']);
    expect(res.body.entities.Alice).toMatchObject({ canonical_name: 'Alice', observations: [] });
    const off = await recall('ent', { query: 'parser', types: ['world'], include: { entities: null } });
    expect(off.body.results[0].entities).toBeUndefined();
    expect(off.body.entities).toBeUndefined();
  });

  it('trace: true adds a same-keyed trace', async () => {
    const res = await recall('rank', { query: 'apple', types: ['world'], trace: true, budget: 'low' });
    expect(res.body.trace).toMatchObject({ query: { query_text: 'apple', budget: 100 }, summary: { results_returned: 30 } });
    expect(res.body.trace.retrieval_results[0].method_name).toBe('keyword');
    expect(res.body.trace.final_results[0]).toMatchObject({ stage: 'keyword' });
  });

  it('an unknown bank yields no results and creates nothing', async () => {
    const res = await recall('nobody-here', { query: 'apple' });
    expect(res.body).toEqual({ results: [] });
    expect((await call(server, 'GET', `${B}?q=nobody-here`)).body.banks).toEqual([]);
  });
});

describe('recall validation', () => {
  it('types: opinion dropped, bogus -> 422 with a string detail', async () => {
    expect((await recall('tags', { query: 'memo', types: ['world', 'opinion'] })).status).toBe(200);
    const res = await recall('tags', { query: 'memo', types: ['bogus'] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe('Invalid fact type(s): bogus. Must be one of: experience, observation, world');
  });
  it('a query with no word characters is a 422', async () => {
    const res = await recall('tags', { query: '?!' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'query']);
  });
  it('a query over 500 tokens is a 400', async () => {
    const res = await recall('tags', { query: 'word '.repeat(500) });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Query too long: \d+ tokens exceeds maximum of 500/);
  });
  it('a bad query_timestamp is a 400', async () => {
    const res = await recall('tags', { query: 'memo', query_timestamp: 'last tuesday' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('Invalid query_timestamp');
  });
  it('bad budget and missing query are 422 with the field path', async () => {
    const res = await recall('tags', { budget: 'huge' });
    expect(res.status).toBe(422);
    const locs = (res.body.detail as { loc: unknown[] }[]).map((d) => d.loc);
    expect(locs).toEqual(expect.arrayContaining([['body', 'query'], ['body', 'budget']]));
  });
});
