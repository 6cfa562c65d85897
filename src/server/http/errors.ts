/**
 * Errors a route raises. Every error leaves the server as `{"detail": ...}`, like FastAPI:
 * a string for business errors, an array of `{type, loc, msg}` for validation errors.
 *
 * Unlike FastAPI, an issue never carries the rejected `input`: echoing it reflected whatever
 * a caller sent (a deep body, a planted payload) back out. String details are clipped.
 */
export interface ValidationIssue {
  readonly type: string;
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  /** Accepted from callers for FastAPI parity, never sent. */
  readonly input?: unknown;
}

const DETAIL_MAX = 500;

const clip = (text: string): string => (text.length > DETAIL_MAX ? `${text.slice(0, DETAIL_MAX)}…` : text);

type Detail = string | readonly ValidationIssue[] | Readonly<Record<string, unknown>>;

const isIssues = (detail: Detail): detail is readonly ValidationIssue[] => Array.isArray(detail);

const withoutInput = (detail: Detail): Detail => {
  if (typeof detail === 'string') return clip(detail);
  if (!isIssues(detail)) return detail;
  return detail.map(({ type, loc, msg }) => ({ type, loc: loc.slice(0, 16).map((part) => (typeof part === 'string' ? part.slice(0, 100) : part)), msg: clip(msg) }));
};

export class HttpError extends Error {
  readonly detail: Detail;
  constructor(
    readonly status: number,
    detail: Detail,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof detail === 'string' ? clip(detail) : `HTTP ${status}`);
    this.name = 'HttpError';
    this.detail = withoutInput(detail);
  }
}

export const badRequest = (detail: string): HttpError => new HttpError(400, detail);
export const notFound = (detail = 'Not Found'): HttpError => new HttpError(404, detail);
export const conflict = (detail: string): HttpError => new HttpError(409, detail);
export const unprocessable = (issues: readonly ValidationIssue[] | string): HttpError => new HttpError(422, issues);

/** FastAPI's model-validator failure: `Value error, <message>` at `loc`. */
export const valueError = (loc: readonly (string | number)[], message: string, input?: unknown): HttpError =>
  unprocessable([{ type: 'value_error', loc, msg: `Value error, ${message}`, ...(input === undefined ? {} : { input }) }]);

/** The prefix the client adapter recognises for a feature the embedded server lacks (reference 8.3). */
export const CAPABILITY_PREFIX = 'capability_unavailable:';

export const capabilityUnavailable = (feature: string): HttpError =>
  badRequest(`${CAPABILITY_PREFIX} ${feature} is not supported by the embedded server`);
