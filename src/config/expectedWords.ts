/**
 * What a config field takes, in words a person reads: a refused value said "expected
 * RecallDeadlineMs (got "fast")", the name of a codec in this source, not of anything in the
 * docs or the settings editor (seventh pass).
 */
import {
  MAX_RECALL_CONTEXT_TURNS,
  MAX_RECALL_DEADLINE_MS,
  MAX_RECALL_QUERY_CHARS,
  MAX_RECALL_TOKENS,
  MAX_SERVER_TIMEOUT_MS,
  MAX_STATUS_CHARS,
  MAX_SUMMARY_CHARS,
  MAX_TIMER_MS,
  MIN_FLUSH_INTERVAL_MS,
} from '../codecs/codecs.js';

const n = (v: number): string => v.toLocaleString('en-US');

const WORDS: Readonly<Record<string, string>> = {
  PositiveInt: 'a whole number above 0',
  NonNegativeInt: 'a whole number, 0 or more',
  TimerMs: `a whole number of milliseconds, 1 to ${n(MAX_TIMER_MS)}`,
  RecallDeadlineMs: `a whole number of milliseconds, 1 to ${n(MAX_RECALL_DEADLINE_MS)}`,
  ServerTimeoutMs: `a whole number of milliseconds, 1 to ${n(MAX_SERVER_TIMEOUT_MS)}`,
  IntervalMs: `a whole number of milliseconds, 0 to ${n(MAX_TIMER_MS)}`,
  FlushIntervalMs: `0, or a whole number of milliseconds from ${n(MIN_FLUSH_INTERVAL_MS)} to ${n(MAX_TIMER_MS)}`,
  RecallQueryChars: `a whole number of characters, 1 to ${n(MAX_RECALL_QUERY_CHARS)}`,
  RecallContextTurns: `a whole number of turns, 0 to ${n(MAX_RECALL_CONTEXT_TURNS)}`,
  RecallTokens: `a whole number of tokens, 1 to ${n(MAX_RECALL_TOKENS)}`,
  SummaryChars: `a whole number of characters, 1 to ${n(MAX_SUMMARY_CHARS)}`,
  StatusChars: `a whole number of characters, 1 to ${n(MAX_STATUS_CHARS)}`,
  ConfigText: 'text of 1 to 1,024 characters, no control characters',
  EnvVarName: 'the name of an environment variable (letters, digits and _, not starting with a digit)',
  HttpUrl: 'an http:// or https:// URL',
  ConfigPath: 'a file path',
  ScopeTag: 'a tag of 1 to 128 characters, no control characters or surrounding blanks',
  Origin: 'an origin such as https://memory.example.com',
  BankId: 'a bank id',
  NonEmptyString: 'text that is not empty',
  IsoTimestamp: 'an ISO date and time',
};

/** Replaces every codec name in `expected` ("RecallDeadlineMs | not set") with its words. */
export const expectedWords = (expected: string): string =>
  expected.replace(/\b[A-Z][A-Za-z]+\b/g, (name) => WORDS[name] ?? name);
