/**
 * `POST {b}/memories/recall?explain=true`, the embedded server's own addition for the memory
 * browser: each result says which query words it matched, which expansion terms stood in,
 * what it missed, its stage and scores; the body is otherwise the recall it always was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
  const items = [
    { content: 'We use PostgreSQL 16 as the main database for the billing service.', document_id: 'd1' },
    { content: 'Deploys go out every Tuesday after the staging soak passes.', document_id: 'd2' },
  ];
  expect((await call(server, 'POST', '/v1/default/banks/ex/memories', { items })).status).toBe(200);
});
afterAll(async () => {
  await server.dispose();
});

describe('recall explain', () => {
  it('names the matched, expanded and missing terms of each result, with stage and scores', async () => {
    const res = await call(server, 'POST', '/v1/default/banks/ex/memories/recall?explain=true', { query: 'which db does billing use on tuesday?', types: ['world'] });
    expect(res.status).toBe(200);
    const { explain, results } = res.body as {
      results: { id: string; text: string }[];
      explain: { query_terms: { keyword: string[] }; results: { id: string; rank: number; stage: string; matched: { word: string }[]; expanded: { term: string }[]; missing: string[]; score: { keyword: number; final: number } }[] };
    };
    expect(explain.query_terms.keyword).toEqual(expect.arrayContaining(['db', 'billing', 'tuesday']));
    expect(explain.results.map((r) => r.id)).toEqual(results.map((r) => r.id));
    const billing = explain.results.find((r) => results.find((x) => x.id === r.id)?.text.includes('PostgreSQL'));
    expect(billing?.matched.map((m) => m.word)).toContain('billing');
    // "db" is not in the text: the coding thesaurus's "database" stood in for it.
    expect(billing?.expanded.map((e) => e.term)).toContain('databas');
    expect(billing?.missing).toContain('tuesday');
    expect(billing?.score.keyword).toBeGreaterThan(0);
    expect(billing?.rank).toBeGreaterThan(0);
    // The trace it was read from is not returned unless asked for.
    expect(res.body).not.toHaveProperty('trace');
  });

  it('leaves the recall unchanged without the flag, and keeps a trace that was asked for', async () => {
    const plain = await call(server, 'POST', '/v1/default/banks/ex/memories/recall', { query: 'billing database' });
    expect(plain.body).not.toHaveProperty('explain');
    const traced = await call(server, 'POST', '/v1/default/banks/ex/memories/recall?explain=true', { query: 'billing database', trace: true });
    expect(traced.body).toHaveProperty('trace');
    expect(traced.body).toHaveProperty('explain');
    expect((traced.body as { results: unknown[] }).results).toEqual((plain.body as { results: unknown[] }).results);
  });
});
