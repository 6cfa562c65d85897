import type * as t from 'io-ts';
import { AuditLog } from '../../src/server/features/auditLog.js';
import { WebhookDispatcher } from '../../src/server/features/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerContext } from '../../src/server/context.js';
import { systemClock } from '../../src/effects/ports/clock.js';
import { FaultSet } from '../../src/server/faults.js';
import { createForeground } from '../../src/server/foreground.js';
import { createOperationRunner } from '../../src/server/operations.js';
import { runRecall } from '../../src/server/recall/recall.js';
import { planRetain } from '../../src/server/retain/plan.js';
import { createSearchIndexes } from '../../src/server/search/indexes.js';
import { openStore } from '../../src/server/store/store.js';
import type { ServerStore } from '../../src/server/store/store.js';

let store: ServerStore;
let server: ServerContext;
let rawIds: string[] = [];
let quoted: string[] = [];

beforeAll(async () => {
  store = await openStore();
  const faults = new FaultSet();
  const nowIso = (): string => new Date().toISOString();
  const search = createSearchIndexes(store);
  const foreground = createForeground();
  const operations = createOperationRunner({ store, faults, delayMs: 0, nowIso, newId: () => crypto.randomUUID(), foreground });
  server = { store, search, operations, foreground, faults, clock: systemClock, mimic: '0.9', apiVersion: '0.9.1', nowIso, audit: new AuditLog(), webhooks: new WebhookDispatcher() };
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
  // What the consolidator writes: a heading and sentences quoted from its facts, nothing more.
  const quoting = planRetain({
    bankId: 'q',
    bank: undefined,
    items: [
      { content: 'We deploy with ArgoCD. The prod sync is manual.', document_id: 'c' },
      { content: 'ArgoCD watches the infra repo.', document_id: 'd' },
      { content: 'The staging cluster runs ArgoCD 2.9 too.', document_id: 'e' },
    ],
    documentTags: [],
    now: 1_700_000_000_000,
    newId: () => `q-${(n += 1)}`,
    appendSupported: true,
  });
  await store.commit(quoting.mutations);
  quoted = [...(store.bank('q')?.facts.keys() ?? [])];
  const text = (id: string | undefined): string => store.bank('q')?.facts.get(id ?? '')?.text ?? '';
  const fact = (id: string, body: string, sources: string[]) => ({ id, text: body, fact_type: 'observation' as const, document_id: null, chunk_id: null, tags: [], created_at: '2024-01-01T00:00:00+00:00', source_fact_ids: sources });
  await store.commit([
    {
      type: 'facts.put',
      bank_id: 'q',
      facts: [
        fact('obs-quotes', `**ArgoCD** (3 facts)\n- We deploy with ArgoCD.\n- ${text(quoted[1])}\n- …and 1 more`, quoted),
        fact('obs-clipped', `**staging** (1 fact)\n- The staging cluster runs Argo…`, [quoted[2] ?? '']),
        fact('obs-summary', '**ArgoCD** (3 facts)\n- Deploys go through ArgoCD, manual in prod', quoted),
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

  it('prefer_observations: an observation that only quotes its facts gives way to them, one that says more stands in for them', () => {
    const body = runRecall(server, 'q', { request: { query: 'argocd staging deploy', prefer_observations: true }, types: ['world', 'observation'] });
    const returned = (body['results'] as { id: string; type: string; source_fact_ids?: string[] }[]);
    // The summary adds words of its own and replaces its facts; the two quoting ones are not returned.
    expect(returned.map((r) => r.id)).toEqual(['obs-summary']);
    expect(returned[0]?.source_fact_ids?.length).toBe(3);
    // A sentence clipped with "…" is still a quote.
    const plain = runRecall(server, 'q', { request: { query: 'staging cluster' }, types: ['world', 'observation'] });
    expect((plain['results'] as { id: string }[]).map((r) => r.id)).toContain('obs-clipped');
    const quotingOnly = runRecall(server, 'q', { request: { query: 'staging cluster', prefer_observations: true }, types: ['world', 'observation'] });
    const kept = (quotingOnly['results'] as { id: string }[]).map((r) => r.id);
    expect(kept).not.toContain('obs-clipped');
    expect(kept).toContain(quoted[2]);
  });

  it('every observation result names its source facts, without include.source_facts', () => {
    const body = runRecall(server, 'q', { request: { query: 'argocd staging' }, types: ['observation'] });
    const returned = body['results'] as { id: string; source_fact_ids?: string[] }[];
    expect(returned.length).toBe(3);
    for (const r of returned) expect(r.source_fact_ids?.length).toBeGreaterThan(0);
    expect(body['source_facts']).toBeUndefined();
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
