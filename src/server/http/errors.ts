/**
 * Errors a route raises. Every error leaves the server as `{"detail": ...}`, like FastAPI:
 * a string for business errors, an array of `{type, loc, msg, input}` for validation errors.
 */
export interface ValidationIssue {
  readonly type: string;
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly input?: unknown;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | readonly ValidationIssue[] | Readonly<Record<string, unknown>>,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
    this.name = 'HttpError';
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
