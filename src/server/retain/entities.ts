/**
 * A deterministic entity extractor standing in for upstream's LLM extraction: it finds what a
 * coding agent's memories name (people, @handles, file paths, package and tool names, URL
 * hosts) from the text alone, so the same text always yields the same entities.
 */
import type { Entity } from '../store/model.js';
import { runAtOnce } from '../slices.js';

/** Words capitalised by habit or at a sentence start; never a name on their own (the list keeps extraction deterministic without an LLM). */
const COMMON = new Set(
  (
    'A An And As At But By For From He Her His How I If In Is It Its My No Not Of On Or Our She So The Their Then There These They ' +
    'This To We What When Where Which Who Why Will With You Your Yes Also After Before Because Please Thanks Today Tomorrow Yesterday ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September October ' +
    'November December User Assistant Note Use Do Does Did Can Could Should Would Must Let Here Now Only All Some Any Each Every Run See Check Add Fix Make Try Keep Remember Always Never Prefer Don\'t OK'
  ).split(' '),
);

/** Tools and package managers a coding agent talks about, matched case-insensitively as words. */
const TOOLS = new Set(
  (
    'npm pnpm yarn bun node deno git docker kubectl helm terraform make cmake cargo rustc go pip pipx poetry uv python python3 ' +
    'java gradle maven mvn tsc vitest jest eslint prettier rollup esbuild webpack vite tsx postgres postgresql mysql sqlite redis ' +
    'nginx curl bash zsh ssh vim emacs vscode github gitlab react vue svelte typescript javascript rust'
  ).split(' '),
);

