/** Timestamp parameters: ISO-like text, checked for shape and passed through exactly as given. */
import * as t from 'io-ts';

// Date, optional time (minutes, seconds, fraction) and optional zone: what the server parses.
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

const validIsoLike = (u: unknown): u is string => typeof u === 'string' && ISO_LIKE.test(u) && !Number.isNaN(Date.parse(u.replace(' ', 'T')));

export const isoLike = new t.Type<string, string, unknown>(
  'ISO timestamp',
  validIsoLike,
  (u, c) => (validIsoLike(u) ? t.success(u) : t.failure(u, c, 'an ISO timestamp such as 2026-11-22T10:00:00Z')),
  t.identity,
);

/** A retain timestamp: ISO-like, or the literal `unset` (no time for this memory). */
export const retainTimestamp = new t.Type<string, string, unknown>(
  'ISO timestamp | "unset"',
  (u): u is string => u === 'unset' || validIsoLike(u),
  (u, c) => (u === 'unset' || validIsoLike(u) ? t.success(u) : t.failure(u, c, 'an ISO timestamp such as 2026-11-22T10:00:00Z, or "unset"')),
  t.identity,
);
