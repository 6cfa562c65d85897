import { cp, mkdtemp, readdir, readFile, readlink, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../../helpers/embeddedServer.js';
import { encodeLineBytes } from '../../../src/server/store/logFormat.js';
import type { Mutation } from '../../../src/server/store/model.js';
import type { ServerState } from '../../../src/server/store/state.js';
import { openStore } from '../../../src/server/store/store.js';
import { loadSegments } from '../../../src/server/store/segments.js';

/** A data dir written by the code of segment format 1 (fixtures/segments-v1: the mutations are in the test reading it). */
const FORMAT_1 = fileURLToPath(new URL('../../../fixtures/segments-v1', import.meta.url));

const dirs: string[] = [];
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'am-segments-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const at = '2026-11-27T08:00:00.000+00:00';
const bankPut = (bankId: string): Mutation => ({
  type: 'bank.put',
  bank: { bank_id: bankId, name: bankId, disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: '', created_at: at, updated_at: at },
});
const documentPut = (bankId: string, i: number, tags: string[] = ['t']): Mutation => {
  const text = `document ${i} says the build uses rollup\nand tests run with vitest ${i}`;
  const [first = '', second = ''] = text.split('\n');
  return {
    type: 'document.put',
    bank_id: bankId,
    document: { id: `d${i}`, original_text: text, content_hash: null, created_at: at, updated_at: at, tags, retain_params: { event_date: at } },
    chunks: [
      { id: `${bankId}_d${i}_0`, document_id: `d${i}`, chunk_index: 0, text: first },
      { id: `${bankId}_d${i}_1`, document_id: `d${i}`, chunk_index: 1, text: second },
    ],
    facts: [
      { id: `f${i}a`, text: first, fact_type: 'world', document_id: `d${i}`, chunk_id: `${bankId}_d${i}_0`, tags, created_at: at, mentioned_at: at },
      { id: `f${i}b`, text: `paraphrase ${i}`, fact_type: 'experience', document_id: `d${i}`, chunk_id: `${bankId}_d${i}_1`, tags: [...tags, 'x'], created_at: at, entities: [{ text: 'Rollup' }] },
    ],
  };
};
const observation = (bankId: string, id: string, state?: 'invalidated'): Mutation => ({
  type: 'facts.put',
  bank_id: bankId,
  facts: [{ id, text: `observation ${id}`, fact_type: 'observation', document_id: null, chunk_id: null, tags: ['obs'], created_at: at, source_fact_ids: ['f1a'], ...(state === undefined ? {} : { state }) }],
});

const byKey = <T>(entries: Iterable<[string, T]>): [string, T][] => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Everything a reader can see of the state. Records by id: a reload lists a replaced
 * document's chunks and facts in document order, as the JSONL snapshot did, not where the
 * replacement put them.
 */
const picture = (state: ServerState): unknown =>
  [...state.banks].map(([id, bank]) => ({
    id,
    bank: bank.bank,
    documents: [...bank.documents.entries()],
    chunks: byKey(bank.chunks.entries()),
    facts: byKey(bank.facts.entries()),
    heads: [...bank.facts.keys()].sort().map((f) => {
      const head = bank.facts.head(f);
      return head === undefined ? undefined : { fact_type: head.fact_type, tags: head.tags, state: head.state };
    }),
    factsByDocument: byKey(bank.factsByDocument),
    chunksByDocument: byKey(bank.chunksByDocument),
    operations: [...bank.operations],
    records: [...bank.records].map(([kind, byId]) => [kind, [...byId]]),
  }));

const segmentFiles = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => n.startsWith('segment-')).sort();