const HANDLE = /(?<![\w@])@([A-Za-z0-9_][A-Za-z0-9_.-]{0,38}[A-Za-z0-9_]|[A-Za-z0-9_])(?![\w@/])/g;
const URL_HOST = /\bhttps?:\/\/([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::\d+)?[^\s)\]>'"]*/g;
const SCOPED_PACKAGE = /(?<![\w/])@[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*/g;
const FILE_PATH = /(?<![\w/.:-])(?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,8}\b|(?<![\w/.:@-])[\w-]+\.(?:ts|tsx|js|mjs|cjs|json|md|py|go|rs|java|yaml|yml|toml|sh|css|html|sql|txt|lock)\b/g;
const INSTALL = /\b(?:npm|pnpm|yarn|bun)\s+(?:install|i|add)\s+((?:(?!(?:then|and|or|to|from|with|in|for)\b)[@\w./-]+[ \t]*)+)/g;
const INSTALL_HINT = /\b(?:npm|pnpm|yarn|bun)\s+(?:install|i|add)\s/;
const FILE_HINT = /\/|\.[A-Za-z]{2,4}\b/;

/** A character a path is made of: `[\w./-]`. */
const isPathChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 47 || c === 45;

/**
 * The [start, end) runs of path characters in `text` that hold a "/" or a "." before a
 * lower-case letter, in order. The regex engine finds each such character (most text has few),
 * and the run around it is read from there: the text between runs is not walked character by
 * character.
 */
const PATH_MARK = /\/|\.[a-z]/g;
const pathRuns = (text: string): Array<[number, number]> => {
  const out: Array<[number, number]> = [];
  const n = text.length;
  PATH_MARK.lastIndex = 0;
  for (let m = PATH_MARK.exec(text); m !== null; m = PATH_MARK.exec(text)) {
    let start = m.index;
    while (start > 0 && isPathChar(text.charCodeAt(start - 1))) start -= 1;
    let end = m.index + 1;
    while (end < n && isPathChar(text.charCodeAt(end))) end += 1;
    out.push([start, end]);
    PATH_MARK.lastIndex = end;
  }
  return out;
};
const NAME = /\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b/g;
/** A character of a word tool names are looked up among (`[a-z0-9+-]`; anything else separates words). */
const isToolChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 45;
// A tool name's length, first and last character, marked in a table: a word whose shape no tool
// has is passed over without being cut out of the text and looked up.
const TOOL_MAX = Math.max(...[...TOOLS].map((t) => t.length));
const toolShape = (length: number, first: number, last: number): number => (length * 128 + first) * 128 + last;
const TOOL_SHAPES = new Uint8Array(toolShape(TOOL_MAX + 1, 0, 0));
for (const t of TOOLS) TOOL_SHAPES[toolShape(t.length, t.charCodeAt(0), t.charCodeAt(t.length - 1))] = 1;

/**
 * Every fact of an item carries the item's entities and the index analyses them once per fact,
 * so their size multiplies by the number of chunks: 400 KB of dash-joined Title-Case words made
 * one 400 KB "name" analysed by each of 133 chunks (39 s, every bank waiting). A name is a few
 * words; a longer capitalised run is a heading or a list, not a name. An entity is at most
 * MAX_ENTITY_CHARS long and an item has at most MAX_ENTITIES, the first found kept.
 */
const MAX_NAME_WORDS = 6;
export const MAX_ENTITY_CHARS = 200;
const MAX_ENTITIES = 256;

/** Matches between two steps of `extractEntitySteps`. */
const MATCHES_PER_STEP = 256;

/**
 * The entities named in `text`, in first-seen order, each once (case-insensitive), as steps:
 * it yields every few hundred matches, so a caller can run megabytes of text in slices
 * (`runSliced`); `extractEntities` runs it at once. Once MAX_ENTITIES are found nothing
 * later can be added, so the scan stops there.
 */
export function* extractEntitySteps(text: string): Generator<undefined, Entity[]> {
  const out = new Map<string, Entity>();
  const full = (): boolean => out.size >= MAX_ENTITIES;
  const add = (value: string, type: string): void => {
    const clean = value.trim().replace(/[.,;:]+$/, '');
    const key = clean.toLowerCase();
    if (clean.length < 2 || clean.length > MAX_ENTITY_CHARS || full() || out.has(key)) return;
    out.set(key, { text: clean, type });
  };
  let matches = 0;
  const stepDue = (): boolean => {
    matches += 1;
    return matches % MATCHES_PER_STEP === 0;
  };
  // Cheap guards first: retain runs this on every item, and most items have no URL or handle.
  const urlFree = text.includes('://')
    ? text.replace(URL_HOST, (whole, host: string) => {
        add(host.toLowerCase(), 'URL_HOST');
        return ' '.repeat(whole.length);
      })
    : text;
  yield undefined;
  if (urlFree.includes('@')) {
    for (const m of urlFree.matchAll(SCOPED_PACKAGE)) {
      if (full()) break;
      add(m[0], 'PACKAGE');
      if (stepDue()) yield undefined;
    }
    for (const m of urlFree.matchAll(HANDLE)) {
      if (full()) break;
      if (m[1] !== undefined) add(`@${m[1]}`, 'HANDLE');
      if (stepDue()) yield undefined;
    }
  }
  // Every install command names npm (or pnpm), yarn or bun: a plain substring search rules most texts out first.
  if (!full() && (urlFree.includes('npm') || urlFree.includes('yarn') || urlFree.includes('bun')) && INSTALL_HINT.test(urlFree)) {
    for (const m of urlFree.matchAll(INSTALL)) {
      if (full()) break;
      for (const name of (m[1] ?? '').split(/\s+/)) if (name.length > 0 && !name.startsWith('-')) add(name, 'PACKAGE');
      if (stepDue()) yield undefined;
    }
  }
  if (!full() && FILE_HINT.test(urlFree)) {
    // A path is made of `[\w./-]` and holds a "/" or a "." before a letter, so FILE_PATH runs only
    // on the runs of those characters that hold one, each with the character either side (its
    // look-behind and its final \b read them): the same matches, without trying every position
    // of ordinary prose.
    for (const [start, end] of pathRuns(urlFree)) {
      if (full()) break;
      const from = Math.max(0, start - 1);
      const window = urlFree.slice(from, end + 1);
      FILE_PATH.lastIndex = start - from;
      for (let m = FILE_PATH.exec(window); m !== null && !full(); m = FILE_PATH.exec(window)) {
        if (!m[0].startsWith('@')) add(m[0], 'FILE');
        if (stepDue()) yield undefined;
      }
    }
  }
  if (!full()) {
    // The lower-cased text's words, found by a character loop: only a word of a tool's shape is
    // cut out and looked up.
    const lower = urlFree.toLowerCase();
    const n = lower.length;
    let i = 0;
    while (i < n && !full()) {
      if (!isToolChar(lower.charCodeAt(i))) {
        i += 1;
        continue;
      }
      const start = i;
      while (i < n && isToolChar(lower.charCodeAt(i))) i += 1;
      if (i - start <= TOOL_MAX && TOOL_SHAPES[toolShape(i - start, lower.charCodeAt(start), lower.charCodeAt(i - 1))] === 1) {
        const word = lower.slice(start, i);
        // A tool word is its own key (lower case, no trailing punctuation): one already found is passed over.
        if (TOOLS.has(word) && !out.has(word)) add(word, 'TOOL');
      }
      if (stepDue()) yield undefined;
    }
  }
  for (const m of urlFree.matchAll(NAME)) {
    if (full()) break;
    if (stepDue()) yield undefined;
    if (m[0].length > MAX_ENTITY_CHARS) continue;
    const words = m[0].split(/[ -]/).filter((w) => !COMMON.has(w));
    if (words.length === 0 || words.length > MAX_NAME_WORDS) continue;
    const name = words.join(' ');
    if (TOOLS.has(name.toLowerCase())) continue;
    add(name, 'PERSON');
  }
  return [...out.values()];
}

/** `extractEntitySteps` run at once. */
export const extractEntities = (text: string): Entity[] => runAtOnce(extractEntitySteps(text));

/** Given entities first (type default CONCEPT), then extracted ones not already named. */
export const mergeEntities = (given: readonly Entity[], extracted: readonly Entity[]): Entity[] => {
  const out = new Map<string, Entity>();
  for (const e of [...given, ...extracted]) {
    const key = e.text.trim().toLowerCase();
    if (out.size >= MAX_ENTITIES) break;
    if (key.length > 0 && key.length <= MAX_ENTITY_CHARS && !out.has(key)) out.set(key, { text: e.text.trim(), type: e.type ?? 'CONCEPT' });
  }
  return [...out.values()];
};
