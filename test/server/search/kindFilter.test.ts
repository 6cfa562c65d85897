import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { planRetain } from '../../../src/server/retain/plan.js';
import { decodeIndexFile, encodeIndexFile, INDEX_FILE, readIndexFile } from '../../../src/server/search/indexFile.js';
import { createSearchIndexes, indexFingerprint, type SearchIndexes } from '../../../src/server/search/indexes.js';
import type { FactHead, FactRecord } from '../../../src/server/store/model.js';
import { openStore, type ServerStore } from '../../../src/server/store/store.js';
import type { FactType } from '../../../src/wire/hindsight.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const BANK = 'k';
const fact = (id: string, fact_type: FactType, extra: Partial<FactRecord> = {}): FactRecord => ({
  id,
  text: `zebra crossing number ${id}`,
  fact_type,
  document_id: null,
  chunk_id: null,
  tags: [],
  created_at: '2024-01-01T00:00:00+00:00',
  ...extra,
});
const FACTS: readonly FactRecord[] = [
  fact('w1', 'world'),
  fact('w2', 'world', { tags: ['team'] }),
  fact('w-gone', 'world', { state: 'invalidated' }),
  fact('e1', 'experience'),
  fact('e-gone', 'experience', { state: 'invalidated' }),
  fact('o1', 'observation'),
];
const TYPE_SETS: readonly (readonly FactType[])[] = [['world'], ['experience'], ['observation'], ['world', 'experience'], ['world', 'experience', 'observation']];

/** What recall.ts's filter keeps without tags: the live memories of `types`, read from the store's head. */
const byHead =
  (types: readonly FactType[]) =>
  (head: FactHead): boolean =>
    types.includes(head.fact_type) && head.state !== 'invalidated';

/** Ids and scores of a search for the facts' shared word, by the head and by the index's kinds. */
const both = (search: SearchIndexes, types: readonly FactType[]): { head: unknown; kind: unknown } => {
  const run = (options: { liveOfTypes?: readonly FactType[] }): unknown =>
    search
      // No acceptKey: verdicts last one search, so each way is asked about every memory.
      .search(BANK, 'zebra crossing', byHead(types), 50, options)
      .hits.map((h) => [h.id, h.score])
      .sort();
  return { head: run({}), kind: run({ liveOfTypes: types }) };
};

const expected = (types: readonly FactType[]): string[] =>
  FACTS.filter((f) => types.includes(f.fact_type) && f.state !== 'invalidated')
    .map((f) => f.id)
    .sort();

const open = async (dir: string): Promise<{ store: ServerStore; search: SearchIndexes; unsaved: number }> => {
  const read = await readIndexFile(dir, indexFingerprint());
  const store = await openStore({ dataDir: dir });
  const search = createSearchIndexes(store);
  const unsaved = search.buildAll(read.ok ? read.saved : undefined);
  return { store, search, unsaved };
};

describe('a filter on fact type and state, answered from the index (kinds)', () => {
  it('keeps what the store\'s heads keep, for a saved index with every kind and one of an older format with none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'am-kind-filter-'));
    dirs.push(dir);
    const first = await open(dir);
    const plan = planRetain({ bankId: BANK, bank: undefined, items: [{ content: 'unrelated words only', document_id: 'doc' }], documentTags: [], now: 1_700_000_000_000, newId: () => 'retained', appendSupported: true });
    await first.store.commit(plan.mutations);
    await first.store.commit([{ type: 'facts.put', bank_id: BANK, facts: [...FACTS] }]);
    for (const types of TYPE_SETS) {
      const { head, kind } = both(first.search, types);
      expect(kind).toEqual(head);
      expect((kind as [string, number][]).map(([id]) => id)).toEqual(expected(types));
    }
    // A hit's type comes from the fact's head (no stored fact read) and is the fact's.
    const hits = first.search.search(BANK, 'zebra crossing', () => true, 50).hits;
    expect(hits.length).toBe(FACTS.length);
    for (const h of hits) expect(h.factType).toBe(FACTS.find((f) => f.id === h.id)?.fact_type);
    // With every kind in the index, from the kind: the store's fact table is not asked for a head
    // (filtered by the kinds too, so the filter asks nothing either).
    const facts = first.store.bank(BANK)?.facts;
    if (facts === undefined) throw new Error('no bank');
    const heads = vi.spyOn(facts, 'head');
    const byKind = first.search.search(BANK, 'zebra crossing', () => true, 50, { liveOfTypes: ['world', 'experience', 'observation'] }).hits;
    expect(byKind.map((h) => h.id).sort()).toEqual(expected(['world', 'experience', 'observation']));
    for (const h of byKind) expect(h.factType).toBe(FACTS.find((f) => f.id === h.id)?.fact_type);
    expect(heads).not.toHaveBeenCalled();
    heads.mockRestore();
    await first.search.save();
    first.search.close();
    await first.store.close();

    // The file holds a kind for every memory; then the same file with none (as format 4 and
    // older load): the kinds are read from the store when first asked, and saved again.
    const file = await readFile(join(dir, INDEX_FILE));
    const saved = decodeIndexFile(file, indexFingerprint());
    if (!saved.ok) throw new Error(saved.reason);
    const sealed = saved.saved.banks.get(BANK);
    if (sealed === undefined) throw new Error('bank not saved');
    expect(sealed.kinds.length).toBe(FACTS.length + 1);
    expect([...sealed.kinds].every((k) => k !== 0)).toBe(true);
    await writeFile(join(dir, INDEX_FILE), encodeIndexFile(saved.saved.nextSeq, indexFingerprint(), new Map([[BANK, { ...sealed, kinds: new Uint8Array(sealed.kinds.length) }]])));

    const second = await open(dir);
    // No kinds yet: a hit's type is the store's head's.
    const unknown = second.search.search(BANK, 'zebra crossing', () => true, 50).hits;
    expect(unknown.length).toBe(FACTS.length);
    for (const h of unknown) expect(h.factType).toBe(FACTS.find((f) => f.id === h.id)?.fact_type);
    // Loaded without kinds: counted among the banks to save soon (index.ts saves them).
    expect(second.unsaved).toBe(1);
    for (const types of TYPE_SETS) {
      const { head, kind } = both(second.search, types);
      expect(kind).toEqual(head);
      expect((kind as [string, number][]).map(([id]) => id)).toEqual(expected(types));
    }
    // An edit re-adds the memory under a new number, with its new kind.
    await second.store.commit([{ type: 'facts.put', bank_id: BANK, facts: [fact('w1', 'world', { state: 'invalidated' }), fact('e-gone', 'experience')] }]);
    expect(both(second.search, ['world', 'experience']).kind).toEqual([
      ['e-gone', expect.any(Number)],
      ['e1', expect.any(Number)],
      ['w2', expect.any(Number)],
    ]);
    await second.search.save();
    const resaved = decodeIndexFile(await readFile(join(dir, INDEX_FILE)), indexFingerprint());
    if (!resaved.ok) throw new Error(resaved.reason);
    expect([...(resaved.saved.banks.get(BANK)?.kinds ?? [0])].every((k) => k !== 0)).toBe(true);
    second.search.close();
    await second.store.close();
  });
});
