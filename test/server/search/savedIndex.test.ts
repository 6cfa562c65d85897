import * as fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../../src/server/search/analyzer.js';
import { FieldIndex, type IndexedDocument } from '../../../src/server/search/fieldIndex.js';
import { topK } from '../../../src/server/search/topK.js';
import { decodeIndexFile, encodeIndexFile, INDEX_FILE, readIndexFile } from '../../../src/server/search/indexFile.js';
import { createSearchIndexes, indexFingerprint, type SearchIndexes } from '../../../src/server/search/indexes.js';
import { StoredIds } from '../../../src/server/search/storedIds.js';
import { openStore, type ServerStore } from '../../../src/server/store/store.js';
import { call, startTestServer } from '../../helpers/embeddedServer.js';

const dirs: string[] = [];
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'am-saved-index-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Saved indexes written by the code of format 1 (thread names in the header), 2 (4-byte count columns), 3 (ids in the header) and 4 (no kinds). */
const FIXTURES = fileURLToPath(new URL('../../../fixtures/search-index', import.meta.url));

/** The index every `format-N.bin` fixture was written from, by the code of its format. */
const fixtureIndex = (): FieldIndex => {
  const ix = new FieldIndex();
  ix.add({ id: 'a', text: 'alpha beta', thread: 't1', order: 1 });
  ix.add({ id: 'b', text: 'gamma deploys', thread: 't1', order: 2 });
  ix.add({ id: 'c', text: 'queue delta', thread: 't2', order: 3, context: 'alpha' });
  ix.add({ id: 'd', text: 'epsilon', order: 4 });
  return ix;
};

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'deploys', 'deploying', 'queue'];

/** Everything the ranker reads from an index, by document id (numbers may differ). */
const observe = (ix: FieldIndex): unknown => {
  const live: string[] = [];
  for (let n = 0; n < ix.capacity; n += 1) {
    const id = ix.idOf(n);
    if (id !== undefined) live.push(id);
  }
  const byId = (n: number): string => ix.idOf(n) ?? '?';
  const perDoc = live.sort().map((id) => {
    const n = ix.numberOf(id) as number;
    const thread = ix.threadOf(n);
    return {
      id,
      derived: ix.isDerived(n),
      kind: ix.kindOf(n),
      speaker: ix.speakerOf(n) ?? null,
      own: [...(ix.ownTermsOf(n) ?? ['<none>'])].sort(),
      addressed: [...(ix.addressedTermsOf(n) ?? ['<none>'])].sort(),
      hasOwn: ix.hasOwnWords(n),
      asks: ix.asks(n),
      speaksToListener: ix.speaksToListener(n),
      order: ix.orderOf(n),
      thread: thread ?? null,
      members: thread === undefined ? [] : ix.threadMembersOf(thread).filter((m) => ix.idOf(m) !== undefined).map(byId),
      neighbours: ix.neighbours(n, 2).map(byId),
    };
  });
  const queries = WORDS.map((w) => {
    const pass = ix.score(analyze(w).map((term) => ({ term, weight: 1 })));
    const hits = topK(pass.touched.view(), pass.scores, () => true, 1000).map((n) => [byId(n), pass.scores[n]]);
    ix.release(pass);
    return { w, idf: ix.idf(analyze(w)[0] ?? w), df: ix.documentFrequency(analyze(w)[0] ?? w), hits: hits.sort((a, b) => String(a[0]).localeCompare(String(b[0]))) };
  });
  return { size: ix.size, participants: [...ix.participants].sort(), perDoc, queries };
};

