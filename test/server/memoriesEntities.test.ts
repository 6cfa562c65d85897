/**
 * Issue 13, findings 3 to 6: the memory detail in upstream's shape, curation with PATCH
 * (edit, invalidate, revert), the entities routes fed by the deterministic extractor,
 * `include.entities` in recall, and multipart `files/retain` answering the capability error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';

const B = '/v1/default/banks/ment';
let server: TestServer;

interface Item {
  id: string;
  text: string;
}

const worldItems = async (): Promise<Item[]> => (await call(server, 'GET', `${B}/memories/list?type=world&limit=100`)).body.items as Item[];
const idOf = async (prefix: string): Promise<string> => (await worldItems()).find((i) => i.text.startsWith(prefix))?.id ?? '';

beforeAll(async () => {
  server = await startTestServer({ persist: false });
  const res = await call(server, 'POST', `${B}/memories`, {
    items: [
      { content: 'Alice Moreau fixed the flaky test in src/server/app.ts with vitest.', tags: ['team'], entities: [{ text: 'Flaky Tests', type: 'TOPIC' }] },
      { content: 'Alice Moreau asked @bob_k to publish to https://registry.npmjs.org/ with npm.', tags: ['team'] },
      { content: 'Bob deploys on Fridays.', tags: ['team'] },
    ],
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await server.dispose();
});

describe('GET /memories/{id}', () => {
  it('answers upstream shape: type (not fact_type) and entities as a list of names', async () => {
    const id = await idOf('Alice Moreau fixed');
    const res = await call(server, 'GET', `${B}/memories/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, type: 'world', tags: ['team'], state: 'valid', context: '', metadata: {} });
    expect(res.body).not.toHaveProperty('fact_type');
    expect(res.body.entities).toEqual(expect.arrayContaining(['Flaky Tests', 'Alice Moreau', 'src/server/app.ts', 'vitest']));
  });
});

describe('PATCH /memories/{id}', () => {
  it('edits text and context, then invalidates (never recalled, still readable) and reverts', async () => {
    const id = await idOf('Bob deploys');
    const edited = await call(server, 'PATCH', `${B}/memories/${id}`, { text: 'Bob deploys on Thursdays.', context: 'release notes', entities: ['Bob'] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id, text: 'Bob deploys on Thursdays.', context: 'release notes', entities: ['Bob'], state: 'valid' });
    expect(typeof edited.body.edited_at).toBe('string');
    const recall = async (): Promise<string[]> =>
      ((await call(server, 'POST', `${B}/memories/recall`, { query: 'Thursdays deploys', types: ['world'] })).body.results as Item[]).map((r) => r.text);
    // Recall also brings related memories (query expansion, issue 14): the edited one comes first.
    expect((await recall())[0]).toBe('Bob deploys on Thursdays.');

    const reflected = async (): Promise<string[]> =>
      ((await call(server, 'POST', `${B}/reflect`, { query: 'Thursdays deploys', fact_types: ['world'], include: { facts: {} } })).body.based_on.memories as Item[]).map((m) => m.text);
    expect(await reflected()).toContain('Bob deploys on Thursdays.');

    const invalidated = await call(server, 'PATCH', `${B}/memories/${id}`, { state: 'invalidated', reason: 'wrong day' });
    expect(invalidated.body).toMatchObject({ state: 'invalidated', invalidation_reason: 'wrong day' });
    expect(await recall()).not.toContain('Bob deploys on Thursdays.');
    // Upstream moves an invalidated fact out of the table recall and reflect read: reflect never cites it either.
    expect(await reflected()).not.toContain('Bob deploys on Thursdays.');
    expect((await call(server, 'GET', `${B}/memories/${id}`)).body.state).toBe('invalidated');
    expect((await call(server, 'PATCH', `${B}/memories/${id}`, { text: 'x' })).body.detail).toBe("Cannot edit an invalidated memory; revert it to 'valid' first.");

    const reverted = await call(server, 'PATCH', `${B}/memories/${id}`, { state: 'valid' });
    expect(reverted.body).toMatchObject({ state: 'valid' });
    expect(reverted.body).not.toHaveProperty('invalidation_reason');
    // Reverted, it leads again: the edits and the invalidation left the index's counts (idf) right.
    expect((await recall())[0]).toBe('Bob deploys on Thursdays.');
    expect(await reflected()).toContain('Bob deploys on Thursdays.');
  });

  it('refuses bad values with 400 and the upstream detail, and changes nothing', async () => {
    const id = await idOf('Alice Moreau asked');
    expect((await call(server, 'PATCH', `${B}/memories/${id}`, { state: 'gone' })).body.detail).toBe("Invalid state 'gone': expected 'valid' or 'invalidated'.");
    expect((await call(server, 'PATCH', `${B}/memories/${id}`, { text: '  ' })).body.detail).toBe('text must not be empty.');
    expect((await call(server, 'PATCH', `${B}/memories/${id}`, { fact_type: 'observation' })).status).toBe(400);
    expect((await call(server, 'PATCH', `${B}/memories/not-a-uuid`, { text: 'x' })).status).toBe(400);
    expect((await call(server, 'PATCH', `${B}/memories/7d1e8c3a-5b2f-4e6d-8a9c-0f1e2d3c4b5a`, { text: 'x' })).status).toBe(404);
    expect((await call(server, 'GET', `${B}/memories/${id}`)).body.text).toMatch(/^Alice Moreau asked/);
  });

  it('answers history (none kept) and clears observations built from a memory', async () => {
    const id = await idOf('Alice Moreau asked');
    expect((await call(server, 'GET', `${B}/memories/${id}/history`)).body).toEqual([]);
    expect((await call(server, 'DELETE', `${B}/memories/${id}/observations`)).body).toMatchObject({ deleted_count: expect.any(Number) });
  });
});

describe('entities', () => {
  it('lists entities with counts, most mentioned first, and filters memories by entity', async () => {
    const res = await call(server, 'GET', `${B}/entities`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ limit: 100, offset: 0 });
    const names = (res.body.items as { canonical_name: string; mention_count: number }[]).map((e) => e.canonical_name);
    expect(names[0]).toBe('Alice Moreau');
    expect(names).toEqual(expect.arrayContaining(['@bob_k', 'registry.npmjs.org', 'npm', 'src/server/app.ts', 'Bob']));
    const alice = (res.body.items as { id: string; canonical_name: string; mention_count: number }[]).find((e) => e.canonical_name === 'Alice Moreau');
    expect(alice?.mention_count).toBe(2);
    const detail = await call(server, 'GET', `${B}/entities/${alice?.id ?? ''}`);
    expect(detail.body).toMatchObject({ id: alice?.id, canonical_name: 'Alice Moreau', mention_count: 2, observations: [] });
    const mentioning = (await call(server, 'GET', `${B}/memories/list?entity_id=${alice?.id ?? ''}`)).body.items as Item[];
    expect(mentioning.map((m) => m.text.slice(0, 18)).sort()).toEqual(['Alice Moreau asked', 'Alice Moreau fixed']);
  });

  it('404 for an unknown entity, 400 for a non-UUID id, empty list for an unknown bank; regenerate is 410', async () => {
    expect((await call(server, 'GET', `${B}/entities/7d1e8c3a-5b2f-4e6d-8a9c-0f1e2d3c4b5a`)).status).toBe(404);
    expect((await call(server, 'GET', `${B}/entities/x`)).status).toBe(400);
    expect((await call(server, 'GET', '/v1/default/banks/none-here/entities')).body).toEqual({ items: [], total: 0, limit: 100, offset: 0 });
    expect((await call(server, 'POST', `${B}/entities/7d1e8c3a-5b2f-4e6d-8a9c-0f1e2d3c4b5a/regenerate`)).status).toBe(410);
  });

  it('graphs co-occurrences as nodes and weighted edges', async () => {
    const res = await call(server, 'GET', `${B}/entities/graph?min_count=1`);
    expect(res.status).toBe(200);
    expect(res.body.total_edges).toBe(res.body.edges.length);
    expect(res.body.total_entities).toBe(res.body.nodes.length);
    const labels = (res.body.nodes as { data: { label: string } }[]).map((n) => n.data.label);
    expect(labels).toEqual(expect.arrayContaining(['Alice Moreau', '@bob_k']));
    expect((await call(server, 'GET', `${B}/entities/graph?min_count=5`)).body.edges).toEqual([]);
  });

  it('recall with include.entities names each result entity once with its id', async () => {
    const res = await call(server, 'POST', `${B}/memories/recall`, { query: 'Alice publish npm', include: { entities: { max_tokens: 500 } } });
    const entities = res.body.entities as Record<string, { entity_id: string; canonical_name: string }>;
    expect(entities['Alice Moreau']?.canonical_name).toBe('Alice Moreau');
    const list = (await call(server, 'GET', `${B}/entities`)).body.items as { id: string; canonical_name: string }[];
    expect(entities['Alice Moreau']?.entity_id).toBe(list.find((e) => e.canonical_name === 'Alice Moreau')?.id);
    const without = await call(server, 'POST', `${B}/memories/recall`, { query: 'Alice', include: { entities: null } });
    expect(without.body).not.toHaveProperty('entities');
  });
});

describe('multipart files/retain', () => {
  it('answers the documented capability error, not 422 json_invalid', async () => {
    const form = new FormData();
    form.append('files', new Blob(['# Notes\nAlice likes tea.'], { type: 'text/markdown' }), 'notes.md');
    form.append('request', JSON.stringify({ files_metadata: [{ context: 'notes' }] }));
    const res = await fetch(`${server.url}${B}/files/retain`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/^capability_unavailable: file retain/);
  });
});
