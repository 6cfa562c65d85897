import { afterEach, describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { appendFile, readFile, truncate, writeFile } from 'node:fs/promises';
import { openJsonlJournal, nodeJournalFs, type JournalFs } from '../../../src/adapters/queue/jsonlJournal.js';
import { decodeLine, encodeRecord, encodeRecordBytes } from '../../../src/adapters/queue/recordCodec.js';
import type { JournalEntry } from '../../../src/effects/ports/journal.js';
import type { JsonValue } from '../../../src/codecs/codecs.js';
import { tempQueueDir } from '../../reliability/support/queueFixtures.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const tempPath = async (): Promise<string> => {
  const tmp = await tempQueueDir();
  cleanups.push(tmp.dispose);
  return tmp.queuePath;
};

const entry = (n: number, extra: JsonValue = null): JournalEntry => ({
  type: 'retain.enqueued',
  at: '2026-11-22T10:00:00.000Z',
  payload: { type: 'retain.enqueued', n, extra },
});

const open = async (path: string, fs?: JournalFs) => {
  const journal = await openJsonlJournal({ path, ...(fs === undefined ? {} : { fs }) });
  cleanups.push(() => journal.close());
  return journal;
};

const payloadNs = (records: readonly { payload: JsonValue }[]): number[] => records.map((r) => (r.payload as { n: number }).n);

