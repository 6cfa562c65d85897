/**
 * The size check of a tool call's raw parameters, made before anything reads their text:
 * redaction of a 5 MB string costs up to 0.6 s of CPU, and it ran before the codec refused the
 * string as too long. Each string, list and object is held to the size the tool's JSON schema
 * states for it (the schema the model is shown); where the schema states none (free JSON such as
 * `responseSchema`, a patch's values, an unknown parameter) a flat bound applies, and the whole
 * call is held to a total. Only lengths are read; no value is echoed back.
 */
import { MAX_JSON_DEPTH } from '../codecs/decode.js';
import type { JsonSchema } from './params.js';

/** A string the schema gives no length: config values, timestamps, paths, free JSON. */
export const FREE_STRING_MAX = 4096;
/** A list the schema gives no item count. */
export const FREE_ITEMS_MAX = 1000;
/** An object the schema lists no properties for: keys at most. */
export const FREE_KEYS_MAX = 1000;
/** An object key (a metadata key, a property of a response schema). */
export const KEY_MAX = 1024;
/** Characters of every string and key of one call together (content 100,000 plus room). */
export const TOTAL_CHARS_MAX = 1_000_000;

export interface SizeIssue {
  /** Dotted path of the field, as decode errors name it (`content`, `tags.3`, `metadata.<key>`). */
  readonly path: string;
  /** `at most 100000 characters, got 5000000`. */
  readonly problem: string;
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);
const isSchema = (u: unknown): u is JsonSchema => isObject(u);

/** A key as a path shows it: a long one cut, so the error never carries the key itself. */
const shownKey = (key: string): string => (key.length > 64 ? `${key.slice(0, 64)}…` : key);

/** The branch of `schema` (itself, or an `anyOf` member) that describes a value of JSON type `kind`. */
const branchFor = (schema: JsonSchema | undefined, kind: 'string' | 'array' | 'object'): JsonSchema | undefined => {
  if (schema === undefined) return undefined;
  const anyOf = schema['anyOf'];
  if (Array.isArray(anyOf)) return anyOf.filter(isSchema).find((branch) => branch['type'] === kind);
  return schema;
};

const numberField = (schema: JsonSchema | undefined, key: string): number | undefined => {
  const value = schema?.[key];
  return typeof value === 'number' ? value : undefined;
};

/** Why a call's raw parameters are refused before anything reads their text. */
export type ParamIssue = { readonly kind: 'nesting' } | ({ readonly kind: 'size' } & SizeIssue);

/**
 * One pass over the raw parameters for both checks. Nesting is refused first whatever else the
 * call holds, so after the first size issue the walk goes on for nesting only (no more counting).
 * Recursion is safe: it stops one level past `MAX_JSON_DEPTH`, and nothing after that matters
 * (nesting outranks any size).
 */
class Walk {
  private chars = 0;
  size: SizeIssue | undefined;

  private note(path: readonly string[], problem: string): void {
    this.size ??= { path: path.length === 0 ? '(root)' : path.join('.'), problem };
  }

  /**
   * Whether `value` nests too deep (`level` counts the containers holding it; a container at
   * level `MAX_JSON_DEPTH` is the deepest allowed), noting the first size issue on the way.
   */
  tooDeep(schema: JsonSchema | undefined, value: unknown, path: readonly string[], level: number): boolean {
    if (typeof value === 'string') {
      if (this.size !== undefined) return false;
      const max = numberField(branchFor(schema, 'string'), 'maxLength') ?? FREE_STRING_MAX;
      if (value.length > max) this.note(path, `at most ${max} characters, got ${value.length}`);
      else this.count(value.length, path);
      return false;
    }
    if (typeof value !== 'object' || value === null) return false;
    if (level + 1 > MAX_JSON_DEPTH) return true;
    if (Array.isArray(value)) {
      const branch = branchFor(schema, 'array');
      const max = numberField(branch, 'maxItems') ?? FREE_ITEMS_MAX;
      if (this.size === undefined && value.length > max) this.note(path, `at most ${max} items, got ${value.length}`);
      const items = branch?.['items'];
      for (let i = 0; i < value.length; i += 1) {
        if (this.tooDeep(isSchema(items) ? items : undefined, value[i], this.size === undefined ? [...path, String(i)] : path, level + 1)) return true;
      }
      return false;
    }
    if (!isObject(value)) return false;
    const branch = branchFor(schema, 'object');
    const properties = branch?.['properties'];
    const additional = branch?.['additionalProperties'];
    const keys = Object.keys(value);
    if (this.size === undefined && !isSchema(properties) && keys.length > FREE_KEYS_MAX) this.note(path, `at most ${FREE_KEYS_MAX} keys, got ${keys.length}`);
    for (const key of keys) {
      if (this.size === undefined) {
        const at = [...path, shownKey(key)];
        if (key.length > KEY_MAX) this.note(at, `a key of at most ${KEY_MAX} characters, got ${key.length}`);
        else this.count(key.length, at);
      }
      const own = isSchema(properties) && Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : additional;
      if (this.tooDeep(isSchema(own) ? own : undefined, value[key], this.size === undefined ? [...path, shownKey(key)] : path, level + 1)) return true;
    }
    return false;
  }

  private count(length: number, path: readonly string[]): void {
    this.chars += length;
    if (this.chars > TOTAL_CHARS_MAX) this.note(path, `the parameters hold more than ${TOTAL_CHARS_MAX} characters in all`);
  }
}

/**
 * Parameters nested deeper than `MAX_JSON_DEPTH` (every later walk, redaction, the codec and its
 * error text, recurses), else the first part of `params` larger than `schema` allows, else
 * undefined. Reads lengths only, so its cost is one pass over the structure whatever the
 * strings hold.
 */
export const paramIssue = (schema: JsonSchema, params: unknown): ParamIssue | undefined => {
  const walk = new Walk();
  if (walk.tooDeep(schema, params, [], 0)) return { kind: 'nesting' };
  return walk.size === undefined ? undefined : { kind: 'size', ...walk.size };
};
