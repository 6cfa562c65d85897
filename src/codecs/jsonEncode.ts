/**
 * `JSON.stringify(value)`, the same text, with a large string's encoding made once: a retain
 * job's content (an import document, about 30 kB of JSON whose quotes all need escaping) is
 * encoded into the retain queue's journal line when it is queued and into the request body when
 * it is sent, the same string both times (16 MB twice for the import bench's 542 documents).
 *
 * - Plain objects and arrays are walked as `JSON.stringify` walks them (own enumerable keys in
 *   order, `undefined`, functions and symbols left out of objects and `null` in arrays,
 *   `toJSON` called with its key); anything else (a boxed primitive, a Map, a class instance,
 *   a nesting too deep to walk) is handed to `JSON.stringify` whole, which also throws where it
 *   would (a cycle, a BigInt).
 * - The encoding of a string of `REMEMBERED_MIN_CHARS` or more is remembered (the most recent
 *   256, 8 M characters in all) and used again for an equal string; it is forgotten once used
 *   again, so it is held from the journal write to the send and no longer.
 *   `test/codecs/jsonEncode.test.ts` holds the text to `JSON.stringify`'s.
 */

import { takeOnceMemo } from './takeOnceMemo.js';

export const REMEMBERED_MIN_CHARS = 4_096;
const REMEMBERED_MAX_TEXTS = 256;
const REMEMBERED_MAX_CHARS = 8_000_000;
// Deeper values go to JSON.stringify (which throws on a cycle, where a walk would recurse).
const MAX_WALK_DEPTH = 256;

const memo = takeOnceMemo<string>({ minChars: REMEMBERED_MIN_CHARS, maxTexts: REMEMBERED_MAX_TEXTS, maxChars: REMEMBERED_MAX_CHARS });

const encodeString = (text: string): string => {
  const taken = memo.take(text);
  if (taken !== undefined) return taken;
  const json = JSON.stringify(text);
  memo.put(text, json);
  return json;
};

const isPlain = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** True when a string of `REMEMBERED_MIN_CHARS` or more is somewhere in `value` (looked for to `MAX_WALK_DEPTH`). */
const holdsLarge = (value: unknown, depth: number): boolean => {
  if (typeof value === 'string') return value.length >= REMEMBERED_MIN_CHARS;
  if (typeof value !== 'object' || value === null || depth > MAX_WALK_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsLarge(item, depth + 1)) return true;
    return false;
  }
  for (const key in value) if (Object.hasOwn(value, key) && holdsLarge(Reflect.get(value, key), depth + 1)) return true;
  return false;
};

// Keys repeat from job to job (`jobId`, `content`, …): each is encoded once.
const keyTexts = new Map<string, string>();
const keyText = (key: string): string => {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (keyTexts.size < 1_000) keyTexts.set(key, text);
  }
  return text;
};

/**
 * The value's JSON text pushed onto `out` (one join at the end copies each piece once); false
 * where JSON.stringify leaves the value out (nothing pushed).
 */
const encodeInto = (out: string[], key: string, input: unknown, depth: number): boolean => {
  let value = input;
  if (typeof value === 'object' && value !== null) {
    const toJSON: unknown = Reflect.get(value, 'toJSON');
    if (typeof toJSON === 'function') value = Reflect.apply(toJSON, value, [key]);
  }
  if (typeof value === 'string') {
    out.push(encodeString(value));
    return true;
  }
  // Plain data (a subtree with no large string, whose root has no toJSON of its own: its key
  // would be read as '') is written by JSON.stringify itself, in one native pass.
  if (typeof value !== 'object' || value === null || depth > MAX_WALK_DEPTH || (value === input && !holdsLarge(value, depth)) || !(Array.isArray(value) ? Object.getPrototypeOf(value) === Array.prototype : isPlain(value))) {
    const text = JSON.stringify(value);
    if (text === undefined) return false;
    out.push(text);
    return true;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) out.push(',');
      if (!encodeInto(out, String(i), value[i], depth + 1)) out.push('null');
    }
    out.push(']');
    return true;
  }
  out.push('{');
  let first = true;
  for (const k of Object.keys(value)) {
    const at = out.length;
    out.push(first ? keyText(k) : `,${keyText(k)}`, ':');
    if (encodeInto(out, k, Reflect.get(value, k), depth + 1)) first = false;
    else out.length = at;
  }
  out.push('}');
  return true;
};

/** `JSON.stringify(value)` (no replacer, no indent): the same text, large strings encoded once. */
export const jsonEncode = (value: unknown): string | undefined => {
  const out: string[] = [];
  return encodeInto(out, '', value, 0) ? out.join('') : undefined;
};

/** How many encodings are remembered now (tests). */
export const rememberedEncodings = (): number => memo.size();
