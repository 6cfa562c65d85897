import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Mutation } from '../../../src/server/store/model.js';
import { openStore } from '../../../src/server/store/store.js';
import { yieldToLoop } from '../../../src/server/slices.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const at = '2026-11-28T08:00:00.000+00:00';
const DOCUMENTS = 5_000;
const documentPut = (i: number): Mutation => ({
  type: 'document.put',
  bank_id: 'b',
  document: { id: `d${i}`, original_text: `document ${i}`, content_hash: null, created_at: at, updated_at: at, tags: [], retain_params: { event_date: at } },
  chunks: [{ id: `c${i}`, document_id: `d${i}`, chunk_index: 0, text: `document ${i}` }],
  facts: [{ id: `f${i}`, text: `document ${i}`, fact_type: 'world', document_id: `d${i}`, chunk_id: `c${i}`, tags: [], created_at: at }],
});

/** A data dir whose bank of DOCUMENTS documents lies in a segment (restored with its tables deferred). */
const writtenBank = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'am-sliced-fill-'));
  dirs.push(dir);
  const store = await openStore({ dataDir: dir });
  await store.commit([
    { type: 'bank.put', bank: { bank_id: 'b', name: 'b', disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: '', created_at: at, updated_at: at } },
    ...Array.from({ length: DOCUMENTS }, (_, i) => documentPut(i)),
  ]);
  await store.snapshotNow();
  await store.close();
  return dir;
};

/** A slice that is always over: the fill hands the loop back after every step. */
const everyStep = { due: () => true, restart: () => undefined };

describe("a restored bank's deferred tables made in slices", () => {
  it('hand the event loop back between steps: work queued meanwhile runs before the fill ends', async () => {
    const store = await openStore({ dataDir: await writtenBank() });
    try {
      const bank = store.bank('b');
      if (bank === undefined) throw new Error('bank b was not restored');
      const order: string[] = [];
      const filled = bank.fillInSlices(everyStep).then(() => order.push('filled'));
      setImmediate(() => order.push('other'));
      await filled;
      expect(order).toEqual(['other', 'filled']);
      expect(bank.documents.size).toBe(DOCUMENTS);
      expect(bank.chunks.get(`c${DOCUMENTS - 1}`)?.document_id).toBe(`d${DOCUMENTS - 1}`);
      expect(bank.chunksByDocument.get(`d${DOCUMENTS - 1}`)).toEqual([`c${DOCUMENTS - 1}`]);
      expect(bank.factsByDocument.get('d0')).toEqual(['f0']);
    } finally {
      await store.close();
    }
  });

  it('a use while the fill is under way sees whole tables, in the order a fill in one go makes', async () => {
    const dir = await writtenBank();
    const whole = await openStore({ dataDir: dir });
    const expected = [...(whole.bank('b')?.documents.keys() ?? [])];
    const expectedChunks = [...(whole.bank('b')?.chunks.keys() ?? [])];
    await whole.close();
    expect(expected).toHaveLength(DOCUMENTS);

    const store = await openStore({ dataDir: dir });
    try {
      const bank = store.bank('b');
      if (bank === undefined) throw new Error('bank b was not restored');
      const filled = bank.fillInSlices(everyStep);
      await yieldToLoop();
      // Mid-fill: this use makes the rest at once.
      expect(bank.documents.get(`d${DOCUMENTS - 1}`)?.original_text).toBe(`document ${DOCUMENTS - 1}`);
      expect([...bank.documents.keys()]).toEqual(expected);
      expect([...bank.chunks.keys()]).toEqual(expectedChunks);
      expect(bank.factsByDocument.get(`d${DOCUMENTS - 1}`)).toEqual([`f${DOCUMENTS - 1}`]);
      await filled;
      expect(bank.documents.size).toBe(DOCUMENTS);
    } finally {
      await store.close();
    }
  });

  it("counts its documents and chunks from the segment's footer without making the tables, and counts right after a write", async () => {
    const store = await openStore({ dataDir: await writtenBank() });
    try {
      const bank = store.bank('b');
      if (bank === undefined) throw new Error('bank b was not restored');
      expect(bank.documents.size).toBe(DOCUMENTS);
      expect(bank.chunks.size).toBe(DOCUMENTS);
      // The bank's stats read these sizes: at 100k, making the table for them was 46 MB.
      expect(bank.documents.deferred).toBe(true);
      expect(bank.chunks.deferred).toBe(true);
      await store.commit([documentPut(DOCUMENTS), { type: 'document.delete', bank_id: 'b', document_id: 'd0' }]);
      expect(bank.documents.deferred).toBe(false);
      expect(bank.documents.size).toBe(DOCUMENTS);
      expect(bank.documents.has('d0')).toBe(false);
      expect(bank.chunks.size).toBe(DOCUMENTS);
      expect([...bank.documents.keys()]).toHaveLength(DOCUMENTS);
    } finally {
      await store.close();
    }
  });
});
