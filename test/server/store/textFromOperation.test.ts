import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../../helpers/embeddedServer.js';
import type { Mutation, OperationRecord } from '../../../src/server/store/model.js';
import { openStore } from '../../../src/server/store/store.js';
import type { ServerStore } from '../../../src/server/store/store.js';
import type { TextSource } from '../../../src/server/store/textFromOperation.js';

const dirs: string[] = [];
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'am-textref-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const at = '2026-11-29T08:00:00.000+00:00';
const bankPut: Mutation = {
  type: 'bank.put',
  bank: { bank_id: 'a', name: 'a', disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: '', created_at: at, updated_at: at },
};
// Over the store's 64 KB read buffer, each larger than the last; one in multi-byte UTF-8. Each starts with its own marker.
const texts = [`marker-0 ${'x'.repeat(100_000)}`, `marker-1 ${'é€😀'.repeat(40_000)} end`, `marker-2 ${'y'.repeat(700_000)}`, `marker-3 ${'z'.repeat(3_000_000)}`];

const operation = (id: string, contents: readonly string[], ids: readonly string[]): OperationRecord => ({
  id,
  bank_id: 'a',
  task_type: 'retain',
  status: 'pending',
  items_count: contents.length,
  created_at: at,
  updated_at: at,
  payload: { items: contents.map((content, i) => ({ content, document_id: ids[i] ?? '' })), document_tags: [] },
});
const ended = (op: OperationRecord): Mutation => {
  const { payload: _done, ...rest } = op;
  return { type: 'operation.put', operation: { ...rest, status: 'completed', completed_at: at } };
};
/** A document as the retain plan writes it: two chunks that are slices of its text, one fact each. */
const documentPut = (id: string, text: string): Mutation => {
  const half = Math.floor(text.length / 2);
  const chunks = [text.slice(0, half), text.slice(half + 1)];
  return {
    type: 'document.put',
    bank_id: 'a',
    document: { id, original_text: text, content_hash: null, created_at: at, updated_at: at, tags: ['t'], retain_params: { event_date: at } },
    chunks: chunks.map((c, i) => ({ id: `a_${id}_${i}`, document_id: id, chunk_index: i, text: c })),
    facts: chunks.map((c, i) => ({ id: `f_${id}_${i}`, text: c, fact_type: 'world' as const, document_id: id, chunk_id: `a_${id}_${i}`, tags: ['t'], created_at: at })),
  };
};
const sourcesOf = (opId: string, ids: readonly string[]): Map<string, TextSource> => new Map(ids.map((id, item) => [id, { operationId: opId, item }]));

