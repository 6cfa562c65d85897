/**
 * The browse routes' indexes (`factIndex.ts`, `documentIndex.ts`, `browseQueries.ts`) answer
 * exactly what the old scans of every stored record answered (`browseScan.ts`), on generated
 * banks: documents written, rewritten (their unchanged facts keeping their ids) and deleted,
 * facts edited in place, invalidated and restored, observations added, facts deleted; dates
 * drawn from a few values so orders tie, tags and entity names in two cases. The indexes (and
 * the texts) are read one record a turn of the event loop while writes land, then follow later
 * writes, and are made again after a restart (every fact then read from the segment files). Every filter of the memory list, the graph and
 * the documents list is asked with paging at its edges (first, inside, the last item, past the end).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBrowseIndexes } from '../../../src/server/features/browseIndexes.js';
import type { BrowseIndexes } from '../../../src/server/features/browseIndexes.js';
import { documentPage, graphUnits, memoryPage } from '../../../src/server/features/browseQueries.js';
import type { GraphFilter, MemoryFilter } from '../../../src/server/features/browseQueries.js';
import type { TagsMatch } from '../../../src/server/recall/tagFilter.js';
import type { DocumentRecord, FactRecord, Mutation } from '../../../src/server/store/model.js';
import { openStore } from '../../../src/server/store/store.js';
import type { ServerStore } from '../../../src/server/store/store.js';
import { scanCooccurrences, scanDocumentPage, scanEntities, scanGraphUnits, scanMemoryPage } from './browseScan.js';

const BANK = 'browse';
const DATES = ['2026-01-01T00:00:00+00:00', '2026-01-02T00:00:00+00:00', '2026-01-02T00:00:00.500+00:00', '2026-01-03T10:00:00Z'];
const TAGS = ['a', 'b', 'c'];
const NAMES = ['Ada', 'ada', 'Bob', 'BOB', 'Cy'];
const WORDS = ['alpha', 'Beta', 'gamma', 'ALPHA beta'];
const MODES: readonly TagsMatch[] = ['any', 'all', 'any_strict', 'all_strict', 'exact'];

const at = DATES[0] ?? '';
const bankPut: Mutation = {
  type: 'bank.put',
  bank: { bank_id: BANK, name: BANK, disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: '', created_at: at, updated_at: at },
};

const factSpec = fc.record({
  word: fc.constantFrom(...WORDS),
  type: fc.constantFrom<'world' | 'experience'>('world', 'experience'),
  tags: fc.subarray(TAGS),
  mentioned: fc.option(fc.constantFrom(...DATES), { nil: undefined }),
  created: fc.constantFrom(...DATES),
  names: fc.subarray(NAMES, { maxLength: 3 }),
  keepId: fc.boolean(),
});

const op = fc.oneof(
  fc.record({ kind: fc.constant('document' as const), doc: fc.nat(4), facts: fc.array(factSpec, { maxLength: 4 }), tags: fc.subarray(TAGS), updated: fc.constantFrom(...DATES) }),
  fc.record({ kind: fc.constant('deleteDocument' as const), doc: fc.nat(4) }),
  fc.record({ kind: fc.constantFrom('invalidate' as const, 'restore' as const, 'edit' as const, 'deleteFact' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('observation' as const), created: fc.constantFrom(...DATES), tags: fc.subarray(TAGS) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/** Applies `o` through the store, as the routes do; `n` makes new ids. */
