/**
 * The analyzer's and the entity extractor's fast paths (per-word readings memoised, ASCII text
 * scanned by character loops) against the plain code they replaced, kept in ./reference: every
 * token, its order, every entity and its type must be the same, on the recall-quality fixtures
 * (LoCoMo-like chat prose, coding notes), on written edge cases (slang, names at a sentence
 * start, identifiers, paths, stack traces, unicode, emoji) and on seeded random text drawn from
 * the characters the scans treat specially.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze, stemWord, words, wordsAndTerms } from '../../../src/server/search/analyzer.js';
import { extractEntities } from '../../../src/server/retain/entities.js';
import { referenceWords } from './reference/words.js';
import { referenceEntities } from './reference/entities.js';
import { relativeDayWords, relativeSpanWords } from '../../../src/server/search/temporal.js';

const fixtureDir = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'recall-quality');

/** Every string in a JSON value, in document order. */
const stringsOf = (value: unknown, out: string[] = []): string[] => {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stringsOf(v, out);
  return out;
};

const fixtureTexts = (): string[] => readdirSync(fixtureDir).filter((f) => f.endsWith('.json')).flatMap((f) => stringsOf(JSON.parse(readFileSync(join(fixtureDir, f), 'utf8'))));

const WRITTEN: readonly string[] = [
  'Will you come? I asked Will. Will said no. will it rain. Bill paid the bill. Tom: ok kt, see u tmrw!!',
  'sooo coool, yesss, thx ppl, bday pics of Katie and katies dog, Mike\'s car, I\'ve been there, don\'t.',
  'Kate logged in to the dashboard, then signed up via SSO. We set up the backup and rolled back the rollout; log in again.',
  'retainQueue retain_queue src/server/search/analyzer.ts TRDeadlockDetected URLs PRs __init__ _private x_y a_b_c',
  'who DJed? DJing all night, CCed the PMs, SEEDED, OKed it, my mate djs, Ned, IDing, HTTPSing, ABCDEFed',
  'at Object.<anonymous> (/home/dev/app/node_modules/pkg/index.js:42:17)\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)',
  'TypeError: Cannot read properties of undefined (reading \'id\') at fetchUser (src/api/users.ts:88:3)',
  'npm install -D vitest@2 @types/node then run `npx tsc -p .`; see https://github.com/acme/api/pull/12 and @alice, @bob_smith.',
  'on-call e-mail well-known--thing -lead trail- a-b-c x--y 3-4-5 foo_bar-baz re-deploy-now',
  'Café naïve résumé Zoë İstanbul straße ÆON ǅemal Ωmega ΣΊΣΥΦΟΣ 東京 に行った 😀 🎂 👨‍🍳 no 🥜 pls 👍🏽 ❤️ 🇫🇷',
  'Colour behaviour authorisation analyse centres kept went bought taught 1st 2nd 3000 0xdeadbeef 12abc',
  'Hello.Will go? Yes! Will. Him: Will\nWill there be cake? (Will) "Will" Will',
  'Melanie and Caroline went to the LGBTQ support group on 7 May 2023; Caro said Mel was there. Jon met John.',
  './a/b.c ../x.ts a/b/ foo.ts:12 e.g. x.TS README.md @scope/pkg/file.js :src/a.ts -a/b.md /etc/hosts.conf a.b.c/d.e.f v1.2.3 http:/x.io/y.md',
  'Run npm i lodash and pnpm add -D @types/node then yarn add react vue; bun install zod from npm. Docker, Git, NPM, kubectl+helm c++ go-lang',
  'aVeryLongIdentifierNameThatGoesOnAndOnForever_withUnderscores_too sha 3f786850e387550fdab836ed7e6dc881de23001b VeryLongCamelCaseWordWithTRAcronymInsideIt x',
  'Ask Jane Doe and Mary-Ann Smith; The Quick Brown Fox Jumps Over Lazy Dogs Today; Dr Who; Ivan the Terrible; Node Vitest Postgres.',
  '\u0000\u000b\u007f tab\there and\r\nlines \u00a0nbsp\u2028sep 𝐀a 𝐀𝐁𝐂 Ⅻ ½ ٣ ߊ',
  // Joined pairs after plain ASCII words (the one-pass scan gives up there), and pairs it must not take for one.
  'a plain start, then we set up the box, looked up, LOGGED\tIN again, signs out. log inside, setup-ish, set upward, back-up, look  out!',
  'the deploy log in CI, the logs in Grafana, sign on to it, roll back the rollout, startups start up, warm-up, tear down',
  // A long ASCII run, then a character the Unicode path reads: what the one-pass scan found is dropped.
  `${'retainQueue on-call x-y-z a--b-c_d-e 2023-05-08 '.repeat(20)}café`,
  `${'nothing to see here '.repeat(30)}\u0007 and on`,
  'week-long wk DAYS monthly Weekday today Mondays, nxt wk, the other day, last month',
  'to-day and to-night, yday, tmrw, Tonight, last night, lastNight, yesterday_notes, TODAY, tomorrowland, night-shift',
  // A relative day only as an identifier's part or a hyphenated compound.
  'the lastNight flag',
  'see yesterday_notes',
  'it ships to-day',
];