const docArb = fc.record({
  // "how" first: a line that asks something (fieldIndex.ts `asks`).
  text: fc.array(fc.constantFrom(...WORDS, 'I', 'you', 'my', 'your', 'how'), { minLength: 1, maxLength: 6 }).map((w) => w.join(' ')),
  context: fc.option(fc.constantFrom(...WORDS), { nil: undefined }),
  entities: fc.option(fc.array(fc.constantFrom('Priya', 'Queue'), { maxLength: 2 }), { nil: undefined }),
  thread: fc.option(fc.constantFrom('t1', 't2', 't3'), { nil: undefined }),
  // Always given, as for every fact (its time): a missing order defaults to the document's number, which renumbering changes.
  order: fc.integer({ min: 0, max: 50 }),
  derived: fc.boolean(),
  kind: fc.option(fc.integer({ min: 1, max: 255 }), { nil: undefined }),
  speaker: fc.option(fc.constantFrom('Priya', 'Sam'), { nil: undefined }),
  own: fc.option(fc.constantFrom('alpha beta', 'gamma', ''), { nil: undefined }),
  addressed: fc.option(fc.constantFrom('delta', ''), { nil: undefined }),
});
const opArb = fc.oneof(fc.record({ add: fc.nat(30), doc: docArb }), fc.record({ remove: fc.nat(30) }));
type Op = { add: number; doc: Omit<IndexedDocument, 'id'> } | { remove: number };
const run = (ix: FieldIndex, ops: readonly Op[]): void => {
  for (const o of ops) {
    if ('add' in o) ix.add({ id: `d${o.add}`, ...o.doc });
    else ix.remove(`d${o.remove}`);
  }
};

