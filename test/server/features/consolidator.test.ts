import { describe, expect, it, vi } from 'vitest';
import { createConsolidator } from '../../../src/server/features/consolidator.js';
import { newBank } from '../../../src/server/routes/bankOps.js';
import type { FactRecord, Mutation } from '../../../src/server/store/model.js';
import { openStore } from '../../../src/server/store/store.js';

const NOW = '2026-02-01T00:00:00+00:00';

const fact = (id: string, text: string, documentId: string, tags: string[] = []): FactRecord => ({
  id,
  text,
  fact_type: 'world',
  document_id: documentId,
  chunk_id: `${documentId}_0`,
  tags,
  created_at: NOW,
  mentioned_at: NOW,
});

const documentPut = (documentId: string, facts: FactRecord[], scopes?: string): Mutation => ({
  type: 'document.put',
  bank_id: 'b',
  document: {
    id: documentId,
    original_text: facts.map((f) => f.text).join('\n'),
    content_hash: null,
    created_at: NOW,
    updated_at: NOW,
    tags: facts[0]?.tags ?? [],
    retain_params: scopes === undefined ? {} : { observation_scopes: scopes },
  },
  chunks: [],
  facts,
});

const observations = (store: Awaited<ReturnType<typeof openStore>>): FactRecord[] =>
  [...(store.bank('b')?.facts.values() ?? [])].filter((f) => f.fact_type === 'observation');

/** The sources of the observation the tests' facts share ("turbo caching"), if it exists. */
const turboSources = (store: Awaited<ReturnType<typeof openStore>>): readonly string[] | undefined =>
  observations(store).find((o) => o.text.startsWith('**turbo**'))?.source_fact_ids;

