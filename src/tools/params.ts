/**
 * Tool parameters, declared once: each parameter carries its io-ts codec (what the handler
 * decodes with, the source of its type) and its JSON schema (what the host shows the model,
 * typebox-compatible: typebox 1.x schemas are plain JSON Schema objects). Unknown parameters
 * are refused by name, so a typo never silently drops an option.
 */
import * as t from 'io-ts';
import { oneOfStrings } from '../codecs/codecs.js';

/** A JSON Schema fragment, as pi's `registerTool` takes it. */
export interface JsonSchema {
  readonly [key: string]: unknown;
}

export interface Param<C extends t.Mixed = t.Mixed> {
  readonly codec: C;
  readonly schema: JsonSchema;
}

const param = <C extends t.Mixed>(codec: C, schema: JsonSchema): Param<C> => ({ codec, schema });

const withDescription = (schema: JsonSchema, description: string, extra: JsonSchema = {}): JsonSchema => ({ ...schema, ...extra, description });

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Non-blank text of at most `maxLength` characters, without control characters other than tab and newline. */
export const textCodec = (maxLength: number): t.Type<string, string, unknown> => {
  const valid = (u: unknown): u is string => typeof u === 'string' && u.trim().length > 0 && u.length <= maxLength && !CONTROL.test(u);
  return new t.Type<string, string, unknown>(
    `text(1..${maxLength})`,
    valid,
    (u, c) => (valid(u) ? t.success(u) : t.failure(u, c, `non-blank text of at most ${maxLength} characters without control characters`)),
    t.identity,
  );
};

/** An object's id, which goes into a request path: text that is not `.` or `..` (a path step the URL parser would resolve). */
export const objectIdCodec = (maxLength: number): t.Type<string, string, unknown> => {
  const base = textCodec(maxLength);
  const valid = (u: unknown): u is string => base.is(u) && u !== '.' && u !== '..';
  return new t.Type<string, string, unknown>(
    `id(1..${maxLength})`,
    valid,
    (u, c) => (valid(u) ? t.success(u) : t.failure(u, c, u === '.' || u === '..' ? `an id, not the path step ${JSON.stringify(u)}` : `non-blank text of at most ${maxLength} characters without control characters`)),
    t.identity,
  );
};

// The schema a model sees carries no `not`: some providers' schema subsets and local servers'
// grammar converters reject the keyword, and the decode refuses a path step with its own message.
export const objectId = (description: string, maxLength: number): Param<t.Type<string, string, unknown>> =>
  param(objectIdCodec(maxLength), withDescription({ type: 'string', minLength: 1, maxLength }, description));

export const text = (description: string, maxLength = 4096): Param<t.Type<string, string, unknown>> =>
  param(textCodec(maxLength), withDescription({ type: 'string', minLength: 1, maxLength }, description));

const intCodec = (min: number, max: number) =>
  new t.Type<number, number, unknown>(
    `integer ${min}..${max}`,
    (u): u is number => typeof u === 'number' && Number.isSafeInteger(u) && u >= min && u <= max,
    (u, c) =>
      typeof u === 'number' && Number.isSafeInteger(u) && u >= min && u <= max ? t.success(u) : t.failure(u, c, `an integer from ${min} to ${max}`),
    t.identity,
  );

export const int = (description: string, min: number, max: number, defaultValue?: number): Param<t.Type<number, number, unknown>> =>
  param(intCodec(min, max), withDescription({ type: 'integer', minimum: min, maximum: max }, description, defaultValue === undefined ? {} : { default: defaultValue }));

const numberCodec = (min: number, max: number) =>
  new t.Type<number, number, unknown>(
    `number ${min}..${max}`,
    (u): u is number => typeof u === 'number' && Number.isFinite(u) && u >= min && u <= max,
    (u, c) => (typeof u === 'number' && Number.isFinite(u) && u >= min && u <= max ? t.success(u) : t.failure(u, c, `a number from ${min} to ${max}`)),
    t.identity,
  );

export const num = (description: string, min: number, max: number): Param<t.Type<number, number, unknown>> =>
  param(numberCodec(min, max), withDescription({ type: 'number', minimum: min, maximum: max }, description));

export const flag = (description: string, defaultValue?: boolean): Param<t.BooleanC> =>
  param(t.boolean, withDescription({ type: 'boolean' }, description, defaultValue === undefined ? {} : { default: defaultValue }));

/** One of a fixed list of strings (a plain `enum` schema: some providers reject `anyOf` of literals). */
export const oneOf = <V extends string>(values: readonly [V, ...V[]], description: string, defaultValue?: V): Param<t.Type<V, V, unknown>> => {
  return param(
    oneOfStrings(values),
    withDescription({ type: 'string', enum: [...values] }, description, defaultValue === undefined ? {} : { default: defaultValue }),
  );
};

