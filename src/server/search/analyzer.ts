/**
 * Text to index terms: lower-cased word tokens (letters, digits, underscore in any script),
 * stop words, single letters and the pieces of contractions dropped, each reduced to its Porter stem (the `stemmer` package), so "testing",
 * "tests" and "tested" meet as one term. Porter, the stemmer of the textbook baseline the
 * recall-quality bench reads this ranking against; British spellings are made American first
 * (spelling.ts: "authorisation" meets "authorization"). Identifiers are also split at case changes, dots,
 * slashes and underscores ("retainQueue", "retain_queue", "src/retain") so either half finds them,
 * and a hyphenated compound also counts as one word ("on-call" finds "oncall").
 */
import { stemmer as stem } from 'stemmer';
import { chatWord } from './chatWords.js';
import { codingWord } from './codingWords.js';
import { EMOJI, emojiName } from './emoji.js';
import { fullName } from './names.js';
import { verbOfPast } from './irregularForms.js';
import { americanSpelling } from './spelling.js';
import { STOP_WORDS } from './stopwords.js';
import { mayNameDay, mayNameSpan } from './temporal.js';

const WORD = /[\p{L}\p{N}_]+/gu;
const HYPHENATED = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu;
// What an apostrophe leaves behind: "Mel's" -> "s", "don't" -> "don" + "t", "I've" -> "ve".
const CONTRACTION_PARTS: ReadonlySet<string> = new Set(
  'aren couldn didn doesn don hadn hasn haven isn ll mustn re shan shouldn ve wasn weren won wouldn'.split(' '),
);

const skip = (lower: string): boolean => STOP_WORDS.has(lower) || CONTRACTION_PARTS.has(lower) || (lower.length === 1 && !/\d/.test(lower));
// A capital after a lower-case letter or digit starts a part ("retainQueue"), and so does the
// last capital of an acronym run before a word ("TRDeadlockDetected" -> "TR", "Deadlock",
// "Detected"), but not a plural's ("URLs", "PRs" stay whole).
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll}{2})/u;
const NON_ASCII = /[^\t\n\r\u0020-\u007e]/;

// Stemming is the costliest step of indexing; words repeat, so a bounded cache pays.
const cache = new Map<string, string>();
const CACHE_LIMIT = 200_000;

// Porter turns a final "y" into "i" only when a vowel comes before it, so "cried" and "tried"
// stem to "cri" and "tri" but "cry", "crying" and "try" keep their "y" and never meet them.
// As Porter2 does, a "y" after a consonant that is not the word's first letter is an "i" too
// ("by" stays).
const CONSONANT_Y = /(?<=^[a-z]+[b-df-hj-np-tv-xz])y$/;

export const stemWord = (word: string): string => {
  const hit = cache.get(word);
  if (hit !== undefined) return hit;
  // Digits and very long tokens (hashes, ids) are kept as they are.
  const out = word.length > 30 || /^\d/.test(word) ? word : stem(americanSpelling(verbOfPast(word))).replace(CONSONANT_Y, 'i');
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(word, out);
  return out;
};

// "log in", "signed up": the particle is a stop word, so the verb would stand alone and "log in"
// would search the logging vocabulary. The pair is read as one word ("login", "signup") where
// what follows says it is the verb (a preposition, a conjunction, the end of a clause), not a
// noun and a place ("the deploy log in CI", "the logs in Grafana").
const PHRASAL = /\b(log|sign)(?:s|ged|ging|ed|ing)?[ \t]+(in|on|out|up)(?=[ \t]+(?:to|with|via|using|through|as|from|for|again|and|or|before|after|first)\b|[ \t]*(?:[.,;:!?)]|$))/gim;

// A verb and particle that tech writing also spells as one word ("set up" / "setup", "back up" /
// "backup", "roll back" / "rollback"): joined wherever they meet, since the particle alone is a
// stop word or says nothing, and the notes say "setup", "backup", "rollback".
const COMPOUNDS: ReadonlySet<string> = new Set(['setup', 'backup', 'rollback', 'rollout', 'cleanup', 'lookup', 'startup', 'shutdown', 'teardown', 'warmup']);
const COMPOUND = /\b(set|back|roll|clean|look|start|shut|tear|warm)(?:s|ed|ing|ting|ped|ping)?[ \t]+(up|down|back|out)\b/gi;

// A word that can open what joinParticles joins: a verb form PHRASAL or COMPOUND starts with (each
// is a whole word there: \b before it, [ \t] after it), and the particles either ends with.
const PAIR_VERB = /^(?:(?:log|sign)(?:s|ged|ging|ed|ing)?|(?:set|back|roll|clean|look|start|shut|tear|warm)(?:s|ed|ing|ting|ped|ping)?)$/;
const PARTICLES: ReadonlySet<string> = new Set(['in', 'on', 'out', 'up', 'down', 'back']);

