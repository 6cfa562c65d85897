/**
 * Request decoding with io-ts, answered the FastAPI way: a 422 whose `detail` lists each bad
 * field as `{type, loc: ["body", "items", 0, "content"], msg}` (never the rejected input). Also reports the
 * top-level body fields the codec does not know (upstream ignores them and names them in
 * `X-Ignored-Params`).
 */
import * as t from 'io-ts';
import { decodesToItself } from '../../codecs/identityCodec.js';
import { HttpError } from './errors.js';
import type { ValidationIssue } from './errors.js';

const locOf = (context: t.Context, root: string): (string | number)[] => {
  const loc: (string | number)[] = [root];
  for (let i = 1; i < context.length; i += 1) {
    const entry = context[i];
    const parent = context[i - 1];
    if (entry === undefined || parent === undefined || entry.key === '') continue;
    // Union and intersection members are reported under numeric keys that are not fields.
    if (parent.type instanceof t.UnionType || parent.type instanceof t.IntersectionType) continue;
    loc.push(parent.type instanceof t.ArrayType && /^\d+$/.test(entry.key) ? Number(entry.key) : entry.key);
  }
  return loc;
};

const describe = (error: t.ValidationError): { type: string; msg: string } => {
  if (error.value === undefined) return { type: 'missing', msg: 'Field required' };
  if (error.message !== undefined) return { type: 'value_error', msg: `Value error, ${error.message}` };
  const last = error.context[error.context.length - 1];
  const name = last?.type.name ?? 'value';
  if (name === 'string') return { type: 'string_type', msg: 'Input should be a valid string' };
  if (name === 'number') return { type: 'float_type', msg: 'Input should be a valid number' };
  if (name === 'boolean') return { type: 'bool_type', msg: 'Input should be a valid boolean' };
  if (name.startsWith('Array<')) return { type: 'list_type', msg: 'Input should be a valid list' };
  return { type: 'value_error', msg: `Input should be ${name}` };
};

/** Converts io-ts errors to FastAPI issues, one per location. */
const toIssues = (errors: t.Errors, root = 'body'): ValidationIssue[] => {
  const byLoc = new Map<string, ValidationIssue>();
  for (const error of errors) {
    const loc = locOf(error.context, root);
    const key = JSON.stringify(loc);
    if (byLoc.has(key)) continue;
    const { type, msg } = describe(error);
    byLoc.set(key, { type, loc, msg });
  }
  return [...byLoc.values()];
};

/** Decodes `input` or throws a 422 naming each bad field. */
export const decodeOr422 = <A>(codec: t.Decoder<unknown, A>, input: unknown, root = 'body'): A => {
  // Valid input to a codec that never transforms is its own decoding (`decodeWith` does the same).
  if (codec instanceof t.Type && decodesToItself(codec) && codec.is(input)) return input;
  const result = codec.decode(input);
  if (result._tag === 'Left') throw new HttpError(422, toIssues(result.left, root));
  return result.right;
};

const propsOf = (codec: t.Mixed): string[] => {
  if (codec instanceof t.InterfaceType || codec instanceof t.PartialType || codec instanceof t.ExactType) {
    const inner = codec instanceof t.ExactType ? (codec.type as t.Mixed) : codec;
    return inner instanceof t.InterfaceType || inner instanceof t.PartialType ? Object.keys(inner.props as object) : propsOf(inner);
  }
  if (codec instanceof t.IntersectionType) return (codec.types as t.Mixed[]).flatMap(propsOf);
  if (codec instanceof t.RefinementType) return propsOf(codec.type as t.Mixed);
  return [];
};

/** Top-level body keys `codec` does not declare, for `X-Ignored-Params`. */
export const unknownFields = (codec: t.Mixed, body: unknown): string[] => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const known = new Set(propsOf(codec));
  return Object.keys(body).filter((k) => !known.has(k));
};

export const ignoredHeader = (fields: readonly string[]): Record<string, string> =>
  fields.length === 0 ? {} : { 'X-Ignored-Params': fields.join(', ') };
