/** Query-string parameters, decoded like FastAPI: a bad value is a 422 at `["query", name]`. */
import { HttpError } from './errors.js';
import { isOneOf } from '../../codecs/codecs.js';

const invalid = (name: string, msg: string, input: string): HttpError =>
  new HttpError(422, [{ type: 'int_parsing', loc: ['query', name], msg, input }]);

export const intParam = (query: URLSearchParams, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw invalid(name, 'Input should be a valid integer, unable to parse string as an integer', raw);
  const value = Number(raw);
  if (value < min) throw new HttpError(422, [{ type: 'greater_than_equal', loc: ['query', name], msg: `Input should be greater than or equal to ${min}`, input: raw }]);
  if (value > max) throw new HttpError(422, [{ type: 'less_than_equal', loc: ['query', name], msg: `Input should be less than or equal to ${max}`, input: raw }]);
  return value;
};

/** Repeated keys (`?tags=a&tags=b`), as the TS client sends arrays. */
export const listParam = (query: URLSearchParams, name: string): string[] | undefined => {
  const values = query.getAll(name);
  return values.length === 0 ? undefined : values;
};

export const stringParam = (query: URLSearchParams, name: string): string | undefined => query.get(name) ?? undefined;

export const enumParam = <T extends string>(query: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T => {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (isOneOf(allowed, raw)) return raw;
  throw new HttpError(422, [
    { type: 'enum', loc: ['query', name], msg: `Input should be ${allowed.map((a) => `'${a}'`).join(', ')}`, input: raw },
  ]);
};

/** Paging applied after filtering and ordering. */
export const page = <T>(items: readonly T[], limit: number, offset: number): T[] => items.slice(offset, offset + limit);