const joinParticles = (text: string): string =>
  text
    .replace(PHRASAL, '$1$2')
    .replace(COMPOUND, (whole: string, verb: string, particle: string) => (COMPOUNDS.has(`${verb}${particle}`.toLowerCase()) ? `${verb}${particle}` : whole));

const SENTENCE_END = /[.!?:\n]\s*$/;

/** What a word gives the index wherever it stands: everything but the sentence context of a capitalised stop word. */
interface WordReading {
  /** Written as a name (`asName`'s capital test). */
  readonly capital: boolean;
  /** Its chat and coding reading is a stop word ("Will"): a name only when not first in its sentence. */
  readonly stop: boolean;
  /** `fullName` of its reading when read as a name, and whether that is skipped. */
  readonly asName: string;
  readonly skipAsName: boolean;
  /** `fullName` of its reading otherwise, and whether that is skipped. */
  readonly plain: string;
  readonly skipPlain: boolean;
  /** The identifier parts it adds after itself, when it is not a plain lower-case word. */
  readonly parts: readonly string[];
  /** `stemWord` of `asName`, `plain` and each of `parts`: indexing wants the words and their terms. */
  readonly stemAsName: string;
  readonly stemPlain: string;
  readonly stemParts: readonly string[];
  /** Lower-cased, it can open a pair joinParticles joins ("log", "setting"): PAIR_VERB. */
  readonly pairVerb: boolean;
  /** Lower-cased, it holds a word a relative span needs (temporal.ts `mayNameSpan`). */
  readonly spanWord: boolean;
  /** One of the words it adds (as a name, plain, or a part) is one `relativeDayWords` reads (`mayNameDay`). */
  readonly dayWord: boolean;
}

// Words repeat heavily (a bank's vocabulary is small next to its text), so each distinct word is
// read once: its chat, coding and name readings and its parts. Bounded like the stem cache; a
// long token (a hash, an id) seldom comes back, so it is read every time instead of kept.
const readings = new Map<string, WordReading>();
const READINGS_LIMIT = 100_000;
const READING_MAX_CHARS = 30;
const NO_PARTS: readonly string[] = [];
const CAPITALISED = /^\p{Lu}\p{Ll}/u;

// An acronym used as a verb is the acronym ("DJed", "DJing", "CCed", "DMing"): split at its
// capitals it read as "D" and "Jed", and "Who DJed at the party?" missed "my mate djs".
const ACRONYM_VERB = /^(\p{Lu}{2,5})(?:ed|ing)$/u;

const readingOf = (token: string): WordReading => {
  const hit = readings.get(token);
  if (hit !== undefined) return hit;
  const raw = ACRONYM_VERB.exec(token)?.[1] ?? token;
  const chat = codingWord(chatWord(raw.toLowerCase()));
  const asName = fullName(chat, true);
  const plain = fullName(chat, false);
  const split = raw.split(CAMEL).flatMap((p) => p.split('_'));
  const parts: string[] = [];
  if (split.length > 1) for (const p of split) if (p.length > 1 && !skip(p.toLowerCase())) parts.push(codingWord(p.toLowerCase()));
  const reading: WordReading = {
    capital: CAPITALISED.test(raw),
    stop: STOP_WORDS.has(chat),
    asName,
    skipAsName: skip(asName),
    plain,
    skipPlain: skip(plain),
    parts: parts.length === 0 ? NO_PARTS : parts,
    stemAsName: stemWord(asName),
    stemPlain: stemWord(plain),
    stemParts: parts.length === 0 ? NO_PARTS : parts.map(stemWord),
    pairVerb: PAIR_VERB.test(token.toLowerCase()),
    spanWord: mayNameSpan(token.toLowerCase()),
    dayWord: mayNameDay(asName) || mayNameDay(plain) || parts.some(mayNameDay),
  };
  if (token.length > READING_MAX_CHARS) return reading;
  if (readings.size >= READINGS_LIMIT) readings.clear();
  readings.set(token, reading);
  return reading;
};

/**
 * Adds the tokens of one word found at `at` in `text` to `out`, and their stems to `stems` when
 * given (in step: `stems[i]` is `stemWord(out[i])`). Returns the word's reading.
 */
