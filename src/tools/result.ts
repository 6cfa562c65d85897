/**
 * What a tool hands back: readable text for the model plus structured details, or an error
 * that says what happened and what to do next. Every string leaving a tool passes `redact`.
 */
import { MESSAGE_ISSUES_MAX, type DecodeError } from '../codecs/decode.js';
import type { JsonValue } from '../codecs/codecs.js';
import { redact, redactValue } from '../config/redact.js';
import { toJson } from '../effects/kernel/trace.js';

export interface ToolResult {
  readonly text: string;
  readonly details: JsonValue;
}

export type ToolErrorCode =
  /** Parameters did not decode; `field` names the first bad one. */
  | 'invalidParams'
  /** `enabled: false` for this repository. */
  | 'disabled'
  /** The session's mode refuses this (read-only, ignored). */
  | 'sessionRefused'
  /** A bank, setting or file the call needs is not configured. */
  | 'notConfigured'
  /** The connected server lacks the endpoint or field. */
  | 'unsupportedCapability'
  /** The memory server failed (unreachable, 5xx, 4xx...). */
  | 'server'
  /** A local file could not be read or written. */
  | 'io'
  /** The request is well-formed but not allowed (e.g. a rule of memory_config). */
  | 'rejected'
  | 'aborted';

export interface ToolError {
  readonly _tag: 'ToolError';
  readonly code: ToolErrorCode;
  readonly message: string;
  readonly field?: string;
  readonly details?: JsonValue;
}

export type ToolOutcome = { readonly ok: true; readonly result: ToolResult } | { readonly ok: false; readonly error: ToolError };

/**
 * A result: `details` may be any JSON-shaped data (a wire answer, a plan); it is read into a
 * JSON value here, once, and redacted, so no tool casts its details.
 */
export const ok = (text: string, details: unknown): ToolOutcome => ({ ok: true, result: { text: redact(text), details: redactValue(toJson(details)) } });

export const fail = (code: ToolErrorCode, message: string, extra: { field?: string; details?: JsonValue } = {}): ToolOutcome => ({
  ok: false,
  error: {
    _tag: 'ToolError',
    code,
    message: redact(message),
    ...(extra.field === undefined ? {} : { field: extra.field }),
    ...(extra.details === undefined ? {} : { details: redactValue(extra.details) }),
  },
});

/** Bad parameters: the decode message already names each field and what it expected. */
export const invalidParams = (error: DecodeError): ToolOutcome =>
  fail('invalidParams', `${error.message}. Nothing was sent; fix the parameter and call again.`, {
    ...(error.issues[0] === undefined ? {} : { field: error.issues[0].path }),
    details: { issues: error.issues.slice(0, MESSAGE_ISSUES_MAX).map((i) => ({ path: i.path, expected: i.expected })), issueCount: error.issues.length },
  });
