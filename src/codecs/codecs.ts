/**
 * Codecs shared by every gate: branded ids, ISO timestamps, JSON values and the journal
 * record envelope. Each type is derived from its codec (`type X = t.TypeOf<typeof X>`).
 */
import * as t from 'io-ts';
import { registerIdentityCodec } from './identityCodec.js';

const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Checked by hand rather than with Date: machines take no clock, not even for parsing.
const isIsoTimestamp = (s: string): boolean => {
  const m = ISO_TIMESTAMP.exec(s);
  if (m === null) return false;
  const [month, day, hour, minute, second] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  const maxDay = DAYS_IN_MONTH[month - 1];
  return maxDay !== undefined && day >= 1 && day <= maxDay && hour < 24 && minute < 60 && second < 61;
};

export interface IsoTimestampBrand {
  readonly IsoTimestamp: unique symbol;
}
/** An ISO-8601 date-time with a zone, e.g. `2026-11-22T10:00:00.000Z`. */
export const IsoTimestamp = t.brand(
  t.string,
  (s): s is t.Branded<string, IsoTimestampBrand> => isIsoTimestamp(s),
  'IsoTimestamp',
);
export type IsoTimestamp = t.TypeOf<typeof IsoTimestamp>;

export interface NonEmptyStringBrand {
  readonly NonEmptyString: unique symbol;
}
export const NonEmptyString = t.brand(
  t.string,
  (s): s is t.Branded<string, NonEmptyStringBrand> => s.trim().length > 0,
  'NonEmptyString',
);
export type NonEmptyString = t.TypeOf<typeof NonEmptyString>;

export interface BankIdBrand {
  readonly BankId: unique symbol;
}
/** A memory-server bank id: 1-128 chars of letters, digits, `-`, `_`, `.`, `:`. */
export const BankId = t.brand(
  t.string,
  (s): s is t.Branded<string, BankIdBrand> => /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(s),
  'BankId',
);
export type BankId = t.TypeOf<typeof BankId>;

export interface DocumentIdBrand {
  readonly DocumentId: unique symbol;
}
export const DocumentId = t.brand(
  t.string,
  (s): s is t.Branded<string, DocumentIdBrand> => s.length > 0 && s.length <= 512,
  'DocumentId',
);
export type DocumentId = t.TypeOf<typeof DocumentId>;

export interface JobIdBrand {
  readonly JobId: unique symbol;
}
/** A retain job's id; also its idempotency key, fixed at enqueue. */
export const JobId = t.brand(
  t.string,
  (s): s is t.Branded<string, JobIdBrand> => /^[A-Za-z0-9._:-]{8,128}$/.test(s),
  'JobId',
);
export type JobId = t.TypeOf<typeof JobId>;


export interface PositiveIntBrand {
  readonly PositiveInt: unique symbol;
}
export const PositiveInt = t.brand(
  t.number,
  (n): n is t.Branded<number, PositiveIntBrand> => Number.isSafeInteger(n) && n > 0,
  'PositiveInt',
);
export type PositiveInt = t.TypeOf<typeof PositiveInt>;

export interface NonNegativeIntBrand {
  readonly NonNegativeInt: unique symbol;
}
export const NonNegativeInt = t.brand(
  t.number,
  (n): n is t.Branded<number, NonNegativeIntBrand> => Number.isSafeInteger(n) && n >= 0,
  'NonNegativeInt',
);
export type NonNegativeInt = t.TypeOf<typeof NonNegativeInt>;

/**
 * The longest delay a Node timer keeps: a longer one (a project file's `timeoutMs: 3000000000`)
 * is silently cut to 1 ms, so every call would time out at once and a periodic flush would
 * spin. Durations in config are refused past it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

export interface TimerMsBrand {
  readonly TimerMs: unique symbol;
}
/** A positive duration in ms a timer can wait (at most `MAX_TIMER_MS`, about 24.8 days). */
export const TimerMs = t.brand(PositiveInt, (n): n is t.Branded<PositiveInt, TimerMsBrand> => n <= MAX_TIMER_MS, 'TimerMs');
export type TimerMs = t.TypeOf<typeof TimerMs>;

/**
 * The longest automatic recall may hold a prompt. `recall.timeoutMs` was any `TimerMs`: a
 * project file, or a steered model through `memory_config` (in the user file too), could set
 * 2147483647, and a server that stalls (a dropped VPN, a hung proxy) then held every prompt
 * until Esc. Past 30 s a person would rather go on without memory.
 */
export const MAX_RECALL_DEADLINE_MS = 30_000;