describe('saved index (sealed arrays in a file)', () => {
  it('an index read back from its file answers exactly as the one written, and goes on the same after more edits (property)', () => {
    const fingerprint = indexFingerprint();
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), fc.array(opArb, { maxLength: 60 }), (before, after) => {
        const ix = new FieldIndex();
        run(ix, before);
        const file = encodeIndexFile(7, fingerprint, new Map([['b', ix.seal()]]));
        const read = decodeIndexFile(file, fingerprint);
        if (!read.ok) throw new Error(read.reason);
        expect(read.saved.nextSeq).toBe(7);
        const loaded = FieldIndex.fromSealed(read.saved.banks.get('b') as never);
        // Edited before anything reads its thread names: they are read from the file on the first
        // join. Its own copy of the bytes: a loaded index edits the arrays it was given in place.
        const again = decodeIndexFile(Buffer.from(file), fingerprint);
        if (!again.ok) throw new Error(again.reason);
        const editedFirst = FieldIndex.fromSealed(again.saved.banks.get('b') as never);
        expect(observe(loaded)).toEqual(observe(ix));
        run(ix, after);
        run(loaded, after);
        run(editedFirst, after);
        expect(observe(loaded)).toEqual(observe(ix));
        expect(observe(editedFirst)).toEqual(observe(ix));
      }),
      { numRuns: 60 },
    );
  });

  it('still reads a file of format 1 (thread names in the header), written by the code before format 2', () => {
    const read = decodeIndexFile(readFileSync(join(FIXTURES, 'format-1.bin')), 'f1');
    if (!read.ok) throw new Error(read.reason);
    const loaded = FieldIndex.fromSealed(read.saved.banks.get('b') as never);
    const built = fixtureIndex();
    expect(observe(loaded)).toEqual(observe(built));
    const more = { id: 'e', text: 'beta queue', thread: 't2', order: 5 };
    loaded.add(more);
    built.add(more);
    expect(observe(loaded)).toEqual(observe(built));
  });

  it.each([
    ['format-2.bin', 2, Int32Array],
    ['format-3.bin', 3, Uint8Array],
  ] as const)('still reads %s (ids in the header; format 2: every count column in 4 bytes), written by the code before format 4', (fixture, format, tfs) => {
    const file = readFileSync(join(FIXTURES, fixture));
    expect(JSON.parse(file.subarray(16, 16 + file.readUInt32LE(8)).toString('utf8'))).toMatchObject({ format });
    const read = decodeIndexFile(file, 'f1');
    if (!read.ok) throw new Error(read.reason);
    const sealed = read.saved.banks.get('b');
    expect(sealed?.postTfs).toBeInstanceOf(tfs);
    expect(sealed?.ids).toEqual(['a', 'b', 'c', 'd']);
    const loaded = FieldIndex.fromSealed(sealed as never);
    const built = fixtureIndex();
    expect(observe(loaded)).toEqual(observe(built));
    const more = { id: 'e', text: 'beta queue', thread: 'my t2', order: 5, context: 'alpha alpha' };
    loaded.add(more);
    built.add(more);
    expect(observe(loaded)).toEqual(observe(built));
    // Sealed again (compaction), it goes over to the narrow columns and still answers the same.
    const resealed = FieldIndex.fromSealed(loaded.seal());
    expect(observe(resealed)).toEqual(observe(built));
  });

  it('still reads format-4.bin (no kinds), written by the code before format 5: every kind unknown until learnt, then saved', () => {
    const file = readFileSync(join(FIXTURES, 'format-4.bin'));
    expect(JSON.parse(file.subarray(16, 16 + file.readUInt32LE(8)).toString('utf8'))).toMatchObject({ format: 4 });
    const read = decodeIndexFile(file, 'f1');
    if (!read.ok) throw new Error(read.reason);
    const sealed = read.saved.banks.get('b');
    expect([...(sealed?.kinds ?? [])]).toEqual([0, 0, 0, 0]);
    const loaded = FieldIndex.fromSealed(sealed as never);
    const built = fixtureIndex();
    expect(observe(loaded)).toEqual(observe(built));
    // Learnt once: a known kind is not overwritten, and a dead document's is not set.
    loaded.learnKind(1, 2);
    loaded.learnKind(1, 3);
    loaded.remove('c');
    loaded.learnKind(2, 1);
    const more = { id: 'e', text: 'beta queue', thread: 't2', order: 5, kind: 129 };
    loaded.add(more);
    expect([0, 1, 2, 3, 4].map((n) => loaded.kindOf(n))).toEqual([0, 2, 0, 0, 129]);
    const again = decodeIndexFile(encodeIndexFile(4, 'f1', new Map([['b', loaded.seal()]])), 'f1');
    if (!again.ok) throw new Error(again.reason);
    expect([...(again.saved.banks.get('b')?.kinds ?? [])]).toEqual([0, 2, 0, 129]);
  });

  it('keeps term frequencies and term ids in 1, 2 or 4 bytes, as their largest value needs, and reads each width back', () => {
    // Letters only: the analyzer keeps such a word as it is.
    const word = (i: number): string => {
      let w = '';
      for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) w = String.fromCharCode(97 + ((n - 1) % 26)) + w;
      return `zq${w}`;
    };
    const cases = [
      { name: 'small', repeats: 3, distinct: 10, width: { tfs: 1, ids: 1 } },
      { name: 'tf over 255, terms over 255', repeats: 300, distinct: 400, width: { tfs: 2, ids: 2 } },
      { name: 'tf over 65535, terms over 65535', repeats: 70_000, distinct: 100_000, width: { tfs: 4, ids: 4 } },
    ];
    for (const c of cases) {
      const ix = new FieldIndex();
      ix.add({ id: 'many', text: Array.from({ length: c.distinct }, (_, i) => word(i)).join(' '), order: 1 });
      ix.add({ id: 'repeats', text: `${'alpha '.repeat(c.repeats)}beta`, context: 'alpha gamma', entities: ['Queue'], order: 2 });
      ix.add({ id: 'once', text: 'alpha gamma', order: 3 });
      const sealed = ix.seal();
      expect([c.name, sealed.postTfs.BYTES_PER_ELEMENT, sealed.docTermIds.BYTES_PER_ELEMENT]).toEqual([c.name, c.width.tfs, c.width.ids]);
      const read = decodeIndexFile(encodeIndexFile(1, 'f1', new Map([['b', sealed]])), 'f1');
      if (!read.ok) throw new Error(read.reason);
      const loaded = FieldIndex.fromSealed(read.saved.banks.get('b') as never);
      expect(loaded.seal().postTfs.BYTES_PER_ELEMENT).toBe(c.width.tfs);
      for (const q of ['alpha', 'gamma', 'queue', word(c.distinct - 1)]) {
        const scores = (index: FieldIndex): [string | undefined, number | undefined][] => {
          const pass = index.score(analyze(q).map((term) => ({ term, weight: 1 })));
          const out = topK(pass.touched.view(), pass.scores, () => true, 10).map((n): [string | undefined, number | undefined] => [index.idOf(n), pass.scores[n]]);
          index.release(pass);
          return out;
        };
        expect(scores(loaded)).toEqual(scores(ix));
        expect(scores(loaded).length).toBeGreaterThan(0);
      }
      loaded.remove('once');
      ix.remove('once');
      expect(observe(loaded)).toEqual(observe(ix));
    }
  });

  it('keeps the ids out of the header, in a region read apart (format 4 on), and refuses one that does not hold its count of ids', () => {
    const ix = new FieldIndex();
    for (const id of ['a', 'é-ü', 'line\nbreak', '', 'zz']) ix.add({ id, text: `alpha ${id}` });
    const file = encodeIndexFile(1, 'f1', new Map([['b', ix.seal()]]));
    const headerLength = file.readUInt32LE(8);
    const header = file.subarray(16, 16 + headerLength).toString('utf8');
    const parsed = JSON.parse(header) as { format: number; tail: number; banks: { idsAt: [number, number, number] }[] };
    expect(parsed.format).toBe(5);
    expect(parsed.banks[0]).not.toHaveProperty('ids');
    expect(parsed.banks[0]?.idsAt).toEqual([parsed.tail, file.length - parsed.tail, 5]);
    const read = decodeIndexFile(file, 'f1');
    if (!read.ok) throw new Error(read.reason);
    const loaded = FieldIndex.fromSealed(read.saved.banks.get('b') as never);
    expect(observe(loaded)).toEqual(observe(ix));
    // One id more than the region holds, the header's length kept (a digit for a digit).
    const wrong = Buffer.from(file);
    wrong.write(header.replace(/("idsAt":\[\d+,\d+,)5\]/, '$16]'), 16, 'utf8');
    wrong.writeUInt32LE(crc32(wrong.subarray(16)), 12);
    expect(decodeIndexFile(wrong, 'f1')).toEqual({ ok: false, reason: 'ids cut short' });
  });

  it('takes the store\'s own strings for the ids, in order or not, and reads the others as they are', () => {
    // An id of 300 bytes: its length has a second byte (the region is read as latin1 characters).
    const ids = ['f1', 'f2', 'ü-3', 'f4', `long-${'é'.repeat(150)}`];
    // As a buffer (a region read whole) and as latin1 characters (read a chunk at a time).
    for (const as of [(b: Buffer): Buffer | string => b, (b: Buffer): Buffer | string => b.toString('latin1')]) {
      const stored = StoredIds.of(as(StoredIds.encode(ids)), ids.length);
      if (typeof stored === 'string') throw new Error(stored);
      expect(stored.resolve(undefined)).toEqual(ids);
      expect(stored.resolve(() => ids)).toEqual(ids);
      expect(stored.resolve(() => ['f1', 'f2', 'f4', 'ü-3'])).toEqual(ids);
      expect(stored.resolve(() => ['f1', 'f2'])).toEqual(ids);
      expect(stored.resolve(() => ['f1', 'f', 'ü-3x', 'f4', 'f5'])).toEqual(ids);
      expect(StoredIds.of(as(StoredIds.encode(ids)), 3)).toBe('ids do not fill their region');
      expect(StoredIds.of(as(StoredIds.encode(ids).subarray(0, 10)), 4)).toBe('ids cut short');
    }
  });

  it('refuses a file whose header gives a count column a width it cannot have', () => {
    const ix = new FieldIndex();
    ix.add({ id: 'a', text: 'alpha beta' });
    const file = encodeIndexFile(1, 'f1', new Map([['b', ix.seal()]]));
    const headerLength = file.readUInt32LE(8);
    const header = file.subarray(16, 16 + headerLength).toString('utf8');
    // Same length, so every offset still holds: the width of postTfs, 1, becomes 3.
    const edited = header.replace(/("postTfs":\[\d+,\d+,)1\]/, '$13]');
    expect(edited).not.toBe(header);
    const bad = Buffer.from(file);
    bad.write(edited, 16, 'utf8');
    bad.writeUInt32LE(crc32(bad.subarray(16)), 12);
    expect(decodeIndexFile(bad, 'f1')).toEqual({ ok: false, reason: 'array postTfs has 3-byte values' });
  });

  it('refuses a damaged file, another analyzer and a foreign file, naming why', () => {
    const ix = new FieldIndex();
    ix.add({ id: 'a', text: 'alpha beta' });
    const file = encodeIndexFile(1, 'f1', new Map([['b', ix.seal()]]));
    const flipped = Buffer.from(file);
    flipped[flipped.length - 3] = (flipped[flipped.length - 3] as number) ^ 0xff;
    expect(decodeIndexFile(flipped, 'f1')).toEqual({ ok: false, reason: 'checksum mismatch' });
    expect(decodeIndexFile(file.subarray(0, file.length - 8), 'f1')).toEqual({ ok: false, reason: 'checksum mismatch' });
    expect(decodeIndexFile(file, 'f2')).toEqual({ ok: false, reason: 'written by another analyzer' });
    expect(decodeIndexFile(Buffer.from('{"crc":"00000000","m":{}}\n'), 'f1')).toEqual({ ok: false, reason: 'not a saved index' });
  });
});