const apply = async (store: ServerStore, o: Op, n: { next: number }): Promise<void> => {
  const bank = store.bank(BANK);
  const facts = [...(bank?.facts.values() ?? [])];
  const picked = (pick: number): FactRecord | undefined => facts.filter((f) => f.fact_type !== 'observation')[pick % Math.max(1, facts.length)];
  switch (o.kind) {
    case 'document': {
      const id = `Doc-${o.doc}`;
      const old = bank?.factsByDocument.get(id) ?? [];
      const document: DocumentRecord = { id, original_text: 'text', content_hash: null, created_at: at, updated_at: o.updated, tags: o.tags, retain_params: {} };
      const written = o.facts.map((spec, i): FactRecord => ({
        // A rewrite keeps an unchanged fact's id (retain's delta), which moves it to the end of the table.
        id: spec.keepId && old[i] !== undefined ? old[i] : `f-${n.next++}`,
        text: `${spec.word} ${n.next}`,
        fact_type: spec.type,
        document_id: id,
        chunk_id: `${id}-c${i % 2}`,
        tags: spec.tags,
        created_at: spec.created,
        ...(spec.mentioned === undefined ? {} : { mentioned_at: spec.mentioned }),
        ...(spec.names.length === 0 ? {} : { entities: spec.names.map((text) => ({ text })) }),
      }));
      await store.commit([{ type: 'document.put', bank_id: BANK, document, chunks: [], facts: written }]);
      return;
    }
    case 'deleteDocument':
      if (bank?.documents.has(`Doc-${o.doc}`) === true) await store.commit([{ type: 'document.delete', bank_id: BANK, document_id: `Doc-${o.doc}` }]);
      return;
    case 'observation': {
      const sources = facts.slice(0, 2).map((f) => f.id);
      const fact: FactRecord = { id: `o-${n.next++}`, text: 'alpha observed', fact_type: 'observation', document_id: null, chunk_id: null, tags: o.tags, created_at: o.created, source_fact_ids: sources };
      await store.commit([{ type: 'facts.put', bank_id: BANK, facts: [fact] }]);
      return;
    }
    default: {
      const fact = picked(o.pick);
      if (fact === undefined) return;
      if (o.kind === 'deleteFact') {
        await store.commit([{ type: 'facts.delete', bank_id: BANK, ids: [fact.id] }]);
        return;
      }
      const { state: _s, invalidated_at: _i, ...valid } = fact;
      const next: FactRecord =
        o.kind === 'invalidate' ? { ...fact, state: 'invalidated', invalidated_at: at } : o.kind === 'restore' ? valid : { ...fact, text: `gamma edited ${n.next++}`, tags: ['c'] };
      await store.commit([{ type: 'facts.put', bank_id: BANK, facts: [next] }]);
    }
  }
};

const ids = (items: readonly { readonly id: string }[]): string[] => items.map((item) => item.id);

const memoryFilters = (entityIds: readonly string[]): MemoryFilter[] => [
  // The text the last round ended with, asked again after the writes between rounds.
  { q: 'beta', tagsMatch: 'any' },
  { tagsMatch: 'any' },
  { tagsMatch: 'exact' },
  { type: 'world', tagsMatch: 'any' },
  { type: 'observation', tagsMatch: 'any' },
  { state: 'valid', tagsMatch: 'any' },
  { state: 'invalidated', tagsMatch: 'any' },
  // Typed on, as in the search box: each text found among the last one's matches.
  { q: 'a', tagsMatch: 'any' },
  { q: 'al', tagsMatch: 'any' },
  { q: 'alpha', tagsMatch: 'any' },
  { q: 'alpha b', tagsMatch: 'any' },
  { q: 'a b', tagsMatch: 'any' },
  { q: '', tagsMatch: 'any' },
  { documentId: 'Doc-1', tagsMatch: 'any' },
  ...MODES.map((mode): MemoryFilter => ({ tags: ['a'], tagsMatch: mode })),
  ...MODES.map((mode): MemoryFilter => ({ tags: ['a', 'b'], tagsMatch: mode })),
  { type: 'experience', state: 'valid', tags: ['b'], tagsMatch: 'all', q: 'beta' },
  ...[...entityIds, 'not-an-entity'].map((entityId): MemoryFilter => ({ entityId, tagsMatch: 'any' })),
];

const graphFilters: GraphFilter[] = [
  { tagsMatch: 'all_strict' },
  { tagsMatch: 'any' },
  { type: 'world', tagsMatch: 'any' },
  { q: 'alpha', tagsMatch: 'any' },
  { documentId: 'Doc-2', tagsMatch: 'any' },
  { chunkId: 'Doc-0-c1', tagsMatch: 'any' },
  ...MODES.map((mode): GraphFilter => ({ tags: ['a'], tagsMatch: mode })),
];

/** Paging at its edges for a result of `total` items. */
const pages = (total: number): [number, number][] => [
  [100, 0],
  [1, 0],
  [2, 1],
  [1, Math.max(0, total - 1)],
  [3, total],
  [5, total + 2],
];