/** Every log segment's text, concatenated. */
const logText = async (dir: string): Promise<string> => {
  const names = (await readdir(dir)).filter((n) => /^log-\d+\.jsonl$/.test(n)).sort();
  return (await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')))).join('');
};
const copies = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

/** The data dir as a SIGKILL leaves it (the lock aside): a copy taken while the store is open, nothing snapshotted on close. */
const crashCopy = async (dir: string): Promise<string> => {
  const copy = await tempDir();
  await cp(dir, copy, { recursive: true, filter: (src) => !src.endsWith('server.lock') });
  return copy;
};
const storedTexts = (store: ServerStore, ids: readonly string[]): (string | null | undefined)[] => ids.map((id) => store.bank('a')?.documents.get(id)?.original_text);
const chunkTexts = (store: ServerStore, id: string): (string | undefined)[] =>
  (store.bank('a')?.chunksByDocument.get(id) ?? []).map((chunkId) => store.bank('a')?.chunks.get(chunkId)?.text);

describe('a document written by its async retain refers to its operation record for its text', () => {
  const ids = texts.map((_, i) => `d${i}`);

  it('large texts (100 KB-3 MB) are written once, and read back whole by a replay, a snapshot, a compaction and a restart', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    const op = operation('op1', texts, ids);
    await store.commit([bankPut, { type: 'operation.put', operation: op }]);
    await store.commit([...ids.map((id, i) => documentPut(id, texts[i] ?? '')), ended(op)], sourcesOf('op1', ids));
    const log = await logText(dir);
    texts.forEach((_, i) => expect(copies(log, `marker-${i} `)).toBe(1));
    expect(storedTexts(store, ids)).toEqual(texts);

    // Replayed from the log (a crash before any snapshot): each reference read from the operation record before it.
    const crashed = await openStore({ dataDir: await crashCopy(dir) });
    try {
      expect(crashed.loadReport.replayedMutations).toBeGreaterThan(0);
      expect(storedTexts(crashed, ids)).toEqual(texts);
      expect(chunkTexts(crashed, 'd3')).toEqual(chunkTexts(store, 'd3'));
      expect(crashed.bank('a')?.operations.get('op1')?.payload).toBeUndefined();
    } finally {
      await crashed.close();
    }

    // A snapshot, then fillers deleted so the next snapshot compacts, copying the large records' bytes.
    await store.snapshotNow();
    for (let i = 10; i < 40; i += 1) await store.commit([documentPut(`d${i}`, `filler ${i} ${'f'.repeat(200_000)}`)]);
    await store.snapshotNow();
    for (let i = 10; i < 40; i += 1) await store.commit([{ type: 'document.delete', bank_id: 'a', document_id: `d${i}` }]);
    await store.snapshotNow();
    await store.close();
    const again = await openStore({ dataDir: dir });
    try {
      expect(storedTexts(again, ids)).toEqual(texts);
      expect(chunkTexts(again, 'd1')).toEqual([texts[1]?.slice(0, Math.floor((texts[1]?.length ?? 0) / 2)), texts[1]?.slice(Math.floor((texts[1]?.length ?? 0) / 2) + 1)]);
    } finally {
      await again.close();
    }
  });

  it('an operation record held in a snapshot segment is read for a reference in the log after it', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    const op = operation('op2', texts, ids);
    await store.commit([bankPut, { type: 'operation.put', operation: op }]);
    await store.snapshotNow();
    await store.commit([...ids.map((id, i) => documentPut(id, texts[i] ?? '')), ended(op)], sourcesOf('op2', ids));
    expect(copies(await logText(dir), 'marker-3 ')).toBe(0);
    const crashed = await openStore({ dataDir: await crashCopy(dir) });
    try {
      expect(storedTexts(crashed, ids)).toEqual(texts);
    } finally {
      await crashed.close();
      await store.close();
    }
  });

  it('the text is written whole when the operation does not hold it, or a commit before it in the log may change the operation', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    // The operation's item differs from the document's text (an append joins it to what was there).
    await store.commit([bankPut, { type: 'operation.put', operation: operation('op3', ['marker-9 appended'], ['d9']) }]);
    await store.commit([documentPut('d9', 'marker-8 before\nmarker-9 appended')], sourcesOf('op3', ['d9']));
    // A commit still on its way to the log deletes the operation: replay would find no record before the reference.
    const op = operation('op4', [texts[0] ?? ''], ['d0']);
    await store.commit([{ type: 'operation.put', operation: { ...op, status: 'completed' } }]);
    const deleting = store.commit([{ type: 'operation.delete', bank_id: 'a', operation_id: 'op4' }]);
    const writing = store.commit([documentPut('d0', texts[0] ?? '')], sourcesOf('op4', ['d0']));
    await Promise.all([deleting, writing]);
    // An operation changed earlier in the same commit.
    await store.commit([{ type: 'operation.put', operation: operation('op5', [texts[2] ?? ''], ['d2']) }]);
    await store.commit([ended(operation('op5', [texts[2] ?? ''], ['d2'])), documentPut('d2', texts[2] ?? '')], sourcesOf('op5', ['d2']));
    const log = await logText(dir);
    expect(copies(log, 'marker-8 ')).toBe(1);
    expect(copies(log, 'marker-0 ')).toBe(2);
    expect(copies(log, 'marker-2 ')).toBe(2);
    const crashed = await openStore({ dataDir: await crashCopy(dir) });
    try {
      expect(storedTexts(crashed, ['d9', 'd0', 'd2'])).toEqual(['marker-8 before\nmarker-9 appended', texts[0], texts[2]]);
    } finally {
      await crashed.close();
      await store.close();
    }
  });

  it('through the server: an async retain of large documents writes each text once, and a restart reads them back', async () => {
    const server = await startTestServer();
    const dataDir = server.dataDir ?? '';
    try {
      const items = texts.map((content, i) => ({ content, document_id: `doc-${i}` }));
      const ack = await call(server, 'POST', '/v1/default/banks/big/memories', { items, async: true });
      expect(ack.status).toBe(200);
      await server.idle();
      const log = await logText(dataDir);
      texts.forEach((_, i) => expect(copies(log, `marker-${i} `)).toBe(1));
      await server.close();
      const restarted = await startTestServer({ dataDir });
      try {
        const back = await Promise.all(texts.map(async (_, i) => (await call(restarted, 'GET', `/v1/default/banks/big/documents/doc-${i}`)).body.original_text));
        expect(back).toEqual(texts);
      } finally {
        await restarted.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