const B = '/v1/default/banks';

/** Ids and scores of a search, for comparing two index sets over one store. */
const results = (search: SearchIndexes, bankId: string, query: string): [string, number][] =>
  search.search(bankId, query, () => true, 50).hits.map((h) => [h.fact.id, h.score]);

const QUERIES = ['deploy queue', 'alpha', 'gamma rotation', 'Priya', 'nothing here'];

/** The store's indexes as loaded from its saved file, and as built from scratch, answer alike. */
const expectLoadedEqualsFresh = async (dir: string, banks: readonly string[]): Promise<void> => {
  const store: ServerStore = await openStore({ dataDir: dir });
  try {
    const read = await readIndexFile(dir, indexFingerprint());
    if (!read.ok) throw new Error(read.reason);
    const loaded = createSearchIndexes(store);
    // Nothing built from the store: every bank came from the file (and the log after it).
    expect(loaded.buildAll(read.saved)).toBe(0);
    const fresh = createSearchIndexes(store);
    expect(fresh.buildAll(undefined)).toBe(banks.length);
    for (const bank of banks) for (const q of QUERIES) expect(results(loaded, bank, q)).toEqual(results(fresh, bank, q));
    loaded.close();
    fresh.close();
  } finally {
    await store.close();
  }
};

describe('saved index beside the data', () => {
  it('is written on close and loaded at start without a build', async () => {
    const dir = await tempDir();
    const server = await startTestServer({ dataDir: dir });
    for (let i = 0; i < 30; i += 1) {
      const speaker = i % 2 === 0 ? 'Priya' : 'Sam';
      await call(server, 'POST', `${B}/one/memories`, { items: [{ content: `${speaker}: I deploy the queue ${WORDS[i % WORDS.length]}`, context: `session ${i % 3}`, document_id: `d${i}` }] });
    }
    await call(server, 'POST', `${B}/two/memories`, { items: [{ content: 'gamma rotation on call', document_id: 'x' }] });
    await call(server, 'DELETE', `${B}/one/documents/d4`);
    await server.close();
    expect(await readdir(dir)).toContain(INDEX_FILE);
    await expectLoadedEqualsFresh(dir, ['one', 'two']);
  });

  it('is brought forward by the log entries written after it (a server killed after more writes)', async () => {
    const dir = await tempDir();
    const first = await startTestServer({ dataDir: dir });
    for (let i = 0; i < 10; i += 1) await call(first, 'POST', `${B}/one/memories`, { items: [{ content: `alpha deploy ${i}`, document_id: `d${i}` }] });
    await first.close();
    const second = await startTestServer({ dataDir: dir });
    for (let i = 10; i < 20; i += 1) await call(second, 'POST', `${B}/one/memories`, { items: [{ content: `gamma queue ${i}`, document_id: `d${i}` }] });
    await call(second, 'DELETE', `${B}/one/documents/d2`);
    await call(second, 'POST', `${B}/three/memories`, { items: [{ content: 'Priya deploys alpha', document_id: 'p' }] });
    // The files as a kill -9 leaves them: every acknowledged commit is in the log; the saved index is older.
    const copy = await tempDir();
    for (const name of await readdir(dir)) if (name !== 'server.lock') await cp(join(dir, name), join(copy, name));
    await second.close();
    await expectLoadedEqualsFresh(copy, ['one', 'three']);
  });

  it('a damaged saved index is ignored: the server builds from the data and answers the same', async () => {
    const dir = await tempDir();
    const first = await startTestServer({ dataDir: dir });
    for (let i = 0; i < 10; i += 1) await call(first, 'POST', `${B}/one/memories`, { items: [{ content: `alpha deploy ${i}`, document_id: `d${i}` }] });
    const before = await call(first, 'POST', `${B}/one/memories/recall`, { query: 'alpha deploy 3' });
    await first.close();
    const bytes = await readFile(join(dir, INDEX_FILE));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    await writeFile(join(dir, INDEX_FILE), bytes);
    const second = await startTestServer({ dataDir: dir });
    const after = await call(second, 'POST', `${B}/one/memories/recall`, { query: 'alpha deploy 3' });
    await second.close();
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    // Rewritten whole on close: the next start loads it again.
    expect((await readIndexFile(dir, indexFingerprint())).ok).toBe(true);
  });
});

