/**
 * Query-string parameters of the list routes, checked the way FastAPI checks them: a bad
 * value is a 422 naming `["query", <name>]`.
 */
import { HttpError } from '../http/errors.js';
import { isOneOf } from '../../codecs/codecs.js';

const invalid = (name: string, msg: string, input: string): HttpError =>
  new HttpError(422, [{ type: 'value_error', loc: ['query', name], msg, input }]);

/** An integer parameter within bounds, or the default when absent. */
export const intParam = (query: URLSearchParams, name: string, fallback: number, min: number, max: number): number => {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw invalid(name, 'Input should be a valid integer', raw);
  const value = Number(raw);
  if (value < min) throw invalid(name, `Input should be greater than or equal to ${min}`, raw);
  if (value > max) throw invalid(name, `Input should be less than or equal to ${max}`, raw);
  return value;
};

/** A boolean parameter (`true/false/1/0/yes/no/on/off`), or the default. */
export const boolParam = (query: URLSearchParams, name: string, fallback: boolean): boolean => {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const lower = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on', 't', 'y'].includes(lower)) return true;
  if (['false', '0', 'no', 'off', 'f', 'n'].includes(lower)) return false;
  throw invalid(name, 'Input should be a valid boolean', raw);
};

/** One of `choices`, or the default. */
export const choiceParam = <C extends string>(query: URLSearchParams, name: string, choices: readonly C[], fallback: C): C => {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (isOneOf(choices, raw)) return raw;
  throw invalid(name, `Input should be ${choices.map((c) => `'${c}'`).join(', ')}`, raw);
};

/** Repeated `?tags=a&tags=b`; undefined when absent. */
export const listParam = (query: URLSearchParams, name: string): string[] | undefined => {
  const values = query.getAll(name);
  return values.length === 0 ? undefined : values;
};