const addWord = (out: string[], stems: string[] | undefined, text: string, raw: string, at: number): WordReading => {
  const r = readingOf(raw);
  // asName: a capital, and for a stop word ("Will") not the first of its sentence.
  const named = r.capital && (!r.stop || (at > 0 && !SENTENCE_END.test(text.slice(Math.max(0, at - 4), at))));
  const lower = named ? r.asName : r.plain;
  if (!(named ? r.skipAsName : r.skipPlain)) {
    out.push(lower);
    stems?.push(named ? r.stemAsName : r.stemPlain);
  }
  // Parts of an identifier, after the whole: "retainQueue" also gives "retain" and "queue".
  if (raw === lower && !raw.includes('_')) return r;
  for (const p of r.parts) out.push(p);
  if (stems !== undefined) for (const p of r.stemParts) stems.push(p);
  return r;
};

/** A compound's token, and its stem when `stems` is given. */
const addCompound = (out: string[], stems: string[] | undefined, compound: string): void => {
  out.push(compound);
  stems?.push(stemWord(compound));
};

// Character classes of ASCII text for the loops below: 1 a letter or digit, 2 an underscore, 3 a
// hyphen, 4 one NON_ASCII matches (a control character but tab, newline and return; DEL).
const ALNUM = 1;
const UNDERSCORE = 2;
const HYPHEN = 3;
const NOT_PRINTABLE = 4;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c += 1) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] = /[A-Za-z0-9]/.test(ch) ? ALNUM : ch === '_' ? UNDERSCORE : ch === '-' ? HYPHEN : NON_ASCII.test(ch) ? NOT_PRINTABLE : 0;
}
/** A character's class; every one above ASCII is NOT_PRINTABLE too (the Unicode path reads it). */
const classAt = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  return c < 128 ? (ASCII_CLASS[c] ?? 0) : NOT_PRINTABLE;
};
const isWordChar = (text: string, i: number): boolean => {
  const k = ASCII_CLASS[text.charCodeAt(i)];
  return k === ALNUM || k === UNDERSCORE;
};
const isAlnum = (text: string, i: number): boolean => ASCII_CLASS[text.charCodeAt(i)] === ALNUM;

/** `WORD`'s matches in ASCII text, by a character loop: no match objects. */
const asciiWords = (out: string[], stems: string[] | undefined, text: string): void => {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isWordChar(text, i)) {
      i += 1;
      continue;
    }
    const start = i;
    while (i < n && isWordChar(text, i)) i += 1;
    addWord(out, stems, text, text.slice(start, i), start);
  }
};

/** `HYPHENATED`'s matches in ASCII text, hyphens removed and lower-cased, by a character loop. */
const asciiHyphenated = (out: string[], stems: string[] | undefined, text: string): void => {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isAlnum(text, i)) {
      i += 1;
      continue;
    }
    const start = i;
    while (i < n && isAlnum(text, i)) i += 1;
    let runs = 1;
    // A match ends at a hyphen not followed by a letter or digit; starting later in the same
    // first run would find the same end, so a run alone is passed over whole.
    while (i + 1 < n && text.charCodeAt(i) === 45 && isAlnum(text, i + 1)) {
      i += 1;
      while (i < n && isAlnum(text, i)) i += 1;
      runs += 1;
    }
    if (runs > 1) addCompound(out, stems, text.slice(start, i).replace(/-/g, '').toLowerCase());
  }
};

/** Whether a particle word follows `text[at..]` after spaces or tabs (PARTICLES). */
const particleAt = (text: string, at: number): boolean => {
  const n = text.length;
  let j = at;
  while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j += 1;
  if (j === at) return false;
  let end = j;
  while (end < n && isWordChar(text, end)) end += 1;
  return end - j >= 2 && end - j <= 4 && PARTICLES.has(text.slice(j, end).toLowerCase());
};

/** What `asciiScan` says of a text (bits): it holds a word a relative span needs, a word `relativeDayWords` reads. */
const SPAN = 1;
const DAY = 2;
/** `asciiScan` gave up: the text is read the general way (and may hold either). */
const GAVE_UP = 4;
const MAY_NAME_EITHER = SPAN | DAY;

/**
 * `asciiWords` then `asciiHyphenated` of `joinParticles(text)` in one pass over `text`, without
 * the joining's two regex passes and NON_ASCII's: gives up (GAVE_UP, `out` and `stems` as they
 * were) at a character NON_ASCII matches, and at a word that can open a joined pair followed by a
 * particle (a match of PHRASAL or COMPOUND is such a word: without one, joinParticles changes
 * nothing). A hyphen between a letter or digit and another, not inside a compound already
 * found, opens one: the run before it and every `-run` after, as asciiHyphenated reads them; the
 * compounds are added after the words, as there. SPAN unless no word holds "week", "wk", "day"
 * or "month" (any occurrence in ASCII text lies within one word); DAY unless no word or compound
 * added is one `relativeDayWords` reads.
 */
