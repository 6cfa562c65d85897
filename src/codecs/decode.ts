/**
 * Decoding at a boundary: every byte that crosses one becomes an `Either<DecodeError, A>`.
 * The error names the path of each bad field so a user can find it, and never echoes
 * more than a short, redacted-by-length preview of the value.
 */
import * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';
import { decodesToItself } from './identityCodec.js';

/** One failed field: its dotted path, what was expected, and a short preview of what came. */
export interface DecodeIssue {
  readonly path: string;
  readonly expected: string;
  readonly actual: string;
}

/** A decode failure at a named boundary (`hook session_start`, `config ~/.pi/agent/memory.json`). */
export interface DecodeError {
  readonly _tag: 'DecodeError';
  readonly source: string;
  readonly issues: readonly DecodeIssue[];
  readonly message: string;
}

const PREVIEW_MAX = 40;
const PATH_KEY_MAX = 64;
/** Issues a message (and a tool's error details) spell out; a million unknown keys made a message of every one. */
export const MESSAGE_ISSUES_MAX = 10;

const preview = (value: unknown): string => {
  if (value === undefined) return 'undefined';
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > PREVIEW_MAX ? `${text.slice(0, PREVIEW_MAX)}…` : text;
};

const pathOf = (context: t.Context): string => {
  // io-ts reports union and intersection members under numeric keys that are not fields:
  // keep a key only when its parent is not a union or an intersection.
  const parts: string[] = [];
  for (let i = 1; i < context.length; i += 1) {
    const entry = context[i];
    const parent = context[i - 1];
    if (entry === undefined || parent === undefined || entry.key === '') continue;
    if (parent.type instanceof t.UnionType || parent.type instanceof t.IntersectionType) continue;
    // A key is the caller's text: a 5 MB one made a 5 MB error.
    parts.push(entry.key.length > PATH_KEY_MAX ? `${entry.key.slice(0, PATH_KEY_MAX)}…` : entry.key);
  }
  return parts.length > 0 ? parts.join('.') : '(root)';
};

const issuesOf = (errors: t.Errors): DecodeIssue[] => {
  // A union reports one error per branch at the same path: fold them into `A | B`.
  const byPath = new Map<string, { expected: string[]; actual: string }>();
  for (const error of errors) {
    const last = error.context[error.context.length - 1];
    const path = pathOf(error.context);
    const expected = error.message ?? last?.type.name ?? 'unknown';
    const entry = byPath.get(path) ?? { expected: [], actual: preview(error.value) };
    if (!entry.expected.includes(expected)) entry.expected.push(expected);
    byPath.set(path, entry);
  }
  return [...byPath].map(([path, { expected, actual }]) => ({ path, expected: expected.join(' | '), actual }));
};

/** Builds the error text: `source: field a.b: expected X, got Y; field c: ...`. */
export const decodeError = (source: string, issues: readonly DecodeIssue[]): DecodeError => ({
  _tag: 'DecodeError',
  source,
  issues,
  message: `${source}: ${issues
    .slice(0, MESSAGE_ISSUES_MAX)
    .map((issue) => `field ${issue.path}: expected ${issue.expected}, got ${issue.actual}`)
    .join('; ')}${issues.length > MESSAGE_ISSUES_MAX ? `; and ${issues.length - MESSAGE_ISSUES_MAX} more fields` : ''}`,
});

/**
 * Decodes `input` with `codec`, naming `source` in the error.
 *
 * @example
 * const result = decodeWith(RetainParams, 'tool memory_retain')(params);
 * if (E.isLeft(result)) return toolError(result.left.message);
 */
export const decodeWith = <A, O>(codec: t.Type<A, O, unknown>, source: string): ((input: unknown) => E.Either<DecodeError, A>) => {
  // Valid input to a codec that never transforms is its own decoding: `is` finds it cheaply.
  const quick = decodesToItself(codec);
  return (input) => {
    if (quick && codec.is(input)) return E.right(input);
    return E.mapLeft((errors: t.Errors) => decodeError(source, issuesOf(errors)))(codec.decode(input));
  };
};

/** Parses JSON text, then decodes it; a syntax error names the source and the offset. */
/**
 * Deeper than any JSON this code reads (config, journals, server answers nest a few levels).
 * `JSON.parse` takes any depth, but every walk after it (the codec, redaction, the error text)
 * recurses: a server answering 200,000 nested brackets made the client throw a stack overflow
 * instead of failing the call.
 */
export const MAX_JSON_DEPTH = 128;

/** Whether JSON `text` nests objects/arrays deeper than `max`; one pass, strings skipped. */
export const jsonNestingExceeds = (text: string, max = MAX_JSON_DEPTH): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return false;
};

export const decodeJson =
  <A, O>(codec: t.Type<A, O, unknown>, source: string) =>
  (text: string): E.Either<DecodeError, A> => {
    if (jsonNestingExceeds(text)) return E.left(decodeError(source, [{ path: '(json)', expected: `JSON nested at most ${MAX_JSON_DEPTH} levels`, actual: 'deeper' }]));
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      return E.left(decodeError(source, [{ path: '(json)', expected: 'valid JSON', actual: detail }]));
    }
    return decodeWith(codec, source)(parsed);
  };

/**
 * A value the code itself states (a field's default, a table built at load) decoded by its
 * codec: a wrong one is a bug in this code, so it throws at once with the decode error.
 *
 * @example
 * const timeoutDefault = stated(PositiveInt, 30_000, 'timeoutMs default');
 */
export const stated = <A, O>(codec: t.Type<A, O, unknown>, value: unknown, source: string): A => {
  const result = decodeWith(codec, source)(value);
  if (E.isLeft(result)) throw new TypeError(result.left.message);
  return result.right;
};
