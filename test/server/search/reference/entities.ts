/**
 * Entity extraction as it was before its scans were made cheaper (2026-11-27): the plain
 * reference the differential test holds the fast code to, entity for entity.
 */
import type { Entity } from '../../../../src/server/store/model.js';
import { runAtOnce } from '../../../../src/server/slices.js';

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
const NAME = /\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b/g;
const NOT_WORD = /[^a-z0-9+-]+/;

/**
 * Every fact of an item carries the item's entities and the index analyses them once per fact,
 * so their size multiplies by the number of chunks: 400 KB of dash-joined Title-Case words made
 * one 400 KB "name" analysed by each of 133 chunks (39 s, every bank waiting). A name is a few
 * words; a longer capitalised run is a heading or a list, not a name. An entity is at most
 * MAX_ENTITY_CHARS long and an item has at most MAX_ENTITIES, the first found kept.
 */
const MAX_NAME_WORDS = 6;
const MAX_ENTITY_CHARS = 200;
const MAX_ENTITIES = 256;

/** Matches between two steps of `extractEntitySteps`. */
const MATCHES_PER_STEP = 256;

/**
 * The entities named in `text`, in first-seen order, each once (case-insensitive), as steps:
 * it yields every few hundred matches, so a caller can run megabytes of text in slices
 * (`runSliced`); `extractEntities` runs it at once. Once MAX_ENTITIES are found nothing
 * later can be added, so the scan stops there.
 */
function* referenceEntitySteps(text: string): Generator<undefined, Entity[]> {
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
  if (!full() && INSTALL_HINT.test(urlFree)) {
    for (const m of urlFree.matchAll(INSTALL)) {
      if (full()) break;
      for (const name of (m[1] ?? '').split(/\s+/)) if (name.length > 0 && !name.startsWith('-')) add(name, 'PACKAGE');
      if (stepDue()) yield undefined;
    }
  }
  if (!full() && FILE_HINT.test(urlFree)) {
    for (const m of urlFree.matchAll(FILE_PATH)) {
      if (full()) break;
      if (!m[0].startsWith('@')) add(m[0], 'FILE');
      if (stepDue()) yield undefined;
    }
  }
  if (!full()) {
    for (const word of urlFree.toLowerCase().split(NOT_WORD)) {
      if (full()) break;
      if (TOOLS.has(word)) add(word, 'TOOL');
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
export const referenceEntities = (text: string): Entity[] => runAtOnce(referenceEntitySteps(text));

