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

export const REMEMBERED_MIN_CHARS = 4_096;
const REMEMBERED_MAX_TEXTS = 256;
const REMEMBERED_MAX_CHARS = 8_000_000;
// Deeper values go to JSON.stringify (which throws on a cycle, where a walk would recurse).
const MAX_WALK_DEPTH = 256;

let remembered: { readonly text: string; readonly json: string }[] = [];
let rememberedChars = 0;

const encodeString = (text: string): string => {
  if (text.length < REMEMBERED_MIN_CHARS || text.length > REMEMBERED_MAX_CHARS) return JSON.stringify(text);
  // `===` tells strings of other lengths apart at once; an equal one costs a compare, far less than encoding it.
  const at = remembered.findIndex((entry) => entry.text === text);
  const hit = remembered[at];
  if (hit !== undefined) {
    remembered.splice(at, 1);
    rememberedChars -= text.length;
    return hit.json;
  }
  const json = JSON.stringify(text);
  remembered.push({ text, json });
  rememberedChars += text.length;
  let drop = 0;
  while (remembered.length - drop > REMEMBERED_MAX_TEXTS || rememberedChars > REMEMBERED_MAX_CHARS) {
    rememberedChars -= remembered[drop]?.text.length ?? 0;
    drop += 1;
  }
  if (drop > 0) remembered = remembered.slice(drop);
  return json;
};

const isPlain = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** The value's JSON text, or undefined where JSON.stringify leaves a value out. */
const encode = (key: string, input: unknown, depth: number): string | undefined => {
  let value = input;
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  switch (typeof value) {
    case 'string':
      return encodeString(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (depth > MAX_WALK_DEPTH) return JSON.stringify(value);
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return JSON.stringify(value);
        const parts: string[] = [];
        for (let i = 0; i < value.length; i += 1) parts.push(encode(String(i), value[i], depth + 1) ?? 'null');
        return `[${parts.join(',')}]`;
      }
      if (!isPlain(value)) return JSON.stringify(value);
      const parts: string[] = [];
      for (const k of Object.keys(value)) {
        const item = encode(k, (value as Record<string, unknown>)[k], depth + 1);
        if (item !== undefined) parts.push(`${JSON.stringify(k)}:${item}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      // undefined, a function, a symbol: left out.
      return undefined;
  }
};

/** `JSON.stringify(value)` (no replacer, no indent): the same text, large strings encoded once. */
export const jsonEncode = (value: unknown): string | undefined => encode('', value, 0);

/** How many encodings are remembered now (tests). */
export const rememberedEncodings = (): number => remembered.length;
