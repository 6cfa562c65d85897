import type * as t from 'io-ts';
import { AuditLog } from '../../src/server/features/auditLog.js';
import { WebhookDispatcher } from '../../src/server/features/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerContext } from '../../src/server/context.js';
import { systemClock } from '../../src/effects/ports/clock.js';
import { FaultSet } from '../../src/server/faults.js';
import { createOperationRunner } from '../../src/server/operations.js';
import { runRecall } from '../../src/server/recall/recall.js';
import { planRetain } from '../../src/server/retain/plan.js';
import { createSearchIndexes } from '../../src/server/search/indexes.js';
import { openStore } from '../../src/server/store/store.js';
import type { ServerStore } from '../../src/server/store/store.js';

let store: ServerStore;
let server: ServerContext;
let rawIds: string[] = [];

beforeAll(async () => {
  store = await openStore();
  const faults = new FaultSet();
  const nowIso = (): string => new Date().toISOString();
  const search = createSearchIndexes(store);
  const operations = createOperationRunner({ store, faults, delayMs: 0, nowIso, newId: () => crypto.randomUUID() });
  server = { store, search, operations, faults, clock: systemClock, mimic: '0.9', apiVersion: '0.9.1', nowIso, audit: new AuditLog(), webhooks: new WebhookDispatcher() };
  let n = 0;
  const plan = planRetain({
    bankId: 'p',
    bank: undefined,
    items: [
      { content: 'the build uses esbuild for bundling', document_id: 'a' },
      { content: 'bundling runs esbuild twice in watch mode', document_id: 'b' },
    ],
    documentTags: [],
    now: 1_700_000_000_000,
    newId: () => `raw-${(n += 1)}`,
    appendSupported: true,
  });
  await store.commit(plan.mutations);
  rawIds = [...(store.bank('p')?.facts.keys() ?? [])];
  await store.commit([
    {
      type: 'facts.put',
      bank_id: 'p',
      facts: [
        {
          id: 'obs-1',
          text: 'esbuild does the bundling',
          fact_type: 'observation',
          document_id: null,
          chunk_id: null,
          tags: [],
          created_at: '2024-01-01T00:00:00+00:00',
          source_fact_ids: rawIds,
        },
      ],
    },
  ]);
});
afterAll(async () => {
  await server.operations.close();
  server.search.close();
  await store.close();
});

const ids = (body: Record<string, unknown>): string[] => (body['results'] as { id: string }[]).map((r) => r.id).sort();

describe('recall pipeline', () => {
  it('prefer_observations drops raw facts an observation in the results was built from', () => {
    const request = { query: 'esbuild bundling' };
    const all = runRecall(server, 'p', { request, types: ['world', 'observation'] });
    expect(ids(all)).toEqual(['obs-1', ...rawIds].sort());
    const preferred = runRecall(server, 'p', { request: { ...request, prefer_observations: true }, types: ['world', 'observation'] });
    expect(ids(preferred)).toEqual(['obs-1']);
  });

  it('prefer_observations: an observation standing in for its facts carries their best score', () => {
    const request = { query: 'the build uses esbuild for bundling' };
    const all = runRecall(server, 'p', { request, types: ['world', 'observation'] }) as { results: { id: string; scores: { keyword: number; final: number } }[] };
    const best = all.results[0];
    expect(rawIds).toContain(best?.id);
    const preferred = runRecall(server, 'p', { request: { ...request, prefer_observations: true }, types: ['world', 'observation'] }) as typeof all;
    expect(preferred.results.map((r) => r.id)).toEqual(['obs-1']);
    expect(preferred.results[0]?.scores).toEqual(best?.scores);
  });

  it('include.source_facts lists the sources of observations within the budget', () => {
    const body = runRecall(server, 'p', { request: { query: 'esbuild', include: { source_facts: {} } }, types: ['observation'] });
    const [obs] = body['results'] as { id: string; source_fact_ids: string[] }[];
    expect(obs?.source_fact_ids).toEqual(rawIds);
    expect(Object.keys(body['source_facts'] as object).sort()).toEqual([...rawIds].sort());
    expect(body['source_facts_truncated']).toBe(false);
    const tight = runRecall(server, 'p', { request: { query: 'esbuild', include: { source_facts: { max_tokens: 10 as t.Int } } }, types: ['observation'] });
    expect(tight['source_facts_truncated']).toBe(true);
  });

  it('min_scores.final drops weaker results without backfilling', () => {
    const body = runRecall(server, 'p', { request: { query: 'esbuild watch', min_scores: { final: 1 } }, types: ['world'] });
    expect((body['results'] as unknown[]).length).toBe(1);
  });
});