const asciiScan = (out: string[], stems: string[] | undefined, text: string): number => {
  const n = text.length;
  const outFrom = out.length;
  const stemsFrom = stems?.length ?? 0;
  let compounds: string[] | undefined;
  let compoundEnd = -1;
  let hints = 0;
  let i = 0;
  while (i < n) {
    const k = classAt(text, i);
    if (k === ALNUM || k === UNDERSCORE) {
      const start = i;
      i += 1;
      while (i < n) {
        const next = classAt(text, i);
        if (next !== ALNUM && next !== UNDERSCORE) break;
        i += 1;
      }
      const r = addWord(out, stems, text, text.slice(start, i), start);
      if (r.spanWord) hints |= SPAN;
      if (r.dayWord) hints |= DAY;
      if (r.pairVerb && particleAt(text, i)) {
        out.length = outFrom;
        if (stems !== undefined) stems.length = stemsFrom;
        return GAVE_UP;
      }
      continue;
    }
    if (k === NOT_PRINTABLE) {
      out.length = outFrom;
      if (stems !== undefined) stems.length = stemsFrom;
      return GAVE_UP;
    }
    if (k === HYPHEN && i >= compoundEnd && i > 0 && i + 1 < n && isAlnum(text, i - 1) && isAlnum(text, i + 1)) {
      let start = i - 1;
      while (start > 0 && isAlnum(text, start - 1)) start -= 1;
      let end = i + 1;
      while (end < n && isAlnum(text, end)) end += 1;
      while (end + 1 < n && text.charCodeAt(end) === 45 && isAlnum(text, end + 1)) {
        end += 1;
        while (end < n && isAlnum(text, end)) end += 1;
      }
      (compounds ??= []).push(text.slice(start, end).replace(/-/g, '').toLowerCase());
      compoundEnd = end;
    }
    i += 1;
  }
  if (compounds !== undefined) {
    for (const compound of compounds) {
      addCompound(out, stems, compound);
      if (mayNameDay(compound)) hints |= DAY;
    }
  }
  return hints;
};

/**
 * The word tokens of `input` into `out`, and their stems into `stems` when given. Returns SPAN and
 * DAY as `asciiScan` says them (both when the text is read the general way).
 */
const scan = (input: string, out: string[], stems: string[] | undefined): number => {
  const read = asciiScan(out, stems, input);
  if (read !== GAVE_UP) return read;
  const joined = joinParticles(input);
  if (!NON_ASCII.test(joined)) {
    asciiWords(out, stems, joined);
    if (joined.includes('-')) asciiHyphenated(out, stems, joined);
    return MAY_NAME_EITHER;
  }
  // An emoji counts as the words of its name ("🎂" -> "birthday cake").
  const text = joined.replace(EMOJI, (e) => ` ${emojiName(e)} `);
  // Chat spelling to the word it stands for ("tmrw" -> "tomorrow", "sooo" -> "so").
  // and a nickname to the name it stands for ("kt", "Kate" -> "katherine").
  for (const match of text.matchAll(WORD)) addWord(out, stems, text, match[0], match.index);
  // A hyphenated compound also counts as one word ("on-call" gives "oncall", "e-mail" "email"),
  // after its parts so the parts keep their order for phrase matching.
  if (text.includes('-')) for (const match of text.matchAll(HYPHENATED)) addCompound(out, stems, match[0].replace(/-/g, '').toLowerCase());
  return MAY_NAME_EITHER;
};

/** Lower-cased word tokens without stop words, not stemmed (query expansion needs the words). */
export const words = (input: string): string[] => {
  const out: string[] = [];
  scan(input, out, undefined);
  return out;
};

/**
 * `words(input)` and, in step, each one's `stemWord`: indexing needs both, and the stems come
 * with each word's memoised reading instead of a second lookup per word. `spans` false: the text
 * holds no word a relative span needs, so temporal.ts `relativeSpanWords` of it is empty; `days`
 * false: no word `relativeDayWords` reads, so that is empty too.
 */
export const wordsAndTerms = (input: string): { readonly words: string[]; readonly terms: string[]; readonly spans: boolean; readonly days: boolean } => {
  const out: string[] = [];
  const stems: string[] = [];
  const hints = scan(input, out, stems);
  return { words: out, terms: stems, spans: (hints & SPAN) !== 0, days: (hints & DAY) !== 0 };
};

/** Index terms of a text, in order, duplicates kept (term frequency counts them). */
export const analyze = (text: string): string[] => wordsAndTerms(text).terms;
