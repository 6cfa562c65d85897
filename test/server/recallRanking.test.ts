/**
 * The embedded server's ranking over HTTP, as a new user meets it: a decision retained in one
 * session is found by the question a later session asks, with other word forms, synonyms and
 * abbreviations; every result says which stage found it, and the trace shows the terms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';

let server: TestServer;
const B = '/v1/default/banks/ranking/memories';

interface Result {
  text: string;
  document_id: string;
  scores: { keyword: number; final: number };
  stage: string;
}
const recall = async (query: string, extra: Record<string, unknown> = {}): Promise<{ results: Result[]; trace?: Record<string, unknown> }> => {
  const res = await call(server, 'POST', `${B}/recall`, { query, types: ['world'], ...extra });
  expect(res.status).toBe(200);
  return res.body as { results: Result[]; trace?: Record<string, unknown> };
};

beforeAll(async () => {
  server = await startTestServer({ persist: false });
  const res = await call(server, 'POST', B, {
    items: [
      { content: 'We decided to bundle with rollup and to test with vitest.', context: 'session 1', document_id: 'decision' },
      { content: 'Deploy runs from the release workflow after two approvals.', context: 'session 1', document_id: 'deploy' },
      { content: 'The database is PostgreSQL 16.', context: 'session 2', document_id: 'db' },
      { content: 'Lunch is at noon on Fridays.', context: 'session 3', document_id: 'lunch' },
    ],
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await server.dispose();
});

describe('recall ranking over HTTP', () => {
  it('"Which bundler do we use?" finds the rollup decision, found by query expansion', async () => {
    const { results } = await recall('Which bundler do we use?');
    expect(results[0]).toMatchObject({ document_id: 'decision' });
    expect(results[0]?.scores.final).toBeGreaterThan(0);
    expect(results[0]?.scores.final).toBeLessThanOrEqual(1);
  });

  it('other word forms and abbreviations: "testing", "deploying", "DB"', async () => {
    expect((await recall('how is testing done')).results[0]).toMatchObject({ document_id: 'decision' });
    expect((await recall('deploying steps')).results[0]?.document_id).toBe('deploy');
    expect((await recall('which DB version')).results[0]?.document_id).toBe('db');
  });

  it('query_timestamp anchors "last week": the memory from that week comes first', async () => {
    const bank = '/v1/default/banks/dated/memories';
    const res = await call(server, 'POST', bank, {
      items: [
        { content: 'We changed the retry policy of the importer.', timestamp: '2024-01-03T10:00:00Z', document_id: 'old' },
        { content: 'We changed the retry policy of the importer.', timestamp: '2024-03-11T10:00:00Z', document_id: 'recent' },
      ],
    });
    expect(res.status).toBe(200);
    const ask = async (extra: Record<string, unknown>): Promise<string | undefined> =>
      ((await call(server, 'POST', `${bank}/recall`, { query: 'what did we change in the retry policy last week', types: ['world'], ...extra })).body as { results: Result[] }).results[0]?.document_id;
    expect(await ask({ query_timestamp: '2024-03-15T12:00:00' })).toBe('recent');
    expect(await ask({ query_timestamp: '2024-01-08T12:00:00' })).toBe('old');
  });

  it('a prompt nothing answers scores low (final under the automatic-recall floor)', async () => {
    const { results } = await recall('write a haiku about autumn');
    expect(results.every((r) => r.scores.final < 0.35)).toBe(true);
  });

  it('the trace lists results per stage, the terms each stage searched and the confidence', async () => {
    const { trace } = await recall('Which bundler do we use?', { trace: true });
    const lists = trace?.['retrieval_results'] as { method_name: string; results: { node_id: string }[] }[];
    expect(lists.map((l) => l.method_name)).toEqual(['keyword', 'expansion', 'feedback', 'neighbour']);
    expect(lists.find((l) => l.method_name === 'expansion')?.results.length).toBeGreaterThan(0);
    const phase = (trace?.['summary'] as { phase_metrics: { details: { confidence: number; terms: { expansion: { term: string }[] } } }[] }).phase_metrics[0];
    expect(phase?.details.terms.expansion.map((t) => t.term)).toContain('rollup');
    expect(phase?.details.confidence).toBeGreaterThan(0);
    expect((trace?.['final_results'] as { stage: string }[])[0]?.stage).toBe('expansion');
  });

  it('a chat retained as speaker lines: a question about one participant finds their own line, and one that gives it to the other scores under the floor, with the check in the trace', async () => {
    const bank = '/v1/default/banks/chat/memories';
    const lines = [
      'Priya: I ran my first marathon in Lisbon last Sunday.',
      'Tom: A marathon! I am impressed. How did you feel after it?',
      'Priya: After the marathon I learned that pacing matters more than speed.',
      'Tom: I baked rye bread at the weekend.',
      'Priya: I repaired my old bicycle.',
      'Tom: I love baking bread.',
    ];
    const res = await call(server, 'POST', bank, {
      items: lines.map((content, i) => ({ content, context: 'conversation between Priya and Tom', timestamp: new Date(Date.UTC(2023, 4, 8, 13, 0, i)).toISOString(), document_id: `t${i}` })),
    });
    expect(res.status).toBe(200);
    const ask = async (query: string): Promise<{ results: Result[]; trace?: Record<string, unknown> }> =>
      (await call(server, 'POST', `${bank}/recall`, { query, types: ['world'], trace: true })).body as { results: Result[]; trace?: Record<string, unknown> };
    const details = (trace: Record<string, unknown> | undefined): { participants: string[]; attributed: number } =>
      (trace?.['summary'] as { phase_metrics: { details: { participants: string[]; attributed: number } }[] }).phase_metrics[0]?.details ?? { participants: [], attributed: -1 };
    const right = await ask('What did Priya learn from her marathon?');
    expect(right.results[0]?.scores.final).toBeGreaterThanOrEqual(0.4);
    expect(details(right.trace)).toMatchObject({ participants: ['Priya'], attributed: 1 });
    const swapped = await ask('What did Tom learn from his marathon?');
    expect(swapped.results[0]?.scores.final).toBeLessThan(0.4);
    expect(details(swapped.trace).participants).toEqual(['Tom']);
    expect(details(swapped.trace).attributed).toBeLessThan(1);
  });
});
