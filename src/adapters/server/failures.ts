/**
 * Maps what the network and the server said into a `ServerFailure`.
 *
 * A failure is built only from a status, an error code and the server's redacted `detail`:
 * a transport error can carry the request (headers included), so no error message or object
 * ever leaves this module.
 */
import { jsonNestingExceeds } from '../../codecs/decode.js';
import { sanitizeMemoryText } from '../../config/memoryText.js';
import { redact } from '../../config/redact.js';
import type { ServerFailure } from '../../effects/ports/memoryServer.js';

/** Default cap on a response body: a recall answer is kilobytes; 8 MB is far beyond any real one. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The transport code of a body cut off at its cap. */
export const RESPONSE_TOO_LARGE = 'ERR_AGENT_MEMORY_RESPONSE_TOO_LARGE';

/** The prefix the embedded server (and this client) use for "the server cannot do this". */
export const CAPABILITY_PREFIX = 'capability_unavailable:';

const DETAIL_MAX = 300;

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ECONNABORTED',
  'EADDRNOTAVAIL',
  'UND_ERR_SOCKET',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_READING_RESPONSE_STREAM',
  'HPE_INVALID_CONSTANT',
]);

/**
 * A server's detail as one safe line: what a server says reaches the model in a tool's error, so
 * it is rendered like memory (invisible, bidi and tag characters removed, fence-like tags
 * escaped), then redacted and folded to one line.
 */
const clip = (text: string): string => {
  const clean = redact(sanitizeMemoryText(text).text).replace(/\s+/g, ' ').trim();
  return clean.length > DETAIL_MAX ? `${clean.slice(0, DETAIL_MAX)}…` : clean;
};

const describeLoc = (loc: unknown): string =>
  Array.isArray(loc) ? loc.filter((part) => part !== 'body').map(String).join('.') : '';

/**
 * The server's `detail`, as one readable line: a string as is, a FastAPI validation list
 * flattened to `loc: msg; loc: msg`, anything else as compact JSON. Always redacted and clipped.
 */
export const detailText = (body: unknown): string | undefined => {
  if (typeof body !== 'object' || body === null) return undefined;
  const detail = 'detail' in body ? body.detail : undefined;
  if (detail === undefined || detail === null) return undefined;
  if (typeof detail === 'string') return clip(detail);
  if (Array.isArray(detail)) {
    const parts = detail.map((entry: unknown) => {
      if (typeof entry !== 'object' || entry === null) return String(entry);
      const loc = 'loc' in entry ? entry.loc : undefined;
      const msg = 'msg' in entry ? entry.msg : undefined;
      const where = describeLoc(loc);
      const what = typeof msg === 'string' ? msg : JSON.stringify(entry);
      return where === '' ? what : `${where}: ${what}`;
    });
    return clip(parts.join('; '));
  }
  try {
    return clip(JSON.stringify(detail));
  } catch {
    return undefined;
  }
};

const parseBody = (text: string): unknown => {
  // Too deep to walk (the detail is flattened recursively): no detail rather than a stack overflow.
  if (jsonNestingExceeds(text)) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch {
    return undefined;
  }
};

/** `Retry-After` as milliseconds from `now`: delta seconds or an HTTP date; undefined when unreadable. */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
};

/** A capability refusal in a 400 detail: `capability_unavailable: <feature> is not supported …`. */
export const capabilityFromDetail = (detail: string | undefined): string | undefined => {
  if (detail === undefined) return undefined;
  const at = detail.indexOf(CAPABILITY_PREFIX);
  if (at < 0) return undefined;
  const rest = detail.slice(at + CAPABILITY_PREFIX.length).trim();
  const feature = rest.replace(/\s+is not supported.*$/i, '').trim();
  return feature === '' ? 'a requested feature' : feature;
};

export interface HttpOutcome {
  readonly status: number;
  readonly body: string;
  readonly retryAfter?: string;
}

/** A non-2xx response as a failure. */
export const failureFromStatus = (outcome: HttpOutcome, now: number, serverVersion?: string): ServerFailure => {
  const { status } = outcome;
  const detail = detailText(parseBody(outcome.body));
  const withDetail = <T extends object>(base: T): T & { detail?: string } =>
    detail === undefined ? base : { ...base, detail };
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(outcome.retryAfter, now);
    return retryAfterMs === undefined ? { _tag: 'rateLimited' } : { _tag: 'rateLimited', retryAfterMs };
  }
  if (status === 401) return withDetail({ _tag: 'unauthorized' as const });
  if (status === 403) return withDetail({ _tag: 'forbidden' as const });
  if (status === 404) return withDetail({ _tag: 'notFound' as const });
  if (status === 410) return withDetail({ _tag: 'gone' as const });
  if (status === 408 || status >= 500) return withDetail({ _tag: 'serverError' as const, status });
  const feature = capabilityFromDetail(detail);
  if (feature !== undefined) {
    return {
      _tag: 'unsupportedCapability',
      feature,
      ...(serverVersion === undefined ? {} : { serverVersion }),
      remediation: 'the server refused it; call without this option or use a server that supports it',
    };
  }
  return { _tag: 'invalidRequest', status, detail: detail ?? `HTTP ${status} with no detail` };
};

/** The few facts read off got's typed error (`src/adapters/server/http.ts`); nothing else of it is kept. */
export interface TransportFacts {
  readonly name: string;
  readonly code: string | undefined;
  /** got's timeout event (`request`, `connect`, …), when it was a timeout. */
  readonly event: string | undefined;
}

/**
 * A thrown transport error as a failure. `aborted` says the caller's signal fired; a deadline
 * or per-attempt timeout is `timeout`; connection-level codes are `unreachable`.
 */
export const failureFromTransport = (facts: TransportFacts, context: { aborted: boolean; timeoutMs: number; route: string; limitBytes?: number }): ServerFailure => {
  if (facts.code === RESPONSE_TOO_LARGE) return { _tag: 'responseTooLarge', route: context.route, limitBytes: context.limitBytes ?? DEFAULT_MAX_RESPONSE_BYTES };
  if (context.aborted) return { _tag: 'aborted' };
  if (facts.name === 'TimeoutError' || facts.code === 'ETIMEDOUT') {
    return { _tag: 'timeout', message: `${context.route}: no answer within ${context.timeoutMs} ms` };
  }
  if (facts.name === 'AbortError' || facts.code === 'ERR_ABORTED') return { _tag: 'aborted' };
  // Node refuses a header value with control characters before sending: only the key can have one.
  if (facts.code === 'ERR_INVALID_CHAR' || facts.code === 'ERR_INVALID_HTTP_TOKEN') {
    return { _tag: 'unauthorized', detail: 'the API key contains characters an HTTP header cannot carry (a newline?); fix the value of the variable named by memory.apiKeyEnv' };
  }
  if (facts.code !== undefined && UNREACHABLE_CODES.has(facts.code)) {
    return { _tag: 'unreachable', message: `${context.route}: ${facts.code}` };
  }
  if (facts.name === 'ParseError' || facts.code === 'ERR_BODY_PARSE_FAILURE') {
    return { _tag: 'badResponse', detail: `${context.route}: body is not valid JSON` };
  }
  // An unknown transport failure is treated as the network being unavailable: retry-safe.
  return { _tag: 'unreachable', message: `${context.route}: ${facts.code ?? facts.name}` };
};