describe('saved index: postings left on disk', () => {
  /** The byte offset of bank `bankId`'s postings documents column, from the file's header. */
  const postDocsAt = (file: Buffer, bankId: string): number => {
    const header: unknown = JSON.parse(file.subarray(16, 16 + file.readUInt32LE(8)).toString('utf8'));
    const banks: unknown = typeof header === 'object' && header !== null && 'banks' in header ? header.banks : [];
    const bank: unknown = Array.isArray(banks) ? banks.find((b: unknown) => typeof b === 'object' && b !== null && 'bankId' in b && b.bankId === bankId) : undefined;
    const at: unknown = typeof bank === 'object' && bank !== null && 'arrays' in bank && typeof bank.arrays === 'object' && bank.arrays !== null && 'postDocs' in bank.arrays ? bank.arrays.postDocs : undefined;
    if (!Array.isArray(at) || typeof at[0] !== 'number') throw new Error('no postDocs in the header');
    return at[0];
  };

  it('a file read from disk keeps no postings in memory and answers as the index written, before and after more edits, even once a new file replaces it (property)', async () => {
    const fingerprint = indexFingerprint();
    const dir = await tempDir();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 200 }), fc.array(opArb, { maxLength: 200 }), fc.array(opArb, { maxLength: 60 }), async (one, two, after) => {
        const a = new FieldIndex();
        run(a, one);
        const b = new FieldIndex();
        run(b, two);
        await writeFile(join(dir, INDEX_FILE), encodeIndexFile(3, fingerprint, new Map([['a', a.seal()], ['b', b.seal()]])));
        const read = await readIndexFile(dir, fingerprint);
        if (!read.ok) throw new Error(read.reason);
        const loaded = new Map<string, FieldIndex>();
        for (const [bankId, sealed] of read.saved.banks) {
          expect(sealed.postDocs.length).toBe(0);
          expect(sealed.postTfs.length).toBe(0);
          // (An index without postings has nothing to leave on disk.)
          expect(sealed.postingsOnDisk?.length ?? 0).toBe((bankId === 'a' ? a : b).seal().postDocs.length);
          loaded.set(bankId, FieldIndex.fromSealed(sealed));
        }
        // A snapshot renames a new file over the one the postings come from: the open one stays readable.
        await writeFile(join(dir, `${INDEX_FILE}.new`), encodeIndexFile(4, fingerprint, new Map()));
        await rename(join(dir, `${INDEX_FILE}.new`), join(dir, INDEX_FILE));
        const la = loaded.get('a') as FieldIndex;
        const lb = loaded.get('b') as FieldIndex;
        expect(observe(la)).toEqual(observe(a));
        expect(observe(lb)).toEqual(observe(b));
        run(a, after);
        run(la, after);
        expect(observe(la)).toEqual(observe(a));
        await read.saved.postingsFile?.close();
      }),
      { numRuns: 40 },
    );
  });

  it('checks the postings it leaves on disk: a flipped byte in them is a checksum mismatch, and the server builds from the data', async () => {
    const dir = await tempDir();
    const first = await startTestServer({ dataDir: dir });
    for (let i = 0; i < 10; i += 1) await call(first, 'POST', `${B}/one/memories`, { items: [{ content: `alpha deploy ${i}`, document_id: `d${i}` }] });
    const before = await call(first, 'POST', `${B}/one/memories/recall`, { query: 'alpha deploy 3' });
    await first.close();
    const bytes = await readFile(join(dir, INDEX_FILE));
    const at = postDocsAt(bytes, 'one');
    bytes[at] = (bytes[at] as number) ^ 0x01;
    await writeFile(join(dir, INDEX_FILE), bytes);
    expect(await readIndexFile(dir, indexFingerprint())).toEqual({ ok: false, reason: 'checksum mismatch' });
    const second = await startTestServer({ dataDir: dir });
    const after = await call(second, 'POST', `${B}/one/memories/recall`, { query: 'alpha deploy 3' });
    await second.close();
    expect(after.body).toEqual(before.body);
  });

  it('a closed file says so when its postings are read', async () => {
    const dir = await tempDir();
    const ix = new FieldIndex();
    ix.add({ id: 'a', text: 'alpha beta' });
    await writeFile(join(dir, INDEX_FILE), encodeIndexFile(1, 'f1', new Map([['b', ix.seal()]])));
    const read = await readIndexFile(dir, 'f1');
    if (!read.ok) throw new Error(read.reason);
    const loaded = FieldIndex.fromSealed(read.saved.banks.get('b') as never);
    expect(loaded.score([{ term: analyze('alpha')[0] ?? '', weight: 1 }]).touched.view().length).toBe(1);
    await read.saved.postingsFile?.close();
    // 'beta' was never read (a read term may be answered from the reader's cache).
    expect(() => loaded.score([{ term: analyze('beta')[0] ?? '', weight: 1 }])).toThrow(/saved index file was closed/);
  });
});

describe('saved index: postings left on disk, in files of every format', () => {
  it.each(['format-1.bin', 'format-2.bin', 'format-3.bin', 'format-4.bin'])('%s read from disk answers as the same file read into memory, its postings not in memory', async (name) => {
    const bytes = readFileSync(join(FIXTURES, name));
    const dir = await tempDir();
    await writeFile(join(dir, INDEX_FILE), bytes);
    const inMemory = decodeIndexFile(bytes, 'f1');
    const fromDisk = await readIndexFile(dir, 'f1');
    if (!inMemory.ok || !fromDisk.ok) throw new Error('fixture unreadable');
    for (const [bankId, sealed] of fromDisk.saved.banks) {
      const whole = inMemory.saved.banks.get(bankId);
      if (whole === undefined) throw new Error(`no bank ${bankId}`);
      expect(sealed.postDocs.length).toBe(0);
      expect(sealed.postingsOnDisk?.length).toBe(whole.postDocs.length);
      expect(observe(FieldIndex.fromSealed(sealed))).toEqual(observe(FieldIndex.fromSealed(whole)));
    }
    await fromDisk.saved.postingsFile?.close();
  });
});