describe('jsonlJournal', () => {
  it('round-trips records in order with sequence numbers and checksums', async () => {
    const path = await tempPath();
    const journal = await open(path);
    await journal.append([entry(1), entry(2)]);
    await journal.append([entry(3)]);
    const loaded = await journal.load();
    expect(loaded.damage).toEqual([]);
    expect(payloadNs(loaded.records)).toEqual([1, 2, 3]);
    expect(loaded.records.map((r) => r.seq)).toEqual([0, 1, 2]);
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ v: 1, seq: 0, type: 'retain.enqueued' });
  });

  it('appends synchronously: one write and one fsync per call, in call order, done when it returns', async () => {
    const path = await tempPath();
    let writes = 0;
    const counting: JournalFs = { appendDurable: (file, data) => ((writes += 1), nodeJournalFs.appendDurable(file, data)) };
    const journal = await open(path, counting);
    for (let i = 0; i < 20; i += 1) {
      journal.appendSync([entry(i)]);
      expect(writes).toBe(i + 1);
      // On disk before the call returned: another reader sees it at once.
      expect((await readFile(path, 'utf8')).trimEnd().split('\n')).toHaveLength(i + 1);
    }
    await Promise.all(Array.from({ length: 30 }, (_, i) => journal.append([entry(20 + i)])));
    expect(payloadNs((await journal.load()).records)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('quarantines a torn last line, cuts it off, and the next append reads back clean', async () => {
    const path = await tempPath();
    const journal = await open(path);
    await journal.append([entry(1), entry(2)]);
    const { line } = encodeRecord(entry(3), 2);
    await appendFile(path, line.slice(0, 25));
    const loaded = await journal.load();
    expect(payloadNs(loaded.records)).toEqual([1, 2]);
    expect(loaded.damage).toHaveLength(1);
    expect(loaded.damage[0]?.reason).toContain('torn last line');
    const quarantine = (await readFile(path.replace(/\.jsonl$/, '.quarantine.jsonl'), 'utf8')).trim().split('\n');
    expect(Buffer.from(JSON.parse(quarantine[0] ?? '{}').bytes, 'base64').toString()).toBe(line.slice(0, 25));
    await journal.append([entry(4)]);
    const again = await journal.load();
    expect(again.damage).toEqual([]);
    expect(payloadNs(again.records)).toEqual([1, 2, 4]);
  });

  it('quarantines a corrupt line in the middle (bad JSON, bad checksum) and keeps every other record', async () => {
    const path = await tempPath();
    const journal = await open(path);
    await journal.append([entry(1), entry(2), entry(3), entry(4)]);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[1] = '{"v":1,"seq":1,"type":"retain.enq'; // not JSON
    lines[2] = (lines[2] ?? '').replace('"n":3', '"n":33'); // parses, wrong checksum
    await writeFile(path, lines.join('\n'));
    const loaded = await journal.load();
    expect(payloadNs(loaded.records)).toEqual([1, 4]);
    expect(loaded.damage.map((d) => d.reason).join(' ')).toMatch(/not JSON.*checksum mismatch/s);
    const quarantined = await readFile(path.replace(/\.jsonl$/, '.quarantine.jsonl'), 'utf8');
    expect(quarantined.trim().split('\n')).toHaveLength(2);
    // The damaged lines are safe aside; the journal was rewritten without them.
    expect((await journal.load()).damage).toEqual([]);
    await journal.append([entry(5)]);
    expect(payloadNs((await journal.load()).records)).toEqual([1, 4, 5]);
  });

  it('recovers exactly the complete records from every byte prefix, and the next append parses', async () => {
    const path = await tempPath();
    const writer = await open(path);
    await writer.append(Array.from({ length: 3 }, (_, i) => entry(i)));
    const full = await readFile(path);
    const ends: number[] = [];
    for (let i = 0; i < full.length; i += 1) if (full[i] === 0x0a) ends.push(i + 1);
    for (let cut = 0; cut <= full.length; cut += 1) {
      await writeFile(path, full.subarray(0, cut));
      const journal = await openJsonlJournal({ path });
      const loaded = await journal.load();
      const complete = ends.filter((e) => e <= cut).length;
      expect(loaded.records).toHaveLength(complete);
      expect(loaded.damage).toHaveLength(ends.includes(cut) || cut === 0 ? 0 : 1);
      await journal.append([entry(100)]);
      const after = await journal.load();
      expect(after.damage).toEqual([]);
      expect(payloadNs(after.records).at(-1)).toBe(100);
      await journal.close();
    }
  });

  it('hands over records other processes appended, never its own, and notices a compaction', async () => {
    const path = await tempPath();
    const a = await open(path);
    const b = await open(path);
    await a.load();
    await b.load();
    await a.append([entry(1)]);
    await b.append([entry(2)]);
    await a.append([entry(3)]);
    expect(payloadNs((await a.takeForeign()).records)).toEqual([2]);
    expect(payloadNs((await b.takeForeign()).records)).toEqual([1, 3]);
    expect((await a.takeForeign()).records).toEqual([]);
    // b is behind (a appended 4): b must not compact over a record it has not folded in.
    await a.append([entry(4)]);
    expect(await b.compactIfCurrent(() => [entry(99)])).toBe(false);
    expect(payloadNs((await b.takeForeign()).records)).toEqual([4]);
    expect(await b.compactIfCurrent(() => [entry(10)])).toBe(true);
    expect((await a.takeForeign()).replaced).toBe(true);
    expect(payloadNs((await a.load()).records)).toEqual([10]);
  });

  it('fails an append on a read-only filesystem with what to do, and works once it is writable', async () => {
    const path = await tempPath();
    let readOnly = true;
    const fs: JournalFs = {
      appendDurable: (file, data) => {
        if (readOnly) throw Object.assign(new Error('EROFS: read-only file system, open'), { code: 'EROFS' });
        return nodeJournalFs.appendDurable(file, data);
      },
    };
    const journal = await open(path, fs);
    await expect(journal.append([entry(1)])).rejects.toThrow(/nothing was queued; the queue directory is not writable/);
    readOnly = false;
    await journal.append([entry(2)]);
    expect(payloadNs((await journal.load()).records)).toEqual([2]);
  });

  it('takes back the part of a write that landed before a full disk stopped it', async () => {
    const path = await tempPath();
    let full = false;
    const fs: JournalFs = {
      appendDurable: (file, data) => {
        if (!full) return nodeJournalFs.appendDurable(file, data);
        nodeJournalFs.appendDurable(file, data.subarray(0, data.length - 7));
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    };
    const journal = await open(path, fs);
    await journal.append([entry(1)]);
    full = true;
    await expect(journal.append([entry(2), entry(3)])).rejects.toThrow(/disk is full/);
    full = false;
    const loaded = await journal.load();
    expect(loaded.damage).toEqual([]);
    expect(payloadNs(loaded.records)).toEqual([1]);
  });

  it('property: any payloads round-trip; any single-line corruption loses only that line', async () => {
    const path = await tempPath();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 8 }), fc.nat(), async (payloads, pick) => {
        await truncate(path, 0).catch(() => undefined);
        const journal = await openJsonlJournal({ path });
        await journal.load();
        const entries = payloads.map((p) => ({ type: 'x', at: '2026-11-22T10:00:00.000Z', payload: JSON.parse(JSON.stringify(p)) as JsonValue }));
        await journal.append(entries);
        const loaded = await journal.load();
        expect(loaded.records.map((r) => r.payload)).toEqual(entries.map((e) => e.payload));
        const lines = (await readFile(path, 'utf8')).split('\n');
        const victim = pick % entries.length;
        lines[victim] = `${lines[victim] ?? ''}garbage`;
        await writeFile(path, lines.join('\n'));
        const damaged = await journal.load();
        expect(damaged.damage).toHaveLength(1);
        expect(damaged.records.map((r) => r.payload)).toEqual(entries.filter((_, i) => i !== victim).map((e) => e.payload));
        await journal.close();
      }),
      { numRuns: 40 },
    );
  });

  it('property: a record appended is the bytes of its line, unchanged format (any payload, non-ASCII and lone surrogates included)', () => {
    // The journal encodes each line once and hashes those bytes; the line format and checksum
    // must stay what `encodeRecord` writes and every older queue holds.
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: 'binary' }), fc.nat(), (payload, text, seq) => {
        const e = { type: 'retain.enqueued', at: '2026-11-22T10:00:00.000Z', payload: { payload: JSON.parse(JSON.stringify(payload)) as JsonValue, text } };
        const { record, line } = encodeRecord(e, seq);
        const bytes = encodeRecordBytes(e, seq);
        expect(bytes.bytes.equals(Buffer.from(line, 'utf8'))).toBe(true);
        expect(bytes.record).toEqual(record);
        const decoded = decodeLine(bytes.bytes.toString('utf8').slice(0, -1));
        expect(E.isRight(decoded)).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });

  it('property: decoding any line never throws and names what is wrong', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const result = decodeLine(text);
        if (E.isLeft(result)) expect(result.left.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });
});
