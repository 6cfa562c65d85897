/**
 * Conformance (3): the 18 behaviours of reference 8.7, one test each, against the embedded
 * server over HTTP. The clock steps one second a call so "advanced" and "kept" timestamps
 * are observable without sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClockPort } from '../../../src/effects/ports/clock.js';
import { call, startTestServer } from '../../helpers/embeddedServer.js';
import type { TestServer } from '../../helpers/embeddedServer.js';

const steppingClock = (): ClockPort => {
  let now = Date.parse('2026-03-01T00:00:00Z');
  return {
    now: () => (now += 1000),
    setTimer: (_at, fire) => {
      const handle = setTimeout(fire, 0);
      return () => clearTimeout(handle);
    },
  };
};

const bank = (name: string): string => `/v1/default/banks/${name}`;

// Responses are untyped JSON here; these helpers keep the assertions readable.
type Json = Record<string, unknown>;
const recallTexts = (body: unknown): string[] => ((body as { results: { text: string }[] }).results ?? []).map((r) => r.text);
const recallIds = (body: unknown): string[] => ((body as { results: { id: string }[] }).results ?? []).map((r) => r.id);

const hasNull = (value: unknown): boolean => {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(hasNull);
  if (typeof value === 'object') return Object.values(value as Json).some(hasNull);
  return false;
};

type FactItem = { id: string; text: string; tags: string[]; document_id: string };
const factsOf = async (server: TestServer, b: string, documentId: string): Promise<FactItem[]> => {
  const res = await call(server, 'GET', `${bank(b)}/memories/list?document_id=${encodeURIComponent(documentId)}&limit=1000`);
  return (res.body as { items: FactItem[] }).items;
};

describe('reference 8.7 behaviours', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ persist: false, clock: steppingClock() });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('1. append: one document, old + "\\n" + new, each item recalled as its own memory, count kept, updated_at advanced, created_at kept', async () => {
    const b = bank('b1');
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Alpha uses rollup.', document_id: 'd' }] });
    const before = (await call(server, 'GET', `${b}/documents/d`)).body as Json;
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Beta uses vitest.', document_id: 'd', update_mode: 'append' }] });
    const after = (await call(server, 'GET', `${b}/documents/d`)).body as Json;
    expect(after['original_text']).toBe('Alpha uses rollup.\nBeta uses vitest.');
    expect((await call(server, 'GET', `${b}/documents`)).body.total).toBe(1);
    // Each item is its own memory (issue 13): the document groups them, recall finds each by its own words.
    // Neighbouring items of the same document may follow (issue 14); the matching item leads, and
    // no result is a merged text.
    const rollup = recallTexts((await call(server, 'POST', `${b}/memories/recall`, { query: 'rollup', types: ['world'] })).body);
    const vitest = recallTexts((await call(server, 'POST', `${b}/memories/recall`, { query: 'vitest', types: ['world'] })).body);
    expect(rollup[0]).toBe('Alpha uses rollup.');
    expect(vitest[0]).toBe('Beta uses vitest.');
    for (const text of [...rollup, ...vitest]) expect(['Alpha uses rollup.', 'Beta uses vitest.']).toContain(text);
    expect((await factsOf(server, 'b1', 'd')).map((f) => f.document_id)).toEqual(['d', 'd']);
    expect(String(after['updated_at']) > String(before['updated_at'])).toBe(true);
    expect(after['created_at']).toBe(before['created_at']);
  });

  it('2. append onto a missing document creates it; JSON arrays on both sides merge into one array', async () => {
    const b = bank('b2');
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Only B.', document_id: 'new', update_mode: 'append' }] });
    expect((await call(server, 'GET', `${b}/documents/new`)).body.original_text).toBe('Only B.');
    const first = JSON.stringify([{ role: 'user', content: 'hi' }]);
    const second = JSON.stringify([{ role: 'assistant', content: 'hello' }]);
    await call(server, 'POST', `${b}/memories`, { items: [{ content: first, document_id: 'conv' }] });
    await call(server, 'POST', `${b}/memories`, { items: [{ content: second, document_id: 'conv', update_mode: 'append' }] });
    const merged = JSON.parse(String((await call(server, 'GET', `${b}/documents/conv`)).body.original_text)) as unknown;
    expect(merged).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ]);
  });

  it('3. append without document_id (sync) is 400 with the exact detail', async () => {
    const res = await call(server, 'POST', `${bank('b3')}/memories`, { items: [{ content: 'x', update_mode: 'append' }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "update_mode='append' requires a document_id" });
  });

  it('4. replace: new text wins, facts only in the old text go, identical chunks keep ids, identical re-retain adds nothing', async () => {
    const b = bank('b4');
    const head = `${'Stable paragraph about the build system. '.repeat(80)}`.trim();
    const a = `${head}\nOld tail mentions gradle.`;
    const c = `${head}\nNew tail mentions esbuild.`;
    await call(server, 'POST', `${b}/memories`, { items: [{ content: a, document_id: 'd' }] });
    const before = await factsOf(server, 'b4', 'd');
    expect(before.length).toBeGreaterThan(1);
    await call(server, 'POST', `${b}/memories`, { items: [{ content: c, document_id: 'd' }] });
    expect((await call(server, 'GET', `${b}/documents/d`)).body.original_text).toBe(c);
    const after = await factsOf(server, 'b4', 'd');
    expect(after.some((f) => f.text.includes('gradle'))).toBe(false);
    expect(after.some((f) => f.text.includes('esbuild'))).toBe(true);
    const keptHead = before.find((f) => !f.text.includes('gradle'));
    expect(after.map((f) => f.id)).toContain(keptHead?.id);
    await call(server, 'POST', `${b}/memories`, { items: [{ content: c, document_id: 'd' }] });
    expect((await factsOf(server, 'b4', 'd')).map((f) => f.id).sort()).toEqual(after.map((f) => f.id).sort());
  });

  it('5. append keeps each item with its own tags (never widens an old item); replace with T4 gives every fact exactly T4', async () => {
    const b = bank('b5');
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'First part.', document_id: 'd', tags: ['t1'] }] });
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Second part.', document_id: 'd', tags: ['t2', 't3'], update_mode: 'append' }] });
    const byText = Object.fromEntries((await factsOf(server, 'b5', 'd')).map((f) => [f.text, [...f.tags].sort()]));
    expect(byText).toEqual({ 'First part.': ['t1'], 'Second part.': ['t2', 't3'] });
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Replaced.', document_id: 'd', tags: ['t4'] }] });
    for (const f of await factsOf(server, 'b5', 'd')) expect(f.tags).toEqual(['t4']);
  });

  it('6. tag truth table of 2.2 for recall, and the same scoping for reflect based_on.memories', async () => {
    const b = bank('b6');
    await call(server, 'POST', `${b}/memories`, {
      items: [
        { content: 'M1 shared note', document_id: 'm1', tags: ['user:alice'] },
        { content: 'M2 shared note', document_id: 'm2', tags: ['user:bob'] },
        { content: 'M3 shared note', document_id: 'm3', tags: ['user:alice', 'team'] },
        { content: 'M4 shared note', document_id: 'm4' },
      ],
    });
    const names = (texts: string[]): string[] => texts.map((t) => t.slice(0, 2)).sort();
    const cases: [Json, string[]][] = [
      [{ tags: ['user:alice'], tags_match: 'any' }, ['M1', 'M3', 'M4']],
      [{ tags: ['user:alice'], tags_match: 'any_strict' }, ['M1', 'M3']],
      [{ tags: ['user:alice', 'team'], tags_match: 'all' }, ['M3', 'M4']],
      [{ tags: ['user:alice', 'team'], tags_match: 'all_strict' }, ['M3']],
      [{ tags: ['user:alice'], tags_match: 'exact' }, ['M1']],
    ];
    for (const [filter, expected] of cases) {
      const recall = await call(server, 'POST', `${b}/memories/recall`, { query: 'shared note', types: ['world'], ...filter });
      expect(names(recallTexts(recall.body))).toEqual(expected);
      const reflect = await call(server, 'POST', `${b}/reflect`, { query: 'shared note', fact_types: ['world'], include: { facts: {} }, ...filter });
      expect(names((reflect.body.based_on.memories as { text: string }[]).map((m) => m.text))).toEqual(expected);
    }
  });

  it('7. exact with []/omitted selects untagged only and ignores order; other modes with [] do not filter', async () => {
    const b = bank('b6');
    const q = { query: 'shared note', types: ['world'] };
    const texts = async (extra: Json): Promise<string[]> => recallTexts((await call(server, 'POST', `${b}/memories/recall`, { ...q, ...extra })).body).map((t) => t.slice(0, 2)).sort();
    expect(await texts({ tags: [], tags_match: 'exact' })).toEqual(['M4']);
    expect(await texts({ tags_match: 'exact' })).toEqual(['M4']);
    expect(await texts({ tags: ['team', 'user:alice'], tags_match: 'exact' })).toEqual(['M3']);
    for (const mode of ['any', 'all', 'any_strict', 'all_strict']) {
      expect(await texts({ tags: [], tags_match: mode })).toEqual(['M1', 'M2', 'M3', 'M4']);
      expect(await texts({ tags_match: mode })).toEqual(['M1', 'M2', 'M3', 'M4']);
    }
  });

  it('8. tags with tag_groups is 422 (even tags: []); leaf default any_strict; not sees untagged through its child; exact AND groups', async () => {
    const b = bank('b6');
    const q = { query: 'shared note', types: ['world'] };
    const texts = async (extra: Json): Promise<string[]> => recallTexts((await call(server, 'POST', `${b}/memories/recall`, { ...q, ...extra })).body).map((t) => t.slice(0, 2)).sort();
    expect((await call(server, 'POST', `${b}/memories/recall`, { ...q, tags: [], tag_groups: [] })).status).toBe(422);
    expect(await texts({ tag_groups: [{ or: [{ tags: ['user:bob'] }, { tags: ['team'] }] }] })).toEqual(['M2', 'M3']);
    expect(await texts({ tag_groups: [{ not: { tags: ['team'], match: 'any_strict' } }] })).toEqual(['M1', 'M2', 'M4']);
    expect(await texts({ tag_groups: [{ not: { tags: ['team'], match: 'any' } }] })).toEqual(['M1', 'M2']);
    expect(await texts({ tag_groups: [{ tags: ['user:alice'], match: 'all_strict' }, { not: { tags: ['team'], match: 'any_strict' } }] })).toEqual(['M1']);
    expect(await texts({ tags_match: 'exact', tag_groups: [{ not: { tags: ['team'], match: 'any_strict' } }] })).toEqual(['M4']);
  });

  it('9. documents list defaults to any_strict; mental-model list exact is order-sensitive', async () => {
    const b = bank('b6');
    const docs = await call(server, 'GET', `${b}/documents?tags=user:alice`);
    expect((docs.body.items as { id: string }[]).map((d) => d.id).sort()).toEqual(['m1', 'm3']);
    await call(server, 'POST', `${b}/mental-models`, { name: 'ordered', source_query: 'notes', tags: ['a', 'b'] });
    const listed = async (query: string): Promise<number> => ((await call(server, 'GET', `${b}/mental-models?${query}`)).body.items as unknown[]).length;
    expect(await listed('tags=a&tags=b&tags_match=exact')).toBe(1);
    expect(await listed('tags=b&tags=a&tags_match=exact')).toBe(0);
    expect(await listed('tags=b&tags=a&tags_match=all')).toBe(1);
  });

  it('10. max_tokens stops at the first overflow; max_tokens 0 gives no results but chunks; low budget caps at 200', async () => {
    const b = bank('b10');
    await call(server, 'POST', `${b}/memories`, {
      items: Array.from({ length: 250 }, (_, i) => ({ content: `cap entry ${i} ${'word '.repeat(i % 7 === 0 ? 60 : 3)}`.trim(), document_id: `d${i}` })),
    });
    const all = await call(server, 'POST', `${b}/memories/recall`, { query: 'cap entry', budget: 'low', max_tokens: 1_000_000, types: ['world'] });
    expect((all.body.results as unknown[]).length).toBe(200);
    const ranked = recallTexts((await call(server, 'POST', `${b}/memories/recall`, { query: 'cap entry', budget: 'mid', max_tokens: 1_000_000, types: ['world'] })).body);
    const capped = recallTexts((await call(server, 'POST', `${b}/memories/recall`, { query: 'cap entry', budget: 'mid', max_tokens: 150, types: ['world'] })).body);
    expect(capped.length).toBeGreaterThan(0);
    expect(capped.length).toBeLessThan(ranked.length);
    // A prefix of the full ranking: nothing after the first overflow, no skipping ahead.
    expect(capped).toEqual(ranked.slice(0, capped.length));
    const zero = await call(server, 'POST', `${b}/memories/recall`, { query: 'cap entry', max_tokens: 0, include: { chunks: {} } });
    expect(zero.body.results).toEqual([]);
    expect(Object.keys(zero.body.chunks ?? {}).length).toBeGreaterThan(0);
  });

  it('11. default types include observation; bogus type 422 string detail; no word characters 422; over 500 tokens 400; bad query_timestamp 400', async () => {
    const b = bank('b11');
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Kafka carries the events.', document_id: 'k', entities: [{ text: 'Kafka' }] }] });
    const types = ((await call(server, 'POST', `${b}/memories/recall`, { query: 'Kafka' })).body.results as { type: string }[]).map((r) => r.type);
    expect(types).toEqual(expect.arrayContaining(['world', 'observation']));
    const bogus = await call(server, 'POST', `${b}/memories/recall`, { query: 'x', types: ['bogus'] });
    expect(bogus.status).toBe(422);
    expect(typeof bogus.body.detail).toBe('string');
    expect((await call(server, 'POST', `${b}/memories/recall`, { query: '?!' })).status).toBe(422);
    expect((await call(server, 'POST', `${b}/memories/recall`, { query: 'word '.repeat(600) })).status).toBe(400);
    expect((await call(server, 'POST', `${b}/memories/recall`, { query: 'Kafka', query_timestamp: 'yesterday-ish' })).status).toBe(400);
  });

  it('12. null fields are omitted from recall, retain, reflect, mental-model and knowledge responses; DocumentResponse keeps its required keys', async () => {
    const b = bank('b12');
    const bodies: unknown[] = [];
    bodies.push((await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Null check fact.', document_id: 'n', timestamp: 'unset' }] })).body);
    bodies.push((await call(server, 'POST', `${b}/memories/recall`, { query: 'null check', trace: true })).body);
    bodies.push((await call(server, 'POST', `${b}/reflect`, { query: 'null check', include: { facts: {}, tool_calls: {} } })).body);
    const mm = await call(server, 'POST', `${b}/mental-models`, { name: 'n', source_query: 'null check' });
    await server.idle();
    bodies.push((await call(server, 'GET', `${b}/mental-models/${String(mm.body.mental_model_id)}`)).body);
    bodies.push((await call(server, 'GET', `${b}/mental-models`)).body);
    const page = await call(server, 'POST', `${b}/knowledge-base/pages`, { name: 'p', source_query: 'null check' });
    await server.idle();
    bodies.push((await call(server, 'GET', `${b}/knowledge-base/tree`)).body);
    bodies.push((await call(server, 'GET', `${b}/knowledge-base/pages/${String(page.body.page_id)}`)).body);
    for (const body of bodies) expect(hasNull(body)).toBe(false);
    const doc = (await call(server, 'GET', `${b}/documents/n`)).body as Json;
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(['id', 'bank_id', 'original_text', 'content_hash', 'created_at', 'updated_at', 'memory_unit_count']));
  });

  it('13. async retain: UUID operation, completes, idempotent resubmit, 409 across banks, 422 non-UUID, 400 duplicate ids, not_found and malformed status', async () => {
    const b = bank('b13');
    const id = '5f0e4b1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
    const first = await call(server, 'POST', `${b}/memories`, { async: true, operation_id: id, items: [{ content: 'Async fact.', document_id: 'a' }] });
    expect(first.body.operation_id).toBe(id);
    await server.idle();
    expect((await call(server, 'GET', `${b}/operations/${id}`)).body.status).toBe('completed');
    const again = await call(server, 'POST', `${b}/memories`, { async: true, operation_id: id, items: [{ content: 'Different payload.', document_id: 'z' }] });
    expect(again.body.operation_id).toBe(id);
    await server.idle();
    expect((await call(server, 'GET', `${b}/documents`)).body.total).toBe(1);
    expect((await call(server, 'POST', `${bank('b13-other')}/memories`, { async: true, operation_id: id, items: [{ content: 'x' }] })).status).toBe(409);
    expect((await call(server, 'POST', `${b}/memories`, { async: true, operation_id: 'not-a-uuid', items: [{ content: 'x' }] })).status).toBe(422);
    const dup = await call(server, 'POST', `${b}/memories`, { async: true, items: [{ content: 'x', document_id: 'same' }, { content: 'y', document_id: 'same' }] });
    expect(dup.status).toBe(400);
    const unknown = await call(server, 'GET', `${b}/operations/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.status).toBe('not_found');
    expect((await call(server, 'GET', `${b}/operations/xyz`)).status).toBe(400);
  });

  it('14. banks: idempotent PUT with defaults, PATCH missing 404, DELETE missing 200/0, profile 404, config and stats 200 for missing banks, list by last write', async () => {
    const put1 = await call(server, 'PUT', bank('b14'), {});
    const put2 = await call(server, 'PUT', bank('b14'), {});
    expect(put1.body).toEqual({ bank_id: 'b14', name: 'b14', disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: '', background: '' });
    expect(put2.body).toEqual(put1.body);
    expect((await call(server, 'PATCH', bank('b14-missing'), { name: 'x' })).status).toBe(404);
    const deleted = await call(server, 'DELETE', bank('b14-missing'));
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_count).toBe(0);
    expect((await call(server, 'GET', `${bank('b14-missing')}/profile`)).status).toBe(404);
    expect((await call(server, 'GET', `${bank('b14-missing')}/config`)).status).toBe(200);
    expect((await call(server, 'GET', `${bank('b14-missing')}/stats`)).status).toBe(200);
    await call(server, 'POST', `${bank('b14-older')}/memories`, { items: [{ content: 'older write' }] });
    await call(server, 'POST', `${bank('b14-newer')}/memories`, { items: [{ content: 'newer write' }] });
    const order = ((await call(server, 'GET', '/v1/default/banks')).body.banks as { bank_id: string }[]).map((x) => x.bank_id);
    expect(order.indexOf('b14-newer')).toBeLessThan(order.indexOf('b14-older'));
    expect(order.filter((id) => id === 'b14')).toEqual(['b14']);
  });

  it('14b. profile answers 410 Gone when mimicking 0.10', async () => {
    const ten = await startTestServer({ persist: false, mimic: '0.10' });
    try {
      await call(ten, 'PUT', bank('p'), {});
      const res = await call(ten, 'GET', `${bank('p')}/profile`);
      expect(res.status).toBe(410);
      expect(String(res.body.detail)).toContain('/config');
    } finally {
      await ten.dispose();
    }
  });

  it('15. knowledge base: 201 ids and operation, 409 duplicate, 400 page parent, 400 empty patch, subtree delete with models, frontmatter bytes, type: tag', async () => {
    const b = bank('b15');
    const folder = await call(server, 'POST', `${b}/knowledge-base/folders`, { name: 'Ops' });
    expect(folder.status).toBe(201);
    const page = await call(server, 'POST', `${b}/knowledge-base/pages`, { name: 'Deploy "prod"', source_query: 'deploy', parent_id: folder.body.id, tags: ['type:adr', 'x'] });
    expect(page.status).toBe(201);
    expect(page.body.page_id).toMatch(/^kp-/);
    expect(page.body.mental_model_id).toMatch(/^mm-/);
    expect(typeof page.body.operation_id).toBe('string');
    expect((await call(server, 'POST', `${b}/knowledge-base/pages`, { name: 'DEPLOY "PROD"', source_query: 'y', parent_id: folder.body.id })).status).toBe(409);
    expect((await call(server, 'POST', `${b}/knowledge-base/pages`, { name: 'z', source_query: 'y', parent_id: page.body.page_id })).status).toBe(400);
    expect((await call(server, 'PATCH', `${b}/knowledge-base/nodes/${String(folder.body.id)}`, {})).status).toBe(400);
    await server.idle();
    const got = (await call(server, 'GET', `${b}/knowledge-base/pages/${String(page.body.page_id)}`)).body as Json;
    expect(got['type']).toBe('adr');
    expect(got['tags']).toEqual(['x']);
    expect(String(got['markdown']).startsWith(`---\nid: "${String(page.body.page_id)}"\ntype: "adr"\ntitle: "Deploy \\"prod\\""\ndescription: "deploy"\ntags:\n  - "x"\ntimestamp: "`)).toBe(true);
    expect((await call(server, 'DELETE', `${b}/knowledge-base/nodes/${String(folder.body.id)}`)).body).toEqual({ status: 'deleted' });
    expect((await call(server, 'GET', `${b}/mental-models/${String(page.body.mental_model_id)}`)).status).toBe(404);
    expect((await call(server, 'GET', `${b}/knowledge-base/tree`)).body).toEqual({ roots: [] });
  });

  it('16. mental models: Generating content... until refreshed, refresh queued, clear empties, max_tokens and cron rules are 422', async () => {
    const b = bank('b16');
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Releases are tagged by CI.', document_id: 'r' }] });
    server.setFaults([{ kind: 'pendingOperation', taskType: 'refresh_mental_model' }]);
    const created = await call(server, 'POST', `${b}/mental-models`, { name: 'Releases', source_query: 'releases' });
    const id = String(created.body.mental_model_id);
    expect(created.body.operation_id).toEqual(expect.any(String));
    await server.idle();
    expect((await call(server, 'GET', `${b}/mental-models/${id}`)).body.content).toBe('Generating content...');
    server.setFaults([]);
    const refresh = await call(server, 'POST', `${b}/mental-models/${id}/refresh`);
    expect(refresh.body.status).toBe('queued');
    await server.idle();
    expect((await call(server, 'GET', `${b}/mental-models/${id}`)).body.content).toContain('Releases are tagged by CI.');
    expect((await call(server, 'POST', `${b}/mental-models/${id}/clear`)).body.content).toBe('');
    expect((await call(server, 'POST', `${b}/mental-models`, { name: 'x', source_query: 'y', max_tokens: 255 })).status).toBe(422);
    expect((await call(server, 'POST', `${b}/mental-models`, { name: 'x', source_query: 'y', max_tokens: 8193 })).status).toBe(422);
    const both = await call(server, 'POST', `${b}/mental-models`, { name: 'x', source_query: 'y', trigger: { refresh_cron: '0 3 * * *', refresh_after_consolidation: true } });
    expect(both.status).toBe(422);
  });

  it('17. auth: missing or wrong key 401 "Invalid API key"; Bearer and bare key both accepted', async () => {
    const locked = await startTestServer({ persist: false, apiKey: 'k-123' });
    try {
      const path = `${bank('auth')}/directives`;
      expect(await call(locked, 'GET', path)).toMatchObject({ status: 401, body: { detail: 'Invalid API key' } });
      expect(await call(locked, 'GET', path, undefined, { Authorization: 'Bearer wrong' })).toMatchObject({ status: 401, body: { detail: 'Invalid API key' } });
      expect((await call(locked, 'GET', path, undefined, { Authorization: 'Bearer k-123' })).status).toBe(200);
      expect((await call(locked, 'GET', path, undefined, { Authorization: 'k-123' })).status).toBe(200);
    } finally {
      await locked.dispose();
    }
  });

  it('18. unknown body fields in X-Ignored-Params; unknown route 404 Not Found; wrong method 405', async () => {
    const b = bank('b18');
    const res = await call(server, 'POST', `${b}/directives`, { name: 'n', content: 'c', surprise: 1, other: 'x' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ignored-params')).toBe('surprise, other');
    const reflect = await call(server, 'POST', `${b}/reflect`, { query: 'q', mystery: true });
    expect(reflect.headers.get('x-ignored-params')).toBe('mystery');
    expect(await call(server, 'GET', '/v1/default/nowhere')).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    expect((await call(server, 'PUT', `${b}/reflect`, {})).status).toBe(405);
  });

  it('observations recalled with types ["observation"] are scoped by tags like facts', async () => {
    const b = bank('obs');
    await call(server, 'POST', `${b}/memories`, {
      items: [
        { content: 'Payments service retries twice.', document_id: 'p1', tags: ['project:pay'] },
        { content: 'Payments service logs to Loki.', document_id: 'p2', tags: ['project:pay'] },
        { content: 'Payments are audited yearly.', document_id: 'o1', tags: ['project:other'] },
      ],
    });
    const scoped = await call(server, 'POST', `${b}/memories/recall`, { query: 'payments', types: ['observation'], tags: ['project:pay'], tags_match: 'any_strict' });
    const results = scoped.body.results as { type: string; tags: string[]; text: string }[];
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) {
      expect(r.type).toBe('observation');
      expect(r.tags).toEqual(['project:pay']);
    }
    expect(recallIds(scoped.body).length).toBe(new Set(recallIds(scoped.body)).size);
    expect(results.map((r) => r.text).join('\n')).not.toContain('audited');
  });
});
