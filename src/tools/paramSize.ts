/**
 * The size check of a tool call's raw parameters, made before anything reads their text:
 * redaction of a 5 MB string costs up to 0.6 s of CPU, and it ran before the codec refused the
 * string as too long. Each string, list and object is held to the size the tool's JSON schema
 * states for it (the schema the model is shown); where the schema states none (free JSON such as
 * `responseSchema`, a patch's values, an unknown parameter) a flat bound applies, and the whole
 * call is held to a total. Only lengths are read; no value is echoed back.
 */
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

class Walk {
  private chars = 0;

  issue(path: readonly string[], problem: string): SizeIssue {
    return { path: path.length === 0 ? '(root)' : path.join('.'), problem };
  }

  /** `depth` is bounded by the nesting check `runTool` makes first. */
  visit(schema: JsonSchema | undefined, value: unknown, path: readonly string[]): SizeIssue | undefined {
    if (typeof value === 'string') {
      const max = numberField(branchFor(schema, 'string'), 'maxLength') ?? FREE_STRING_MAX;
      if (value.length > max) return this.issue(path, `at most ${max} characters, got ${value.length}`);
      return this.count(value.length, path);
    }
    if (Array.isArray(value)) {
      const branch = branchFor(schema, 'array');
      const max = numberField(branch, 'maxItems') ?? FREE_ITEMS_MAX;
      if (value.length > max) return this.issue(path, `at most ${max} items, got ${value.length}`);
      const items = branch?.['items'];
      for (let i = 0; i < value.length; i += 1) {
        const found = this.visit(isSchema(items) ? items : undefined, value[i], [...path, String(i)]);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (isObject(value)) {
      const branch = branchFor(schema, 'object');
      const properties = branch?.['properties'];
      const additional = branch?.['additionalProperties'];
      const keys = Object.keys(value);
      if (!isSchema(properties) && keys.length > FREE_KEYS_MAX) return this.issue(path, `at most ${FREE_KEYS_MAX} keys, got ${keys.length}`);
      for (const key of keys) {
        if (key.length > KEY_MAX) return this.issue([...path, shownKey(key)], `a key of at most ${KEY_MAX} characters, got ${key.length}`);
        const counted = this.count(key.length, [...path, shownKey(key)]);
        if (counted !== undefined) return counted;
        const own = isSchema(properties) && Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : additional;
        const found = this.visit(isSchema(own) ? own : undefined, value[key], [...path, shownKey(key)]);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  }

  private count(length: number, path: readonly string[]): SizeIssue | undefined {
    this.chars += length;
    return this.chars > TOTAL_CHARS_MAX ? this.issue(path, `the parameters hold more than ${TOTAL_CHARS_MAX} characters in all`) : undefined;
  }
}

/**
 * The first part of `params` larger than `schema` allows, or undefined. Reads lengths only, so
 * its cost is one pass over the structure whatever the strings hold.
 */
export const oversizedParam = (schema: JsonSchema, params: unknown): SizeIssue | undefined => new Walk().visit(schema, params, []);
