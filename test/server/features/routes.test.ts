/**
 * The server-features routes over HTTP against the embedded server: reflect scoping,
 * observation consolidation (including across a restart), mental-model staleness, knowledge
 * node edits, version hiding, and that refused requests leave no state behind.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startTestServer } from '../../helpers/embeddedServer.js';
import type { TestServer } from '../../helpers/embeddedServer.js';
import { startEmbeddedServer } from '../../../src/server/index.js';

const bank = (name: string): string => `/v1/default/banks/${name}`;
type Result = { id: string; text: string; type: string; tags?: string[] };
const results = (body: unknown): Result[] => (body as { results: Result[] }).results;

describe('reflect', () => {
  let server: TestServer;
  const b = bank('reflect');

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    await call(server, 'POST', `${b}/memories`, {
      items: [
        { content: 'The release train leaves every Tuesday.', document_id: 'r1', tags: ['project:a'] },
        { content: 'Release notes are written by the on-call engineer.', document_id: 'r2', tags: ['project:a'] },
        { content: 'The release of project b is manual.', document_id: 'r3', tags: ['project:b'] },
      ],
    });
    await call(server, 'POST', `${b}/directives`, { name: 'global', content: 'Cite dates.' });
    await call(server, 'POST', `${b}/directives`, { name: 'for-a', content: 'Mention project a owners.', tags: ['project:a'] });
    await call(server, 'POST', `${b}/directives`, { name: 'for-b', content: 'Mention project b owners.', tags: ['project:b'] });
  });
  afterAll(async () => {
    await server.dispose();
  });

  const names = (body: { based_on: { directives: { name: string }[] } }): string[] => body.based_on.directives.map((d) => d.name).sort();

  it('applies global directives always, tagged ones only in a matching scope, all with apply_all_directives', async () => {
    const unscoped = await call(server, 'POST', `${b}/reflect`, { query: 'release', include: { facts: {} } });
    expect(names(unscoped.body)).toEqual(['global']);
    const scoped = await call(server, 'POST', `${b}/reflect`, { query: 'release', tags: ['project:a'], tags_match: 'any_strict', include: { facts: {} } });
    expect(names(scoped.body)).toEqual(['for-a', 'global']);
    expect(scoped.body.text).toContain('Mention project a owners.');
    const all = await call(server, 'POST', `${b}/reflect`, { query: 'release', apply_all_directives: true, include: { facts: {} } });
    expect(names(all.body)).toEqual(['for-a', 'for-b', 'global']);
  });

  it('leaves out an observation when every fact it was built from is cited anyway', async () => {
    const res = await call(server, 'POST', `${b}/reflect`, { query: 'release', include: { facts: {} } });
    const memories = res.body.based_on.memories as { type: string; text: string }[];
    expect(memories.filter((m) => m.type === 'world')).toHaveLength(3);
    expect(memories.filter((m) => m.type === 'observation')).toEqual([]);
  });

  it('fact_types limits what it reads; observation-only answers from observations', async () => {
    const res = await call(server, 'POST', `${b}/reflect`, { query: 'release', fact_types: ['observation'], include: { facts: {} } });
    const memories = res.body.based_on.memories as { type: string }[];
    expect(memories.length).toBeGreaterThan(0);
    expect(memories.every((m) => m.type === 'observation')).toBe(true);
  });

  it('uses mental models unless excluded, and never the excluded ids', async () => {
    const created = await call(server, 'POST', `${b}/mental-models`, { name: 'Release process', source_query: 'release train', tags: ['project:a'] });
    await server.idle();
    const id = String(created.body.mental_model_id);
    const withModels = await call(server, 'POST', `${b}/reflect`, { query: 'release train', include: { facts: {} } });
    expect((withModels.body.based_on.mental_models as { id: string }[]).map((m) => m.id)).toEqual([id]);
    expect(withModels.body.text).toContain('### From mental models');
    const excluded = await call(server, 'POST', `${b}/reflect`, { query: 'release train', exclude_mental_model_ids: [id], include: { facts: {}, tool_calls: {} } });
    expect(excluded.body.based_on.mental_models).toEqual([]);
    const none = await call(server, 'POST', `${b}/reflect`, { query: 'release train', exclude_mental_models: true, include: { tool_calls: {} } });
    expect((none.body.trace.tool_calls as { tool: string }[]).map((c) => c.tool)).toEqual(['recall']);
  });

  it('appends the deprecated context to the query and creates a missing bank', async () => {
    const res = await call(server, 'POST', `${bank('reflect-new')}/reflect`, { query: 'anything', context: 'extra', include: { tool_calls: {} } });
    expect(res.status).toBe(200);
    expect(res.body.trace.tool_calls[0].input.query).toBe('anything\n\nAdditional context: extra');
    const banks = (await call(server, 'GET', '/v1/default/banks')).body.banks as { bank_id: string }[];
    expect(banks.map((x) => x.bank_id)).toContain('reflect-new');
  });
});

describe('observations', () => {
  it('follow retains, deletions and replacements, and survive a restart', async () => {
    const first = await startTestServer({});
    const b = bank('obs');
    const dataDir = first.dataDir ?? '';
    try {
      await call(first, 'POST', `${b}/memories`, {
        items: [
          { content: 'The queue journal is fsynced before acknowledging.', document_id: 'q1' },
          { content: 'The queue journal is compacted into a snapshot.', document_id: 'q2' },
        ],
      });
      const before = results((await call(first, 'POST', `${b}/memories/recall`, { query: 'journal', types: ['observation'] })).body);
      const journal = before.find((r) => r.text.startsWith('**journal**'));
      expect(journal?.text).toContain('fsynced');
      expect(journal?.text).toContain('compacted');
      await first.close();

      const second = await startEmbeddedServer({ port: 0, dataDir });
      try {
        const after = results((await call(second, 'POST', `${b}/memories/recall`, { query: 'journal', types: ['observation'] })).body);
        expect(after.map((r) => r.id)).toContain(journal?.id);
        await call(second, 'DELETE', `${b}/documents/q2`);
        const pruned = results((await call(second, 'POST', `${b}/memories/recall`, { query: 'journal', types: ['observation'] })).body);
        // One fact left: a term needs two facts, so the journal observation is gone.
        expect(pruned.map((r) => r.id)).not.toContain(journal?.id);
        const sources = await call(second, 'POST', `${b}/memories/recall`, { query: 'queue', types: ['observation'], include: { source_facts: {} } });
        for (const r of results(sources.body)) expect(r.type).toBe('observation');
      } finally {
        await second.close();
      }
    } finally {
      await first.dispose();
    }
  });

  it('stats count observations after consolidating', async () => {
    const server = await startTestServer({ persist: false });
    try {
      const b = bank('stats');
      await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Redis caches sessions.', document_id: 'a', entities: [{ text: 'Redis' }] }] });
      const stats = (await call(server, 'GET', `${b}/stats`)).body;
      expect(stats.total_observations).toBeGreaterThan(0);
      expect(stats.nodes_by_fact_type.observation).toBe(stats.total_observations);
      expect(stats.nodes_by_fact_type.world).toBe(1);
      expect(stats.nodes_by_fact_type.world + stats.nodes_by_fact_type.experience + stats.nodes_by_fact_type.observation).toBe(stats.total_nodes);
      expect(stats.total_documents).toBe(1);
      // Brought up to date before the answer (a small bank): nothing waits for consolidation.
      expect(stats.pending_consolidation).toBe(0);
    } finally {
      await server.dispose();
    }
  });

  it("stats say how many facts a large bank's observations do not cover yet, down to 0 once its background pass is written", async () => {
    const server = await startTestServer({ persist: false });
    try {
      const b = bank('pending');
      // Over 2,000 facts: a large bank, whose pass a read asks for but does not wait for.
      const items = Array.from({ length: 2_001 }, (_, i) => ({ content: `Service ${i} caches sessions in Redis.`, document_id: `d${i}` }));
      expect((await call(server, 'POST', `${b}/memories`, { items })).status).toBe(200);
      const asked = (await call(server, 'GET', `${b}/stats`)).body;
      expect(asked.pending_consolidation).toBe(2_001);
      await vi.waitFor(async () => expect((await call(server, 'GET', `${b}/stats`)).body.pending_consolidation).toBe(0), { timeout: 30_000, interval: 100 });
      expect((await call(server, 'GET', `${b}/stats`)).body.total_observations).toBeGreaterThan(0);
    } finally {
      await server.dispose();
    }
  }, 60_000);
});

describe('mental models and knowledge pages', () => {
  let server: TestServer;
  const b = bank('mm');

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Schema migrations run with knex.', document_id: 'm1', tags: ['project:a'] }] });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('is_stale is false after a refresh, true after an in-scope write, unchanged by an out-of-scope one', async () => {
    const created = await call(server, 'POST', `${b}/mental-models`, { name: 'Migrations', source_query: 'migrations', tags: ['project:a'] });
    const id = String(created.body.mental_model_id);
    await server.idle();
    expect((await call(server, 'GET', `${b}/mental-models/${id}`)).body.is_stale).toBe(false);
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Unrelated project b fact.', document_id: 'x', tags: ['project:b'] }] });
    expect((await call(server, 'GET', `${b}/mental-models/${id}`)).body.is_stale).toBe(false);
    await call(server, 'POST', `${b}/memories`, { items: [{ content: 'Migrations are reversible.', document_id: 'm2', tags: ['project:a'] }] });
    expect((await call(server, 'GET', `${b}/mental-models/${id}`)).body.is_stale).toBe(true);
    expect((await call(server, 'GET', `${b}/mental-models/${id}?detail=content`)).body.is_stale).toBeUndefined();
  });

  it('a tagged model reads only facts carrying all its tags (all_strict by default)', async () => {
    const created = await call(server, 'POST', `${b}/mental-models`, { name: 'B only', source_query: 'fact', tags: ['project:b'] });
    await server.idle();
    const model = (await call(server, 'GET', `${b}/mental-models/${String(created.body.mental_model_id)}`)).body;
    expect(model.content).toContain('Unrelated project b fact.');
    expect(model.reflect_response.based_on.memories.every((m: { text: string }) => !m.text.includes('knex'))).toBe(true);
  });

  it('changing a page source query queues a refresh; moving a folder into itself is refused; tags [] clears', async () => {
    const folder = (await call(server, 'POST', `${b}/knowledge-base/folders`, { name: 'Docs' })).body;
    const inner = (await call(server, 'POST', `${b}/knowledge-base/folders`, { name: 'Inner', parent_id: folder.id })).body;
    const page = (await call(server, 'POST', `${b}/knowledge-base/pages`, { name: 'Migrations', source_query: 'migrations', tags: ['project:a'], parent_id: folder.id, trigger: { fact_types: ['world'] } })).body;
    await server.idle();
    const patched = await call(server, 'PATCH', `${b}/knowledge-base/nodes/${String(page.page_id)}`, { source_query: 'knex migrations', tags: [] });
    expect(patched.body).toMatchObject({ description: 'knex migrations', tags: [] });
    await server.idle();
    const history = (await call(server, 'GET', `${b}/mental-models/${String(page.mental_model_id)}/history`)).body as unknown[];
    expect(history).toHaveLength(2);
    const bundle = (await call(server, 'GET', `${b}/knowledge-base/export`)).body.files as { path: string }[];
    expect(bundle.map((f) => f.path)).toContain(`${String(page.page_id)}.log.md`);
    expect((await call(server, 'PATCH', `${b}/knowledge-base/nodes/${String(folder.id)}`, { parent_id: inner.id })).status).toBe(400);
    expect((await call(server, 'PATCH', `${b}/knowledge-base/nodes/${String(folder.id)}`, { tags: ['x'] })).status).toBe(400);
    expect((await call(server, 'PATCH', `${b}/knowledge-base/nodes/kf-none`, { name: 'x' })).status).toBe(404);
  });

  it('a page with the default trigger refreshes after consolidation changes observations', async () => {
    const kb = bank('living');
    await call(server, 'POST', `${kb}/memories`, { items: [{ content: 'Backups run nightly.', document_id: 'b1' }, { content: 'Backups go to S3.', document_id: 'b2' }] });
    const page = (await call(server, 'POST', `${kb}/knowledge-base/pages`, { name: 'Backups', source_query: 'backup' })).body;
    await server.idle();
    const first = (await call(server, 'GET', `${kb}/knowledge-base/pages/${String(page.page_id)}`)).body;
    expect(first.body).toContain('Backups run nightly.');
    await call(server, 'POST', `${kb}/memories`, { items: [{ content: 'Backups are encrypted with age.', document_id: 'b3' }] });
    // An observation read consolidates; the page follows without an explicit refresh.
    await call(server, 'POST', `${kb}/memories/recall`, { query: 'backup', types: ['observation'] });
    await server.idle();
    const second = (await call(server, 'GET', `${kb}/knowledge-base/pages/${String(page.page_id)}`)).body;
    expect(second.body).toContain('encrypted');
  });

  it('refused writes leave nothing behind', async () => {
    const before = (await call(server, 'GET', `${b}/mental-models?detail=metadata`)).body.items.length as number;
    expect((await call(server, 'POST', `${b}/mental-models`, { name: 'x', source_query: 'y', trigger: { refresh_cron: 'every day' } })).status).toBe(422);
    expect((await call(server, 'POST', `${b}/mental-models`, { name: 'x', source_query: 'y', trigger: { response_schema: { properties: { a: { type: 'string' } } } } })).status).toBe(400);
    expect((await call(server, 'GET', `${b}/mental-models?detail=metadata`)).body.items).toHaveLength(before);
    expect((await call(server, 'PATCH', `${bank('never-made')}/config`, { updates: { bogus: true } })).status).toBe(400);
    const banks = (await call(server, 'GET', '/v1/default/banks')).body.banks as { bank_id: string }[];
    expect(banks.map((x) => x.bank_id)).not.toContain('never-made');
  });
});

describe('bank profile and version hiding', () => {
  it('profile PUT and background POST update what the profile shows', async () => {
    const server = await startTestServer({ persist: false });
    try {
      const b = bank('prof');
      await call(server, 'PUT', b, {});
      const put = await call(server, 'PUT', `${b}/profile`, { disposition: { skepticism: 5, literalism: 1, empathy: 2 } });
      expect(put.body.disposition).toEqual({ skepticism: 5, literalism: 1, empathy: 2 });
      expect((await call(server, 'PUT', `${b}/profile`, { disposition: { skepticism: 9, literalism: 1, empathy: 2 } })).status).toBe(422);
      const bg = await call(server, 'POST', `${b}/background`, { content: 'Knows Rust.' });
      expect(bg.body).toEqual({ mission: 'Knows Rust.', background: 'Knows Rust.' });
      expect((await call(server, 'GET', `${b}/profile`)).body.mission).toBe('Knows Rust.');
    } finally {
      await server.dispose();
    }
  });

  it('legacy-0.7 hides the knowledge base and dry-run refresh (404 Not Found), keeps mental models, and knows no exact or apply_all_directives in reflect', async () => {
    const server = await startTestServer({ persist: false, mimic: 'legacy-0.7' });
    try {
      const b = bank('old');
      expect(await call(server, 'GET', `${b}/knowledge-base/tree`)).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
      const mm = await call(server, 'POST', `${b}/mental-models`, { name: 'n', source_query: 'q' });
      expect(mm.status).toBe(200);
      expect((await call(server, 'POST', `${b}/mental-models/${String(mm.body.mental_model_id)}/dry-run-refresh`)).status).toBe(404);
      expect((await call(server, 'POST', `${b}/mental-models/${String(mm.body.mental_model_id)}/clear`)).status).toBe(200);
      const reflect = await call(server, 'POST', `${b}/reflect`, { query: 'q', apply_all_directives: true });
      expect(reflect.headers.get('x-ignored-params')).toBe('apply_all_directives');
      expect((await call(server, 'POST', `${b}/reflect`, { query: 'q', tags_match: 'exact' })).status).toBe(422);
    } finally {
      await server.dispose();
    }
  });
});