/** Builds that hand the loop back after every fact or document they read, so writes land in the middle. */
const stepBySlices = (store: ServerStore): BrowseIndexes => createBrowseIndexes(store, () => ({ due: () => true, restart: () => undefined }));
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const expectSameAnswers = async (store: ServerStore, indexes: BrowseIndexes): Promise<void> => {
  const bank = store.bank(BANK);
  const index = await indexes.facts(BANK);
  const documents = await indexes.documents(BANK);
  const entities = scanEntities(BANK, bank);
  expect(index?.entities()).toEqual(entities);
  expect(index?.cooccurrences()).toEqual(scanCooccurrences(BANK, bank));
  for (const filter of memoryFilters([...entities.keys()])) {
    const total = scanMemoryPage(BANK, bank, filter, 0, 0).total;
    for (const [limit, offset] of pages(total)) {
      const got = await memoryPage(bank, index, filter, limit, offset);
      const want = scanMemoryPage(BANK, bank, filter, limit, offset);
      expect({ filter, limit, offset, ids: ids(got.items), total: got.total }).toEqual({ filter, limit, offset, ids: ids(want.items), total: want.total });
    }
  }
  for (const filter of graphFilters) {
    for (const limit of [1, 3, 1000]) {
      const got = await graphUnits(bank, index, filter, limit);
      const want = scanGraphUnits(bank, filter, limit);
      expect({ filter, limit, ids: ids(got.items), total: got.total }).toEqual({ filter, limit, ids: ids(want.items), total: want.total });
    }
  }
  for (const q of [undefined, 'doc-1', 'DOC', 'x']) {
    for (const [tags, mode] of [[undefined, 'any'], [['a'], 'any'], [['a', 'b'], 'all_strict'], [undefined, 'exact']] as const) {
      const total = scanDocumentPage(bank, q, tags, mode, 0, 0).total;
      for (const [limit, offset] of pages(total)) {
        const got = documentPage(bank, documents, q, tags, mode, limit, offset);
        const want = scanDocumentPage(bank, q, tags, mode, limit, offset);
        expect({ q, tags, limit, offset, ids: ids(got.items), total: got.total }).toEqual({ q, tags, limit, offset, ids: ids(want.items), total: want.total });
      }
    }
  }
};

describe('browse indexes answer as the old scans did', () => {
  it('on generated banks: built while writes land, followed through later writes, and after a restart', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.array(op, { maxLength: 12 }), fc.array(op, { maxLength: 12 }), fc.boolean(), async (before, during, after, restart) => {
        const dir = restart ? await mkdtemp(join(tmpdir(), 'am-browse-')) : undefined;
        let store = await openStore(dir === undefined ? {} : { dataDir: dir });
        const n = { next: 0 };
        try {
          await store.commit([bankPut]);
          for (const o of before) await apply(store, o, n);
          let indexes = stepBySlices(store);
          // The builds read one record a turn; these writes land while they read.
          const built = Promise.all([indexes.facts(BANK), indexes.documents(BANK)]);
          for (const o of during) {
            await apply(store, o, n);
            await turn();
          }
          const [index] = await built;
          // The texts too are read a fact a turn, with writes landing meanwhile.
          const texts = index?.textMatches('');
          for (const o of during) {
            await apply(store, o, n);
            await turn();
          }
          await texts;
          await expectSameAnswers(store, indexes);
          for (const o of after) {
            await apply(store, o, n);
            await expectSameAnswers(store, indexes);
          }
          if (dir !== undefined) {
            await store.close();
            store = await openStore({ dataDir: dir });
            indexes = stepBySlices(store);
            await expectSameAnswers(store, indexes);
            for (const o of after) await apply(store, o, n);
            await expectSameAnswers(store, indexes);
          }
        } finally {
          await store.close();
          if (dir !== undefined) await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('a bank deleted and made again is indexed afresh', async () => {
    const store = await openStore({});
    try {
      const n = { next: 0 };
      const indexes = stepBySlices(store);
      await store.commit([bankPut]);
      await apply(store, { kind: 'document', doc: 1, facts: [{ word: 'alpha', type: 'world', tags: ['a'], mentioned: undefined, created: at, names: ['Ada'], keepId: false }], tags: [], updated: at }, n);
      await expectSameAnswers(store, indexes);
      await store.commit([{ type: 'bank.delete', bank_id: BANK }, bankPut]);
      await expectSameAnswers(store, indexes);
      expect((await indexes.facts(BANK))?.size).toBe(0);
      expect(documentPage(store.bank(BANK), await indexes.documents(BANK), undefined, undefined, 'any', 10, 0).total).toBe(0);
    } finally {
      await store.close();
    }
  });
});