export interface RecallDeadlineMsBrand {
  readonly RecallDeadlineMs: unique symbol;
}
/** A positive deadline in ms for automatic recall, at most `MAX_RECALL_DEADLINE_MS`. */
export const RecallDeadlineMs = t.brand(PositiveInt, (n): n is t.Branded<PositiveInt, RecallDeadlineMsBrand> => n <= MAX_RECALL_DEADLINE_MS, 'RecallDeadlineMs');
export type RecallDeadlineMs = t.TypeOf<typeof RecallDeadlineMs>;

/**
 * The longest automatic recall query, and the most earlier turns folded into it. Both were any
 * positive integer: a project file, or a steered model through `memory_config`, could make every
 * prompt clean (redact) up to the whole conversation and send it to the server, which refuses a
 * query over 500 tokens (about 2,000 characters) anyway.
 */
export const MAX_RECALL_QUERY_CHARS = 8_000;
export const MAX_RECALL_CONTEXT_TURNS = 20;

export interface RecallQueryCharsBrand {
  readonly RecallQueryChars: unique symbol;
}
/** A positive query length in characters, at most `MAX_RECALL_QUERY_CHARS`. */
export const RecallQueryChars = t.brand(PositiveInt, (n): n is t.Branded<PositiveInt, RecallQueryCharsBrand> => n <= MAX_RECALL_QUERY_CHARS, 'RecallQueryChars');
export type RecallQueryChars = t.TypeOf<typeof RecallQueryChars>;

export interface RecallContextTurnsBrand {
  readonly RecallContextTurns: unique symbol;
}
/** Earlier turns folded into the recall query, 0 to `MAX_RECALL_CONTEXT_TURNS`. */
export const RecallContextTurns = t.brand(NonNegativeInt, (n): n is t.Branded<NonNegativeInt, RecallContextTurnsBrand> => n <= MAX_RECALL_CONTEXT_TURNS, 'RecallContextTurns');
export type RecallContextTurns = t.TypeOf<typeof RecallContextTurns>;

/**
 * Bounds of the other numeric fields a project file or `memory_config` may set (round 12). Each
 * was any positive integer up to a timer's limit: a cloned repository's `.pi/memory.json`, or a
 * steered model through `memory_config` (`scope: "global"`: every project), could make every
 * tool call and retain flush wait up to 24.8 days on a server that stalls (`memory.timeoutMs`),
 * ask the server for 2 billion tokens per recall, wake a timer every millisecond
 * (`retain.flushIntervalMs: 1`), or keep whole tool results in an import's "summary".
 */
export const MAX_SERVER_TIMEOUT_MS = 60_000;
export const MAX_RECALL_TOKENS = 8_192;
export const MIN_FLUSH_INTERVAL_MS = 1_000;
export const MAX_SUMMARY_CHARS = 20_000;
export const MAX_STATUS_CHARS = 200;

export interface ServerTimeoutMsBrand {
  readonly ServerTimeoutMs: unique symbol;
}
/** A positive wait in ms for one call to the memory server, at most `MAX_SERVER_TIMEOUT_MS`. */
export const ServerTimeoutMs = t.brand(PositiveInt, (n): n is t.Branded<PositiveInt, ServerTimeoutMsBrand> => n <= MAX_SERVER_TIMEOUT_MS, 'ServerTimeoutMs');
export type ServerTimeoutMs = t.TypeOf<typeof ServerTimeoutMs>;

export interface RecallTokensBrand {
  readonly RecallTokens: unique symbol;
}
/** A positive token budget for automatic recall, at most `MAX_RECALL_TOKENS`. */
export const RecallTokens = t.brand(PositiveInt, (n): n is t.Branded<PositiveInt, RecallTokensBrand> => n <= MAX_RECALL_TOKENS, 'RecallTokens');
export type RecallTokens = t.TypeOf<typeof RecallTokens>;

export interface FlushIntervalMsBrand {
  readonly FlushIntervalMs: unique symbol;
}
/** A coalesced queue's flush period in ms: 0 for none, else `MIN_FLUSH_INTERVAL_MS` to `MAX_TIMER_MS`. */
export const FlushIntervalMs = t.brand(
  NonNegativeInt,
  (n): n is t.Branded<NonNegativeInt, FlushIntervalMsBrand> => n === 0 || (n >= MIN_FLUSH_INTERVAL_MS && n <= MAX_TIMER_MS),
  'FlushIntervalMs',
);
export type FlushIntervalMs = t.TypeOf<typeof FlushIntervalMs>;

