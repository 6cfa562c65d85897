import { describe, expect, it } from 'vitest';
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
    const turbo = (): FactRecord | undefined => observations(store).find((o) => o.text.startsWith('**turbo**'));
    try {
      const f2 = fact('f2', 'Turbo caching saves minutes.', 'd2');
      await store.commit([{ type: 'bank.put', bank: newBank('b', NOW) }, documentPut('d1', [fact('f1', 'Builds use turbo caching.', 'd1')]), documentPut('d2', [f2])]);
      await consolidator.ensureFresh('b');
      expect(turbo()?.source_fact_ids?.sort()).toEqual(['f1', 'f2']);

      // Upstream moves an invalidated fact to its archive, out of consolidation's reach, and sweeps the observations built from it.
      await store.commit([{ type: 'facts.put', bank_id: 'b', facts: [{ ...f2, state: 'invalidated', invalidated_at: NOW }] }]);
      expect(consolidator.isDirty('b')).toBe(true);
      await consolidator.ensureFresh('b');
      expect(turbo()).toBeUndefined();

      await store.commit([{ type: 'facts.put', bank_id: 'b', facts: [f2] }]);
      await consolidator.ensureFresh('b');
      expect(turbo()?.source_fact_ids?.sort()).toEqual(['f1', 'f2']);
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
