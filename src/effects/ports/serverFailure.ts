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

/** Where a person changes the server, its key variable or the timeout: pi's settings editor (a shell has none). */
const SETTINGS = "pi's /memory settings";

/** A failure in a person's words: what happened, and the next step when there is one. */
export interface FailureText {
  readonly what: string;
  /** What to do next, naming only commands that exist; none when there is nothing to do (it is retried, or was cancelled). */
  readonly next?: string;
}

const detailOf = (detail: string | undefined): string => (detail === undefined ? '' : `: ${detail}`);

/**
 * The one description of a failure, shared by every place that shows one (tools, the hub, the
 * status lines, `/memory:doctor` and the shell's `doctor`, setup). `start` is the command that
 * starts the embedded server where the URL points, when a server started here could answer
 * there (`startServerCommand`); without it the next step says to check the server. Contains no
 * secret: failures are built from status, code and redacted detail only.
 */
export const failureText = (f: ServerFailure, start?: string): FailureText => {
  const startOrChoose = `${start === undefined ? 'check that the server there is running' : `start it with ${start}`}, or choose another server in ${SETTINGS}`;
  switch (f._tag) {
    case 'unreachable':
      return { what: `memory server unreachable (${connectionWords(f.message)})`, next: startOrChoose };
    case 'timeout':
      return { what: `memory server did not answer in time (${f.message})`, next: `it may be hung or overloaded: restart it, or raise memory.timeoutMs in ${SETTINGS}` };
    case 'aborted':
      return { what: 'request cancelled before the memory server answered' };
    case 'rateLimited':
      return f.retryAfterMs === undefined
        ? { what: 'memory server is rate limiting requests', next: 'try again shortly' }
        : { what: 'memory server is rate limiting requests', next: `retry in ${Math.ceil(f.retryAfterMs / 1000)} s` };
    case 'serverError':
      return { what: `memory server failed with HTTP ${f.status}${detailOf(f.detail)}`, next: 'it will be retried' };
    case 'unauthorized':
      return { what: `memory server rejected the API key (HTTP 401${detailOf(f.detail)})`, next: `set a valid key in the variable named by memory.apiKeyEnv (${SETTINGS} shows which)` };
    case 'forbidden':
      return { what: `memory server refused the request (HTTP 403${detailOf(f.detail)})`, next: "check the key's permissions" };
    case 'notFound':
      return { what: `memory server has no such resource (HTTP 404${detailOf(f.detail)})`, next: `check the server URL and the bank in ${SETTINGS}` };
    case 'gone':
      return { what: `memory server retired this endpoint (HTTP 410${detailOf(f.detail)})` };
    case 'invalidRequest':
      return { what: `memory server rejected the request (HTTP ${f.status}): ${f.detail}` };
    case 'badResponse':
      return { what: `memory server sent a response this client cannot read (${f.detail})`, next: `check that the server URL in ${SETTINGS} points at a Hindsight-compatible server` };
    case 'unsupportedCapability':
      return { what: `${f.feature} is not supported by the memory server${f.serverVersion === undefined ? '' : ` (version ${f.serverVersion})`}`, next: f.remediation };
    case 'circuitOpen':
      // The server did not answer several times: the same next step as unreachable (pi 1.6's hub said only "cool-down").
      return { what: 'memory server did not answer several times (calls resume after a short cool-down)', next: startOrChoose };
    case 'responseTooLarge':
      return {
        what: `memory server answered ${f.route} with more than ${Math.round(f.limitBytes / (1024 * 1024))} MB; the answer was dropped after that much`,
        next: `ask for less (a lower limit or max_tokens), or check that the server URL in ${SETTINGS} points at a Hindsight server`,
      };
    case 'blocked':
      return { what: `nothing was sent: ${f.reason}` };
  }
};

/** One line a user can act on: what happened and what to do next (`failureText` joined). */
export const describeFailure = (f: ServerFailure, start?: string): string => {
  const text = failureText(f, start);
  return text.next === undefined ? text.what : `${text.what}; ${text.next}`;
};