describe('segments', () => {
  it('a snapshot written as segments reads back as the same state, its records read only when asked for', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a'), bankPut('b')]);
    for (let i = 0; i < 20; i += 1) await store.commit([documentPut(i % 3 === 0 ? 'b' : 'a', i, i % 2 === 0 ? ['t'] : ['u', 'v'])]);
    await store.commit([observation('a', 'o1'), observation('a', 'o2', 'invalidated')]);
    await store.commit([{ type: 'record.put', bank_id: 'a', kind: 'mental_model', id: 'm1', value: { name: 'x', n: [1, 2] } }]);
    await store.commit([{ type: 'document.delete', bank_id: 'a', document_id: 'd4' }, { type: 'facts.delete', bank_id: 'a', ids: ['f5b'] }]);
    const before = picture(store.state);
    await store.close();
    expect(await segmentFiles(dir)).toHaveLength(1);

    const again = await openStore({ dataDir: dir });
    try {
      const a = again.bank('a');
      // Nothing was decoded at start: the tables hold record numbers.
      expect(typeof a?.facts.held('f1a')).toBe('number');
      expect(typeof a?.documents.held('d1')).toBe('number');
      expect(typeof a?.chunks.held('a_d1_0')).toBe('number');
      expect(picture(again.state)).toEqual(before);
      expect(a?.facts.head('o2')).toEqual({ fact_type: 'observation', tags: ['obs'], state: 'invalidated' });
      expect(a?.facts.head('f1b')).toEqual({ fact_type: 'experience', tags: ['u', 'v', 'x'] });
    } finally {
      await again.close();
    }
  });

  it('each snapshot appends a segment of what changed; a mostly dead set of files is compacted into one', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a')]);
    for (let i = 0; i < 30; i += 1) await store.commit([documentPut('a', i)]);
    await store.snapshotNow();
    const first = await segmentFiles(dir);
    for (let i = 30; i < 33; i += 1) await store.commit([documentPut('a', i)]);
    // A replaced document: its new facts are objects until the next segment.
    await store.commit([documentPut('a', 2, ['changed'])]);
    await store.snapshotNow();
    const second = await segmentFiles(dir);
    expect(second).toHaveLength(2);
    expect(second).toContain(first[0]);
    // The second segment holds only the four documents written since the first.
    const sizes = await Promise.all(second.map(async (n) => (await readFile(join(dir, n))).length));
    expect(sizes[1]).toBeLessThan((sizes[0] ?? 0) / 3);
    expect(typeof store.bank('a')?.facts.held('f2a')).toBe('number');
    expect(store.bank('a')?.facts.get('f2a')?.tags).toEqual(['changed']);
    const appended = picture(store.state);

    for (let i = 0; i < 28; i += 1) if (i !== 2) await store.commit([{ type: 'document.delete', bank_id: 'a', document_id: `d${i}` }]);
    await store.snapshotNow();
    const compacted = await segmentFiles(dir);
    expect(compacted).toHaveLength(1);
    expect(first).not.toContain(compacted[0]);
    const after = picture(store.state);
    await store.close();

    const again = await openStore({ dataDir: dir });
    try {
      expect(picture(again.state)).toEqual(after);
      expect(again.bank('a')?.documents.size).toBe(6);
      expect(appended).not.toEqual(after);
    } finally {
      await again.close();
    }
  });

  it('snapshots grow apart once the state is large (each one walks every live record), up to three times the interval', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir, snapshotEvery: 100 });
    const cuts: number[] = [];
    store.onSnapshot((nextSeq) => {
      cuts.push(nextSeq);
      return undefined;
    });
    await store.commit([bankPut('a')]);
    // 90,000 live records (a document, two chunks and two facts each) in one commit: one snapshot.
    await store.commit(Array.from({ length: 18_000 }, (_, i) => documentPut('a', i)));
    await store.commit([bankPut('a')]);
    expect(cuts).toHaveLength(1);
    expect(store.state.storedRecords()?.count).toBe(90_000);
    // 90,000 records are three times the 30,000 the interval grows from: 300 mutations, not 100.
    const small = (): Mutation[] => Array.from({ length: 10 }, () => bankPut('a'));
    for (let i = 0; i < 29; i += 1) await store.commit(small());
    expect(cuts).toHaveLength(1);
    await store.commit(small());
    await store.commit([bankPut('a')]);
    expect(cuts).toHaveLength(2);
    // 180,000 records would be six times 30,000: the interval stops at three times 100.
    await store.commit(Array.from({ length: 18_000 }, (_, i) => documentPut('a', 18_000 + i)));
    await store.commit([bankPut('a')]);
    expect(cuts).toHaveLength(3);
    expect(store.state.storedRecords()?.count).toBe(180_000);
    for (let i = 0; i < 30; i += 1) await store.commit(small());
    await store.commit([bankPut('a')]);
    expect(cuts).toHaveLength(4);
    await store.close();
  });

  it('records larger than the read buffer read back whole, first read or not, and a compaction copies them whole', async () => {
    const dir = await tempDir();
    const large = (i: number, text: string): Mutation => {
      const put = documentPut('a', i);
      return put.type === 'document.put' ? { ...put, document: { ...put.document, original_text: text } } : put;
    };
    // Over the store's 64 KB read buffer, each larger than the last so each read grows it; one in multi-byte UTF-8.
    const texts = ['x'.repeat(100_000), `${'é€😀'.repeat(40_000)} end`, 'y'.repeat(700_000), 'z'.repeat(3_000_000)];
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a')]);
    await store.commit(texts.map((text, i) => large(i, text)));
    // Fillers holding most of the bytes, so deleting them makes the next snapshot compact.
    for (let i = 4; i < 40; i += 1) await store.commit([large(i, `filler ${i} ${'f'.repeat(200_000)}`)]);
    await store.snapshotNow();
    expect(typeof store.bank('a')?.documents.held('d0')).toBe('number');
    const stored = texts.map((_, i) => store.bank('a')?.documents.get(`d${i}`)?.original_text);
    expect(stored).toEqual(texts);
    // The fillers deleted: the next snapshot compacts, copying the stored large records' bytes.
    for (let i = 4; i < 40; i += 1) await store.commit([{ type: 'document.delete', bank_id: 'a', document_id: `d${i}` }]);
    const before = await segmentFiles(dir);
    await store.snapshotNow();
    const after = await segmentFiles(dir);
    expect(after).toHaveLength(1);
    expect(before).not.toContain(after[0]);
    await store.close();
    const again = await openStore({ dataDir: dir });
    try {
      expect(texts.map((_, i) => again.bank('a')?.documents.get(`d${i}`)?.original_text)).toEqual(texts);
    } finally {
      await again.close();
    }
  });

  it('reads running while a compacting snapshot ends never see new positions in the old files (a 500 under load before)', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a')]);
    for (let i = 0; i < 30; i += 1) await store.commit([documentPut('a', i)]);
    await store.snapshotNow();
    await store.commit([documentPut('a', 30)]);
    await store.snapshotNow();
    // Mostly dead: the next snapshot compacts, and deletes the two old files after writing the new one.
    for (let i = 0; i < 25; i += 1) await store.commit([{ type: 'document.delete', bank_id: 'a', document_id: `d${i}` }]);
    expect(await segmentFiles(dir)).toHaveLength(2);
    const live = [25, 26, 27, 28, 29, 30].map((i) => `d${i}`);
    let done = false;
    let reads = 0;
    const failures: string[] = [];
    // A reader on every turn of the event loop, as requests are, for as long as the snapshot runs.
    const reader = (async () => {
      while (!done) {
        for (const id of live) {
          try {
            if (store.bank('a')?.documents.get(id)?.id !== id) failures.push(`${id}: missing`);
            reads += 1;
          } catch (error) {
            failures.push(`${id}: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await store.snapshotNow();
    done = true;
    await reader;
    expect(await segmentFiles(dir)).toHaveLength(1);
    expect(reads).toBeGreaterThan(live.length);
    expect(failures).toEqual([]);
    await store.close();
  });

  it('a damaged segment stops start-up with the file named, whether the records or the footer are hit', async () => {
    for (const where of ['records', 'footer'] as const) {
      const dir = await tempDir();
      const store = await openStore({ dataDir: dir });
      await store.commit([bankPut('a')]);
      for (let i = 0; i < 5; i += 1) await store.commit([documentPut('a', i)]);
      await store.close();
      const [name = ''] = await segmentFiles(dir);
      const bytes = await readFile(join(dir, name));
      const at = where === 'records' ? 10 : bytes.length - 60;
      bytes[at] = (bytes[at] ?? 0) ^ 0x20;
      await writeFile(join(dir, name), bytes);
      await expect(openStore({ dataDir: dir })).rejects.toThrow(new RegExp(`${name} is damaged \\((records|footer) checksum mismatch\\)`));
    }
  });

  it('the records check started early on a worker (every segment file of the dir) keeps only the verdicts on the files the footer names, and closes the fds it opened', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a')]);
    for (let i = 0; i < 5; i += 1) await store.commit([documentPut('a', i)]);
    await store.close();
    const [name = ''] = await segmentFiles(dir);
    // The fds open on this dir's files (a worker's own pipes come and go apart).
    const openFds = async (): Promise<number> => {
      let n = 0;
      for (const entry of await readdir('/proc/self/fd')) {
        try {
          if ((await readlink(join('/proc/self/fd', entry))).startsWith(dir)) n += 1;
        } catch {
          // Closed while listed (the readdir's own fd).
        }
      }
      return n;
    };
    const before = await openFds();
    expect(before).toBe(0);
    // A worker from 0 bytes: the early check runs however small the files are.
    const intact = await loadSegments(dir, 0);
    await expect(intact?.recordsChecked).resolves.toBeUndefined();
    intact?.stored.close();
    // A file the footer does not name (an older segment left behind), damaged: not the start's concern.
    const bytes = await readFile(join(dir, name));
    const stale = Buffer.from(bytes);
    stale[10] = (stale[10] ?? 0) ^ 0x20;
    await writeFile(join(dir, 'segment-000000000000-0000.seg'), stale);
    await writeFile(join(dir, 'segment-000000000000-0001.seg'), 'no trailer at all');
    const withStale = await loadSegments(dir, 0);
    await expect(withStale?.recordsChecked).resolves.toBeUndefined();
    withStale?.stored.close();
    expect(await openFds()).toBe(before);
    // The named file damaged: start-up stops naming it, as the inline check does.
    await writeFile(join(dir, name), stale);
    const hit = await loadSegments(dir, 0);
    await expect(hit?.recordsChecked).rejects.toThrow(new RegExp(`${name} is damaged \\(records checksum mismatch\\)`));
    hit?.stored.close();
    expect(await openFds()).toBe(before);
    await expect(openStore({ dataDir: dir })).rejects.toThrow(new RegExp(`${name} is damaged \\(records checksum mismatch\\)`));
  });

  it('the document and chunk lists, not kept after start-up, are read again from the segment; if it is gone, every use fails naming it and none finds an empty table', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a')]);
    for (let i = 0; i < 6; i += 1) await store.commit([documentPut('a', i)]);
    const before = picture(store.state);
    await store.close();
    const [name = ''] = await segmentFiles(dir);

    const again = await openStore({ dataDir: dir });
    try {
      const a = again.bank('a');
      await rename(join(dir, name), join(dir, `${name}.aside`));
      const gone = new RegExp(`${name} is damaged \\(its document lists are no longer the ones checked at start-up\\)`);
      // Its size is the footer's count, read at start-up: no list is needed for it.
      expect(a?.documents.size).toBe(6);
      expect(() => a?.documents.has('d1')).toThrow(gone);
      expect(() => a?.documents.has('d1')).toThrow(gone);
      expect(() => a?.chunksByDocument.get('d1')).toThrow(gone);
      expect(() => [...(a?.chunks.keys() ?? [])]).toThrow(gone);
      // The facts are listed at start: a recall's reads go on.
      expect(a?.facts.get('f1a')?.text).toBe('document 1 says the build uses rollup');
      await rename(join(dir, `${name}.aside`), join(dir, name));
      expect(picture(again.state)).toEqual(before);
    } finally {
      await again.close();
    }
  });

  it('the lists region is checked at start-up with the footer, and again when the lists are read: damage stops start-up, or fails every use, naming the file', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a'), bankPut('b')]);
    for (let i = 0; i < 6; i += 1) await store.commit([documentPut(i % 2 === 0 ? 'a' : 'b', i)]);
    const before = picture(store.state);
    await store.close();
    const [name = ''] = await segmentFiles(dir);
    const bytes = await readFile(join(dir, name));
    // Format 2's trailer: ... u32 footer length at 12, u32 lists length at 24, then 'AMSEG002'.
    const trailer = bytes.subarray(bytes.length - 36);
    expect(trailer.subarray(28).toString('latin1')).toBe('AMSEG002');
    const listsEnd = bytes.length - 36 - trailer.readUInt32LE(12);
    const listsAt = listsEnd - trailer.readUInt32LE(24);
    const lists = bytes.subarray(listsAt, listsEnd).toString('utf8');
    expect(lists).toContain('"documents":["d0","d2","d4"]');
    // Not parsed at start-up, but checked: a flipped byte in it stops start-up.
    const flipped = Buffer.from(bytes);
    const inside = listsAt + lists.indexOf('"d2"') + 2;
    flipped[inside] = (flipped[inside] ?? 0) ^ 0x01;
    await writeFile(join(dir, name), flipped);
    await expect(openStore({ dataDir: dir })).rejects.toThrow(new RegExp(`${name} is damaged \\(footer checksum mismatch\\)`));
    // Changed after start-up (nothing else may write a segment): the lists' own CRC refuses them.
    await writeFile(join(dir, name), bytes);
    const again = await openStore({ dataDir: dir });
    try {
      await writeFile(join(dir, name), flipped);
      const changed = new RegExp(`${name} is damaged \\(its document lists are no longer the ones checked at start-up\\)`);
      expect(() => again.bank('a')?.documents.has('d0')).toThrow(changed);
      expect(() => again.bank('a')?.chunksByDocument.get('d0')).toThrow(changed);
      expect(again.bank('a')?.facts.get('f0a')?.text).toBe('document 0 says the build uses rollup');
      await writeFile(join(dir, name), bytes);
      expect(picture(again.state)).toEqual(before);
    } finally {
      await again.close();
    }
  });

  it('reads segments of format 1 (lists in the footer), written by the code before format 2, and writes format 2 beside them', async () => {
    const dir = await tempDir();
    await cp(FORMAT_1, dir, { recursive: true });
    // The mutations that wrote the fixture (two segments: the second points into the first).
    const memory = await openStore();
    await memory.commit([bankPut('a'), bankPut('b')]);
    for (let i = 0; i < 12; i += 1) await memory.commit([documentPut(i % 3 === 0 ? 'b' : 'a', i, i % 2 === 0 ? ['t'] : ['u', 'v'])]);
    await memory.commit([observation('a', 'o1'), observation('a', 'o2', 'invalidated')]);
    await memory.commit([{ type: 'record.put', bank_id: 'a', kind: 'mental_model', id: 'm1', value: { name: 'x', n: [1, 2] } }]);
    await memory.commit([{ type: 'document.delete', bank_id: 'a', document_id: 'd4' }, { type: 'facts.delete', bank_id: 'a', ids: ['f5b'] }]);
    await memory.commit([documentPut('a', 2, ['changed'])]);
    const expected = picture(memory.state);
    await memory.close();
    const old = await segmentFiles(dir);
    expect(old).toHaveLength(2);
    for (const name of old) expect((await readFile(join(dir, name))).subarray(-8).toString('latin1')).toBe('AMSEG001');

    const store = await openStore({ dataDir: dir });
    expect(picture(store.state)).toEqual(expected);
    await store.commit([documentPut('b', 20)]);
    await store.close();
    const files = await segmentFiles(dir);
    const newest = files.at(-1) ?? '';
    expect(old).not.toContain(newest);
    expect((await readFile(join(dir, newest))).subarray(-8).toString('latin1')).toBe('AMSEG002');
    const again = await openStore({ dataDir: dir });
    try {
      const bankB = again.bank('b');
      expect(bankB?.documents.get('d20')?.id).toBe('d20');
      expect(bankB?.chunksByDocument.get('d0')).toEqual(['b_d0_0', 'b_d0_1']);
      expect(again.bank('a')?.factsByDocument.get('d2')).toEqual(['f2a', 'f2b']);
      expect(again.bank('a')?.documents.has('d4')).toBe(false);
    } finally {
      await again.close();
    }
  });

  it('a segment cut short (a copy interrupted) is refused, never read as a shorter state', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a'), documentPut('a', 1)]);
    await store.close();
    const [name = ''] = await segmentFiles(dir);
    const bytes = await readFile(join(dir, name));
    await writeFile(join(dir, name), bytes.subarray(0, bytes.length - 7));
    await expect(openStore({ dataDir: dir })).rejects.toThrow(/is damaged \(no segment trailer\)/);
  });

  it('a data dir from before segments (snapshot.jsonl) is read, and its first snapshot moves it into a segment', async () => {
    const dir = await tempDir();
    const mutations = [bankPut('a'), documentPut('a', 1), documentPut('a', 2), observation('a', 'o1')];
    const lines = [encodeLineBytes({ snapshot: 1, nextSeq: 0 }), ...mutations.map((m) => encodeLineBytes(m)), encodeLineBytes({ end: true, count: mutations.length })];
    await writeFile(join(dir, 'snapshot.jsonl'), Buffer.concat(lines));
    const store = await openStore({ dataDir: dir });
    const before = picture(store.state);
    expect(store.bank('a')?.facts.get('o1')?.text).toBe('observation o1');
    await store.close();
    expect(await readdir(dir)).not.toContain('snapshot.jsonl');
    expect(await segmentFiles(dir)).toHaveLength(1);
    const again = await openStore({ dataDir: dir });
    try {
      expect(picture(again.state)).toEqual(before);
    } finally {
      await again.close();
    }
  });

  it('a temp file left by a crash mid-snapshot is ignored: the last complete segment and the log are the state', async () => {
    const dir = await tempDir();
    const store = await openStore({ dataDir: dir });
    await store.commit([bankPut('a'), documentPut('a', 1)]);
    await store.snapshotNow();
    await store.commit([documentPut('a', 2)]);
    const expected = picture(store.state);
    // What a kill during the next snapshot leaves, taken as a copy of the running store's files
    // (the second document only in the log) plus a partial temp file beside the real segment.
    const copy = await tempDir();
    for (const n of await readdir(dir)) if (n !== 'server.lock') await writeFile(join(copy, n), await readFile(join(dir, n)));
    const [name = ''] = await segmentFiles(copy);
    await writeFile(join(copy, name.replace('-0000.seg', '-0001.seg.tmp')), (await readFile(join(copy, name))).subarray(0, 40));
    await store.close();
    const again = await openStore({ dataDir: copy });
    try {
      expect(picture(again.state)).toEqual(expected);
    } finally {
      await again.close();
    }
  });

  it('recall from a server started on segments answers exactly as before the restart, filters and all', async () => {
    const dir = await tempDir();
    const B = '/v1/default/banks/r';
    const words = ['rollup', 'vitest', 'bundle', 'deploy', 'cache', 'schema', 'release', 'lint'];
    const first = await startTestServer({ dataDir: dir });
    const items = Array.from({ length: 60 }, (_, i) => ({
      content: `${words[i % 8]} ${words[(i * 3) % 8]} note ${i}: the ${words[(i * 5) % 8]} step ran on day ${i}`,
      document_id: `doc-${i}`,
      tags: i % 3 === 0 ? ['repo:web'] : ['repo:core', i % 2 === 0 ? 'kind:bug' : 'kind:note'],
    }));
    expect((await call(first, 'POST', `${B}/memories`, { items })).status).toBe(200);
    // World and experience only: the background consolidation may add observations at any time.
    const types = ['world', 'experience'];
    const queries = [
      { query: 'rollup bundle', types },
      { query: 'vitest cache step', types, tags: ['repo:core'], tags_match: 'all' },
      { query: 'release schema day', types, budget: 'high', max_tokens: 300, include: { chunks: { max_tokens: 200 } } },
      { query: 'lint deploy', types, tags: ['kind:bug', 'repo:web'], tags_match: 'any' },
    ];
    // The background consolidation writes observations after a write settles, and they count in
    // the index's statistics: each server is asked once they have stopped changing.
    const settled = async (server: { readonly url: string }): Promise<void> => {
      let last = '';
      for (let same = 0, tries = 0; same < 3 && tries < 100; tries += 1) {
        const now = JSON.stringify((await call(server, 'GET', `${B}/memories/list?type=observation&limit=1000`)).body);
        same = now === last && now.includes('observation') ? same + 1 : 0;
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const answers = async (server: { readonly url: string }): Promise<unknown[]> => {
      await settled(server);
      const out: unknown[] = [];
      for (const q of queries) out.push((await call(server, 'POST', `${B}/memories/recall`, q)).body);
      return out;
    };
    const before = await answers(first);
    await first.close();
    expect(await segmentFiles(dir)).toHaveLength(1);
    const second = await startTestServer({ dataDir: dir });
    try {
      expect(await answers(second)).toEqual(before);
      expect(JSON.stringify(before)).toContain('rollup');
    } finally {
      await second.close();
    }
  });
});