/** Seeded random text over hyphens, underscores, particles and the words a relative span needs. */
const pairTexts = (count: number, seed: number): string[] => {
  const alphabet = ['a', 'B', '1', '_', '-', '--', ' ', '\t', '.', ',', '!', 'log', 'Sign', 'ed', 'ged', 'ping', 'set', 'LOOK', 'back', ' in', ' up', ' out', ' Down', ' on', ' to', ' and', 'wk', 'Day', 'week', 'month', 'to', 'night', 'yday', ' last', 'é', '\u0001'];
  let s = seed;
  const next = (n: number): number => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
  // The last two (a character the Unicode path reads) in a quarter of their draws: most texts stay ASCII.
  const piece = (): string => {
    const k = next(alphabet.length);
    return k >= alphabet.length - 2 && next(4) > 0 ? 'a' : (alphabet[k] ?? '');
  };
  return Array.from({ length: count }, () => Array.from({ length: 1 + next(60) }, piece).join(''));
};

/** Seeded random text over the characters the scans care about. */
const randomTexts = (count: number, seed: number): string[] => {
  const alphabet = [...'aAbBeEiIkKlLnNoOsStTwWzZ019_-./:@+ \n\t.!?\'"()', 'é', 'İ', 'ß', 'Ω', '東', '😀', '👍🏽', '\u200d', '\u00a0', 'Will ', 'log in', 'set up ', 'sooo', 'Kate', 'kt', 'npm i ', 'https://x.io/', '@a', 'src/a.ts ', 'Tom Smith ', '.md', 'npm', 'git ', 'K', 'ǅ'];
  let s = seed;
  const next = (n: number): number => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
  return Array.from({ length: count }, () => Array.from({ length: 1 + next(120) }, () => alphabet[next(alphabet.length)] ?? '').join(''));
};

const corpus = (): string[] => [...fixtureTexts(), ...WRITTEN, ...randomTexts(3000, 7), ...pairTexts(400, 11)];

describe('analyzer fast paths against the reference tokeniser', () => {
  it('gives the same words and index terms, in order, for every text (and again once each word is memoised)', () => {
    const texts = corpus();
    expect(texts.length).toBeGreaterThan(3500);
    let tokens = 0;
    for (let round = 0; round < 2; round += 1) {
      for (const text of texts) {
        const expected = referenceWords(text);
        expect(words(text), text).toEqual(expected);
        expect(analyze(text), text).toEqual(expected.map(stemWord));
        // What indexing reads: the words and, in step, their stems from the memoised readings.
        const read = wordsAndTerms(text);
        expect({ words: read.words, terms: read.terms }, text).toEqual({ words: expected, terms: expected.map(stemWord) });
        tokens += expected.length;
      }
    }
    expect(tokens).toBeGreaterThan(50_000);
  });

  it('says a text holds no word a relative span or a relative day needs only when it has neither', () => {
    let spanFree = 0;
    let dayFree = 0;
    let dayWords = 0;
    const may8 = Date.UTC(2023, 4, 8);
    for (const text of corpus()) {
      const read = wordsAndTerms(text);
      if (!read.spans) {
        expect(relativeSpanWords(text, may8), text).toEqual([]);
        expect(/week|wk|day|month/.test(text.toLowerCase()), text).toBe(false);
        spanFree += 1;
      }
      // Relative days: "yesterday", "last night", "lastNight", "to-day".
      if (!read.days) {
        expect(relativeDayWords(read.words, may8), text).toEqual([]);
        dayFree += 1;
      } else if (relativeDayWords(read.words, may8).length > 0) dayWords += 1;
    }
    expect(spanFree).toBeGreaterThan(1000);
    expect(dayFree).toBeGreaterThan(1000);
    expect(dayWords).toBeGreaterThan(10);
  });

  it('reads a capitalised stop word by its own sentence, not by where the same word was first seen', () => {
    expect(words('I met Will.')).toEqual(referenceWords('I met Will.'));
    expect(words('Will it rain?')).toEqual(referenceWords('Will it rain?'));
    expect(words('I met Will.')).toContain('william');
    expect(words('Will it rain?')).not.toContain('william');
  });
});

describe('a text followed by a line break', () => {
  it('has the same index terms: the ranking reads a memory of text alone by its index terms, searchableText adds a line break after the text', () => {
    const texts = corpus();
    for (const text of texts) expect(new Set(analyze(`${text}\n`)), text).toEqual(new Set(analyze(text)));
  });
});

describe('entity extraction fast paths against the reference extractor', () => {
  it('gives the same entities, types and order for every text', () => {
    const texts = corpus();
    let entities = 0;
    for (const text of texts) {
      const expected = referenceEntities(text);
      expect(extractEntities(text), text).toEqual(expected);
      entities += expected.length;
    }
    // Long texts: the fixtures joined, past the cap on entities per item.
    const joined = texts.join('\n');
    expect(extractEntities(joined)).toEqual(referenceEntities(joined));
    expect(entities).toBeGreaterThan(1000);
  });
});