export interface SummaryCharsBrand {
  readonly SummaryChars: unique symbol;
}
/** A positive length in characters of an imported tool result's summary, at most `MAX_SUMMARY_CHARS`. */
export const SummaryChars = t.brand(PositiveInt, (n): n is t.Branded<PositiveInt, SummaryCharsBrand> => n <= MAX_SUMMARY_CHARS, 'SummaryChars');
export type SummaryChars = t.TypeOf<typeof SummaryChars>;

export interface StatusCharsBrand {
  readonly StatusChars: unique symbol;
}
/** A positive footer length in characters, at most `MAX_STATUS_CHARS`. */
export const StatusChars = t.brand(PositiveInt, (n): n is t.Branded<PositiveInt, StatusCharsBrand> => n <= MAX_STATUS_CHARS, 'StatusChars');
export type StatusChars = t.TypeOf<typeof StatusChars>;

export interface IntervalMsBrand {
  readonly IntervalMs: unique symbol;
}
/** A period in ms, 0 for none, that a timer can wait (at most `MAX_TIMER_MS`). */
export const IntervalMs = t.brand(NonNegativeInt, (n): n is t.Branded<NonNegativeInt, IntervalMsBrand> => n <= MAX_TIMER_MS, 'IntervalMs');
export type IntervalMs = t.TypeOf<typeof IntervalMs>;

/** Epoch milliseconds, as carried in events: time enters machines as data. */
export const EpochMs = NonNegativeInt;
export type EpochMs = NonNegativeInt;

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const isJsonValue = (u: unknown, depth = 0): u is JsonValue => {
  if (depth > 64) return false;
  if (u === null || typeof u === 'boolean' || typeof u === 'string') return true;
  if (typeof u === 'number') return Number.isFinite(u);
  if (Array.isArray(u)) return u.every((v) => isJsonValue(v, depth + 1));
  if (typeof u === 'object') {
    const proto = Object.getPrototypeOf(u);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(u).every((v) => isJsonValue(v, depth + 1));
  }
  return false;
};

/** Whether `u` is one of `values` (a guard, so the list's own type carries over). */
export const isOneOf = <V extends string>(values: readonly V[], u: unknown): u is V => typeof u === 'string' && values.some((v) => v === u);

/**
 * One of a fixed list of strings, decoding to itself (what `t.keyof` does, typed by the list
 * rather than by a record built to hold its keys).
 */
export const oneOfStrings = <V extends string>(values: readonly [V, ...V[]], name = values.join(' | ')): t.Type<V, V, unknown> => {
  const is = (u: unknown): u is V => isOneOf(values, u);
  return registerIdentityCodec(new t.Type<V, V, unknown>(name, is, (u, c) => (is(u) ? t.success(u) : t.failure(u, c)), t.identity));
};

/** A plain object or a null-prototype one, not an array: what a JSON object decodes to. */
export const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * `text` parsed as JSON and checked to be a JsonValue: JSON.parse gives one unless it nests
 * deeper than 64 levels or holds a number beyond a double (1e999), which is refused here.
 */
export const parseJsonValue = (text: string): JsonValue => {
  const parsed: unknown = JSON.parse(text);
  if (!isJsonValue(parsed)) throw new SyntaxError('not a JSON value: nested deeper than 64 levels, or a number beyond a double');
  return parsed;
};

/** A JSON copy of `value`: what JSON.stringify keeps of it (undefined becomes null). */
export const jsonCopy = (value: unknown): JsonValue => parseJsonValue(JSON.stringify(value ?? null));

/** Any value that survives a JSON round trip unchanged (finite numbers, plain objects). */
export const JsonValue = registerIdentityCodec(
  new t.Type<JsonValue, JsonValue, unknown>(
    'JsonValue',
    (u): u is JsonValue => isJsonValue(u),
    (u, c) => (isJsonValue(u) ? t.success(u) : t.failure(u, c, 'a JSON value')),
    t.identity,
  ),
);

/** A string map, as memory metadata is on the wire. */
export const StringMap = t.record(t.string, t.string);
export type StringMap = t.TypeOf<typeof StringMap>;

/**
 * One journal record, one line of a JSONL journal. `checksum` is the hex SHA-256 (first 16
 * chars) of the canonical JSON of `{ v, seq, type, at, payload }`; it is computed by the
 * adapter that writes the line, since machines do no hashing.
 */
export const JournalRecord = t.intersection([
  t.type({
    v: t.literal(1),
    seq: NonNegativeInt,
    type: NonEmptyString,
    at: IsoTimestamp,
    payload: JsonValue,
    checksum: t.string,
  }),
  t.partial({ machine: t.string }),
]);
export type JournalRecord = t.TypeOf<typeof JournalRecord>;

/** `codec`, or `null` (a JSON field the server may send as null). */
export const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);