export const list = <C extends t.Mixed>(item: Param<C>, description: string, maxItems: number, minItems = 0): Param<t.Type<t.TypeOf<C>[], unknown, unknown>> => {
  const inner = t.array(item.codec);
  const codec = new t.Type<t.TypeOf<C>[], unknown, unknown>(
    `${inner.name} (${minItems}..${maxItems} items)`,
    (u): u is t.TypeOf<C>[] => inner.is(u) && u.length >= minItems && u.length <= maxItems,
    (u, c) => {
      if (Array.isArray(u) && (u.length > maxItems || u.length < minItems)) return t.failure(u, c, `${minItems} to ${maxItems} items`);
      return inner.validate(u, c);
    },
    (a) => inner.encode(a),
  );
  const { description: _ignored, ...itemSchema } = item.schema;
  return param(codec, withDescription({ type: 'array', items: itemSchema, minItems, maxItems }, description));
};

/** A string -> string map of at most `maxKeys` entries. */
export const stringMap = (description: string, maxKeys = 64, maxValue = 2048): Param<t.Type<Record<string, string>, unknown, unknown>> => {
  const codec = new t.Type<Record<string, string>, unknown, unknown>(
    'map of strings',
    (u): u is Record<string, string> =>
      typeof u === 'object' && u !== null && !Array.isArray(u) && Object.values(u).every((v) => typeof v === 'string' && v.length <= maxValue),
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'an object of string values');
      const entries = Object.entries(u);
      if (entries.length > maxKeys) return t.failure(u, c, `at most ${maxKeys} keys`);
      const errors: t.Errors = [];
      const out: Record<string, string> = {};
      for (const [key, value] of entries) {
        if (typeof value !== 'string' || value.length > maxValue || key.length === 0 || key.length > 128) {
          errors.push({ value, context: [...c, { key, type: t.string, actual: value }], message: `a string of at most ${maxValue} characters under a 1-128 character key` });
        } else Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return errors.length > 0 ? t.failures(errors) : t.success(out);
    },
    t.identity,
  );
  return param(codec, withDescription({ type: 'object', additionalProperties: { type: 'string', maxLength: maxValue } }, description));
};

/** Takes an already-built codec with its schema (for compound values like tag groups). */
export const custom = <C extends t.Mixed>(codec: C, schema: JsonSchema, description: string): Param<C> => param(codec, withDescription(schema, description));

/** `value | null`, where null carries a meaning (e.g. "move to root"). */
export const nullable = <C extends t.Mixed>(p: Param<C>): Param<t.Type<t.TypeOf<C> | null, unknown, unknown>> => {
  const { description, ...rest } = p.schema;
  return param(t.union([p.codec, t.null], `${p.codec.name} | null`), {
    anyOf: [rest, { type: 'null' }],
    ...(description === undefined ? {} : { description }),
  });
};

type CodecsOf<P extends Record<string, Param>> = { [K in keyof P]: P[K]['codec'] };

export type ParamsOf<R extends Record<string, Param>, O extends Record<string, Param>> = t.TypeOf<t.TypeC<CodecsOf<R>>> &
  t.TypeOf<t.PartialC<CodecsOf<O>>>;

export interface ToolParams<A> {
  readonly codec: t.Type<A, unknown, unknown>;
  /** `{type: 'object', properties, required, additionalProperties: false}`. */
  readonly schema: JsonSchema;
}

const codecsOf = <P extends Record<string, Param>>(params: P): CodecsOf<P> =>
  Object.fromEntries(Object.entries(params).map(([k, p]) => [k, p.codec])) as CodecsOf<P>;

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * A tool's whole parameter object: `required` and `optional` parameters, nothing else. An
 * unknown key fails with its name and the list of known ones; a missing object (`undefined`)
 * reads as `{}` since a tool without required parameters may be called with no arguments.
 */
export const toolParams = <R extends Record<string, Param>, O extends Record<string, Param>>(
  name: string,
  required: R,
  optional: O,
): ToolParams<ParamsOf<R, O>> => {
  const known = [...Object.keys(required), ...Object.keys(optional)];
  const members = t.intersection([t.type(codecsOf(required)), t.partial(codecsOf(optional))]);
  const inner = t.exact(members);
  const codec = new t.Type<ParamsOf<R, O>, unknown, unknown>(
    `${name} parameters`,
    (u): u is ParamsOf<R, O> => inner.is(u) && Object.keys(u).every((k) => known.includes(k)),
    (u, c) => {
      const input = u === undefined ? {} : u;
      if (!isPlainObject(input)) return t.failure(input, c, 'an object of named parameters');
      const unknownKeys = Object.keys(input).filter((k) => !known.includes(k));
      if (unknownKeys.length > 0) {
        const knownText = known.length === 0 ? 'this tool takes no parameters' : `known: ${known.join(', ')}`;
        return t.failures(
          unknownKeys.map((key) => ({ value: input[key], context: [...c, { key, type: t.never, actual: input[key] }], message: `no such parameter (${knownText})` })),
        );
      }
      // An explicit `undefined` is the same as leaving the parameter out.
      const present = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
      // The intersection's entry in the context keeps its member index out of error paths.
      return inner.validate(present, [...c, { key: '', type: members, actual: present }]);
    },
    t.identity,
  );
  const schemaOf = (p: Param) => p.schema;
  const properties = Object.fromEntries([...Object.entries(required), ...Object.entries(optional)].map(([k, p]) => [k, schemaOf(p)]));
  return {
    codec,
    schema: { type: 'object', properties, required: Object.keys(required), additionalProperties: false },
  };
};