describe('observation consolidator over the store', () => {
  it('marks a bank dirty on source-fact changes and writes the observation diff on ensureFresh', async () => {
    const store = await openStore();
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 60_000 });
    try {
      await store.commit([{ type: 'bank.put', bank: newBank('b', NOW) }, documentPut('d1', [fact('f1', 'Builds use turbo caching.', 'd1')]), documentPut('d2', [fact('f2', 'Turbo caching saves minutes.', 'd2')])]);
      expect(consolidator.isDirty('b')).toBe(true);
      await consolidator.ensureFresh('b');
      expect(consolidator.isDirty('b')).toBe(false);
      const first = observations(store);
      const turbo = first.find((o) => o.text.startsWith('**turbo**'));
      expect(turbo?.source_fact_ids?.sort()).toEqual(['f1', 'f2']);
      expect(turbo?.document_id).toBeNull();

      // Writing observations does not mark the bank dirty again.
      expect(consolidator.isDirty('b')).toBe(false);

      await store.commit([{ type: 'document.delete', bank_id: 'b', document_id: 'd2' }]);
      expect(consolidator.isDirty('b')).toBe(true);
      await consolidator.ensureFresh('b');
      expect(observations(store).find((o) => o.id === turbo?.id)).toBeUndefined();
    } finally {
      await consolidator.close();
      await store.close();
    }
  });

  it('builds no observation from an invalidated fact, and builds it again once the fact is reverted', async () => {
    const store = await openStore();
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 60_000 });
    try {
      const f2 = fact('f2', 'Turbo caching saves minutes.', 'd2');
      await store.commit([{ type: 'bank.put', bank: newBank('b', NOW) }, documentPut('d1', [fact('f1', 'Builds use turbo caching.', 'd1')]), documentPut('d2', [f2])]);
      await consolidator.ensureFresh('b');
      expect([...(turboSources(store) ?? [])].sort()).toEqual(['f1', 'f2']);

      // Upstream moves an invalidated fact to its archive, out of consolidation's reach, and sweeps the observations built from it.
      await store.commit([{ type: 'facts.put', bank_id: 'b', facts: [{ ...f2, state: 'invalidated', invalidated_at: NOW }] }]);
      expect(consolidator.isDirty('b')).toBe(true);
      await consolidator.ensureFresh('b');
      expect(turboSources(store)).toBeUndefined();

      await store.commit([{ type: 'facts.put', bank_id: 'b', facts: [f2] }]);
      await consolidator.ensureFresh('b');
      expect([...(turboSources(store) ?? [])].sort()).toEqual(['f1', 'f2']);
    } finally {
      await consolidator.close();
      await store.close();
    }
  });

  it('a large bank: a read does not wait for its pass, which runs in the background at most once per interval', async () => {
    const store = await openStore();
    // Two facts are "large" here; at the default, 2,000 (a pass over 100k took 3.4 s, past the recall deadline).
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 10, backgroundLimit: 1, largeBankIntervalMs: 60_000 });
    try {
      await store.commit([{ type: 'bank.put', bank: newBank('b', NOW) }, documentPut('d1', [fact('f1', 'Builds use turbo caching.', 'd1')]), documentPut('d2', [fact('f2', 'Turbo caching saves minutes.', 'd2')])]);
      await consolidator.ensureFresh('b');
      // Answered at once with what the bank had: nothing consolidated yet.
      expect(observations(store)).toEqual([]);
      expect(consolidator.isDirty('b')).toBe(true);
      await vi.waitFor(() => expect(turboSources(store)).toEqual(['f1', 'f2']));
      expect(consolidator.isDirty('b')).toBe(false);

      // A write inside the interval: reads answer with the observations as they were, and no pass runs before the interval ends.
      await store.commit([documentPut('d3', [fact('f3', 'Turbo caching needs a remote cache.', 'd3')])]);
      await consolidator.ensureFresh('b');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(consolidator.isDirty('b')).toBe(true);
      expect(turboSources(store)).toEqual(['f1', 'f2']);
    } finally {
      await consolidator.close();
      await store.close();
    }
  });

  it('counts the source facts written since the last pass (stats pending_consolidation), draining to 0 when a large bank is passed over', async () => {
    const store = await openStore();
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 10, backgroundLimit: 1, largeBankIntervalMs: 60_000 });
    try {
      const f1 = fact('f1', 'Builds use turbo caching.', 'd1');
      await store.commit([{ type: 'bank.put', bank: newBank('b', NOW) }, documentPut('d1', [f1]), documentPut('d2', [fact('f2', 'Turbo caching saves minutes.', 'd2')])]);
      expect(consolidator.pendingCount('b')).toBe(2);
      // A fact written twice is queued once.
      await store.commit([{ type: 'facts.put', bank_id: 'b', facts: [{ ...f1, text: 'Builds use turbo caching remotely.' }] }]);
      expect(consolidator.pendingCount('b')).toBe(2);
      await consolidator.ensureFresh('b');
      await vi.waitFor(() => expect(turboSources(store)).toEqual(['f1', 'f2']));
      expect(consolidator.pendingCount('b')).toBe(0);
      // Writing the observations queued nothing; a new source fact is queued, and drops out when deleted.
      await store.commit([documentPut('d3', [fact('f3', 'Turbo caching needs a remote cache.', 'd3')])]);
      expect(consolidator.pendingCount('b')).toBe(1);
      await store.commit([{ type: 'document.delete', bank_id: 'b', document_id: 'd3' }]);
      expect(consolidator.pendingCount('b')).toBe(0);
      expect(consolidator.pendingCount('other')).toBe(0);
    } finally {
      await consolidator.close();
      await store.close();
    }
  });

  it("a large bank's pass leaves the bank's exclusive section free while it works (writes are not held up)", async () => {
    const store = await openStore();
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 0, backgroundLimit: 1 });
    try {
      const services = ['billing', 'search', 'ledger', 'invoices', 'gateway', 'mailer', 'reports', 'uploads', 'payroll', 'catalog'];
      const tools = ['webpack', 'esbuild', 'rollup', 'vite', 'turbopack', 'parcel', 'swc'];
      const facts = Array.from({ length: 20_000 }, (_, i) => fact(`f${i}`, `The ${services[i % services.length] ?? ''} service builds with ${tools[i % tools.length] ?? ''}.`, 'd1'));
      await store.commit([{ type: 'bank.put', bank: newBank('b', NOW) }, documentPut('d1', facts)]);
      await consolidator.ensureFresh('b');
      // The pass has started (it clears the mark first) and works in slices; the section is taken at once.
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(consolidator.isDirty('b')).toBe(false);
      const seenInside = await store.exclusive('b', () => Promise.resolve(observations(store).length));
      expect(seenInside).toBe(0);
      await vi.waitFor(() => expect(observations(store).length).toBeGreaterThan(0), { timeout: 20_000 });
    } finally {
      await consolidator.close();
      await store.close();
    }
  });

  it('a large bank is passed over when a read asks, and again once the interval has gone by', async () => {
    const store = await openStore();
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 10, backgroundLimit: 1, largeBankIntervalMs: 150 });
    try {
      await store.commit([{ type: 'bank.put', bank: newBank('b', NOW) }, documentPut('d1', [fact('f1', 'Builds use turbo caching.', 'd1')]), documentPut('d2', [fact('f2', 'Turbo caching saves minutes.', 'd2')])]);
      // Writes alone never start a large bank's pass: a read that wants observations does.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(observations(store)).toEqual([]);
      await consolidator.ensureFresh('b');
      await vi.waitFor(() => expect(turboSources(store)).toEqual(['f1', 'f2']));
      await store.commit([documentPut('d3', [fact('f3', 'Turbo caching needs a remote cache.', 'd3')])]);
      await consolidator.ensureFresh('b');
      await vi.waitFor(() => expect(turboSources(store)).toEqual(['f1', 'f2', 'f3']));
      expect(consolidator.isDirty('b')).toBe(false);
    } finally {
      await consolidator.close();
      await store.close();
    }
  });

  it('reads observation scopes from the document retain params', async () => {
    const store = await openStore();
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 60_000 });
    try {
      await store.commit([
        { type: 'bank.put', bank: newBank('b', NOW) },
        documentPut('d1', [fact('f1', 'Lint runs eslint.', 'd1', ['source:a', 'project:p'])], 'shared'),
        documentPut('d2', [fact('f2', 'Eslint config is flat.', 'd2', ['source:b', 'project:p'])], 'shared'),
      ]);
      await consolidator.ensureFresh('b');
      const eslint = observations(store).find((o) => o.text.startsWith('**eslint**'));
      expect(eslint?.tags).toEqual([]);
    } finally {
      await consolidator.close();
      await store.close();
    }
  });

  it('banks already holding facts at start-up are dirty; a deleted bank is forgotten', async () => {
    const store = await openStore();
    await store.commit([{ type: 'bank.put', bank: newBank('b', NOW) }, documentPut('d1', [fact('f1', 'Anything at all.', 'd1')])]);
    const consolidator = createConsolidator({ store, nowIso: () => NOW, settleMs: 60_000 });
    try {
      expect(consolidator.isDirty('b')).toBe(true);
      await store.commit([{ type: 'bank.delete', bank_id: 'b' }]);
      expect(consolidator.isDirty('b')).toBe(false);
      await consolidator.ensureFresh('b');
    } finally {
      await consolidator.close();
      await store.close();
    }
  });
});
