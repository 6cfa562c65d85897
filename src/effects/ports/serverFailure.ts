/**
 * What a memory-server call can fail with, how a caller should treat each failure, and the
 * text a user reads for it. Plain data: no wire codecs, no I/O.
 */
export type ServerFailure =
  | { readonly _tag: 'unreachable'; readonly message: string }
  | { readonly _tag: 'timeout'; readonly message: string }
  | { readonly _tag: 'aborted' }
  | { readonly _tag: 'rateLimited'; readonly retryAfterMs?: number }
  | { readonly _tag: 'serverError'; readonly status: number; readonly detail?: string }
  | { readonly _tag: 'unauthorized'; readonly detail?: string }
  | { readonly _tag: 'forbidden'; readonly detail?: string }
  | { readonly _tag: 'notFound'; readonly detail?: string }
  | { readonly _tag: 'gone'; readonly detail?: string }
  | { readonly _tag: 'invalidRequest'; readonly status: number; readonly detail: string }
  | { readonly _tag: 'badResponse'; readonly detail: string }
  /** The answer was larger than the client accepts: read no further than the cap, never buffered whole. */
  | { readonly _tag: 'responseTooLarge'; readonly route: string; readonly limitBytes: number }
  | {
      readonly _tag: 'unsupportedCapability';
      readonly feature: string;
      readonly serverVersion?: string;
      readonly remediation: string;
    }
  | { readonly _tag: 'circuitOpen'; readonly retryAt: number }
  /** Never sent: memory is off for this project by the trust rule (`src/config/trust.ts`). */
  | { readonly _tag: 'blocked'; readonly reason: string };

export type ServerFailureTag = ServerFailure['_tag'];

/** What a caller does with a failure: retry later, pause the queue, dead-letter the job, or report it. */
export type FailureClass = 'retry' | 'pause' | 'deadLetter' | 'report';

export const failureClass = (f: ServerFailure): FailureClass => {
  switch (f._tag) {
    case 'unreachable':
    case 'timeout':
    case 'rateLimited':
    case 'serverError':
    case 'circuitOpen':
      return 'retry';
    case 'unauthorized':
    case 'forbidden':
    case 'notFound':
    case 'gone':
    case 'blocked':
      return 'pause';
    case 'invalidRequest':
      return 'deadLetter';
    case 'aborted':
    case 'badResponse':
    case 'responseTooLarge':
    case 'unsupportedCapability':
      return 'report';
  }
};

const CONNECTION_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name did not resolve',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'the connection was reset',
};

/**
 * An unreachable failure's message ("GET /version: ECONNREFUSED") in words ("connection
 * refused"), for a line that says what to do elsewhere (setup's choices, the doctor's error).
 */
export const connectionWords = (message: string): string => {
  const code = /: (\w+)$/.exec(message)?.[1];
  return (code === undefined ? undefined : CONNECTION_WORDS[code]) ?? message;
};

/**
 * One line a user can act on: what happened and what to do next. Contains no secret, since
 * failures are built from status, code and redacted detail only.
 */
export const describeFailure = (f: ServerFailure): string => {
  switch (f._tag) {
    case 'unreachable':
      return `memory server unreachable (${f.message}); check that it is running and that memory.baseUrl is right`;
    case 'timeout':
      return `memory server did not answer in time (${f.message}); it may be overloaded, try again or raise memory.timeoutMs`;
    case 'aborted':
      return 'request cancelled before the memory server answered';
    case 'rateLimited':
      return f.retryAfterMs === undefined
        ? 'memory server is rate limiting requests; try again shortly'
        : `memory server is rate limiting requests; retry in ${Math.ceil(f.retryAfterMs / 1000)} s`;
    case 'serverError':
      return `memory server failed with HTTP ${f.status}${f.detail === undefined ? '' : `: ${f.detail}`}; it will be retried`;
    case 'unauthorized':
      return `memory server rejected the API key (HTTP 401${f.detail === undefined ? '' : `: ${f.detail}`}); set a valid key in the variable named by memory.apiKeyEnv`;
    case 'forbidden':
      return `memory server refused the request (HTTP 403${f.detail === undefined ? '' : `: ${f.detail}`}); check the key's permissions`;
    case 'notFound':
      return `memory server has no such resource (HTTP 404${f.detail === undefined ? '' : `: ${f.detail}`}); check memory.baseUrl and the bank id`;
    case 'gone':
      return `memory server retired this endpoint (HTTP 410${f.detail === undefined ? '' : `: ${f.detail}`})`;
    case 'invalidRequest':
      return `memory server rejected the request (HTTP ${f.status}): ${f.detail}`;
    case 'badResponse':
      return `memory server sent a response this client cannot read (${f.detail}); check that memory.baseUrl points at a Hindsight-compatible server`;
    case 'unsupportedCapability':
      return `${f.feature} is not supported by the memory server${f.serverVersion === undefined ? '' : ` (version ${f.serverVersion})`}; ${f.remediation}`;
    case 'circuitOpen':
      return 'memory server marked offline after repeated failures; calls resume after a short cool-down';
    case 'responseTooLarge':
      return `memory server answered ${f.route} with more than ${Math.round(f.limitBytes / (1024 * 1024))} MB; the answer was dropped after that much. Ask for less (a lower limit or max_tokens), or check that memory.baseUrl points at a Hindsight server`;
    case 'blocked':
      return `nothing was sent: ${f.reason}`;
  }
};

