/**
 * The HTTP transport: one `got.extend` instance per base URL over a keep-alive agent shared per
 * base URL. Statuses are returned, never thrown (`throwHttpErrors: false`); got retries only
 * when the caller passes a `RetryPlan` (the idempotent reads behind interactive tools), and the
 * instance default is `retry: 0`, so a retain the retain-delivery machine owns is sent once.
 *
 * `send` never rejects: got's typed errors are reduced to their name, code and timeout event,
 * and its `beforeError` hook strips the API key and redacts the message, so no error that ever
 * held a header leaves this module whole.
 *
 * A large body is sent with `Expect: 100-continue`: a server that refuses it (a 413 over its
 * body limit) answers before the body is sent, so the refusal is read as the server's status and
 * never as the ECONNRESET or EPIPE of a connection closed under a 40 MB upload. got writes a body
 * as soon as the request is made, so a large one is handed to it as a one-chunk iterable that
 * yields only once the server says continue (or after a wait, for a server that never does).
 */
import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { CancelError, RequestError, TimeoutError, type Got, type Response, type RetryOptions } from 'got';
import { MAX_TIMER_MS } from '../../codecs/codecs.js';
import { redact } from '../../config/redact.js';
import { jsonEncode } from '../../codecs/jsonEncode.js';
import { DEFAULT_MAX_RESPONSE_BYTES, RESPONSE_TOO_LARGE, type TransportFacts } from './failures.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface HttpRequest {
  readonly method: HttpMethod;
  /** Path from the server root, already percent-encoded, starting with `/`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  /** Largest body accepted; a larger one is cut off at this size and fails (default 8 MB). */
  readonly maxResponseBytes?: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly body: string;
  readonly retryAfter?: string;
  /** Request fields the server ignored (`X-Ignored-Params`), lower-cased. */
  readonly ignoredParams: readonly string[];
  /** The embedded server marks every response with `X-Hindsight-Embedded: 1`. */
  readonly embedded: boolean;
}

export type SendResult = { readonly ok: true; readonly response: HttpResponse } | { readonly ok: false; readonly facts: TransportFacts };

/**
 * How got retries one call. `delayAfter` sees each failed attempt (`attempt` counts from 1) and
 * answers the wait before the next one, or undefined to stop; `nextTimeoutMs` bounds the
 * attempt that follows (what is left of the caller's deadline).
 */
export interface RetryPlan {
  readonly limit: number;
  readonly delayAfter: (attempt: number, outcome: SendResult) => number | undefined;
  readonly nextTimeoutMs: () => number;
}

export interface SendOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
  readonly retry?: RetryPlan;
}

export interface Transport {
  send(request: HttpRequest, options: SendOptions): Promise<SendResult>;
}

export interface TransportOptions {
  /** The server root; user:pass in it become basic-auth credentials, never part of a message. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly userAgent: string;
}

const IDLE_SOCKET_MS = 4_000;

/** Bodies from this size on wait for the server's `100 Continue` before they are sent. */
export const EXPECT_CONTINUE_BYTES = 1024 * 1024;
/** How long a large body waits for `100 Continue`: a server that never sends one gets it then (as curl does). */
const CONTINUE_WAIT_MS = 1_000;

const agents = new Map<string, { http: HttpAgent; https: HttpsAgent }>();

const agentsFor = (baseUrl: string): { http: HttpAgent; https: HttpsAgent } => {
  const existing = agents.get(baseUrl);
  if (existing !== undefined) return existing;
  // Free keep-alive sockets are unref'd by the agent, so they never hold the host open. The
  // agent drops a socket idle for 4 s, before servers' usual 5 s keep-alive timeout (uvicorn,
  // node:http) closes it under a request that would then fail with a reset.
  const options = { keepAlive: true, maxSockets: 16, timeout: IDLE_SOCKET_MS };
  const created = { http: new HttpAgent(options), https: new HttpsAgent(options) };
  agents.set(baseUrl, created);
  return created;
};

const searchParamsOf = (query: Readonly<Record<string, QueryValue>> | undefined): URLSearchParams | undefined => {
  if (query === undefined) return undefined;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    // FastAPI list parameters are sent exploded: `?tags=a&tags=b`.
    if (typeof value === 'object') for (const item of value) params.append(key, item);
    else params.append(key, String(value));
  }
  return params.size === 0 ? undefined : params;
};

const headerText = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** A timeout a timer can keep: Node cuts a longer delay to 1 ms, which would time out at once. */
const timerMs = (ms: number): number => Math.min(MAX_TIMER_MS, Math.max(1, Math.floor(ms)));

const TOO_LARGE: TransportFacts = { name: 'ResponseTooLarge', code: RESPONSE_TOO_LARGE, event: undefined };

const responseOf = (incoming: Response): HttpResponse => {
  const retryAfter = headerText(incoming.headers['retry-after']);
  const ignored = headerText(incoming.headers['x-ignored-params']);
  return {
    status: incoming.statusCode,
    body: typeof incoming.body === 'string' ? incoming.body : '',
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ignoredParams:
      ignored === undefined
        ? []
        : ignored
            .split(',')
            .map((name) => name.trim().toLowerCase())
            .filter((name) => name !== ''),
    embedded: headerText(incoming.headers['x-hindsight-embedded']) === '1',
  };
};

/** What got's typed error says, and nothing else of it. */
const factsOf = (error: unknown): TransportFacts => {
  if (error instanceof TimeoutError) return { name: error.name, code: error.code, event: error.event };
  if (error instanceof RequestError) return { name: error.name, code: error.code, event: undefined };
  return { name: error instanceof Error ? error.name : 'Error', code: undefined, event: undefined };
};

/** A failed attempt as the client sees it: a status (with its body) or transport facts. */
const outcomeOf = (error: RequestError): SendResult =>
  error.response === undefined ? { ok: false, facts: factsOf(error) } : { ok: true, response: responseOf(error.response) };

/** The one got instance of a base URL: agents, fixed headers, no retry, no redirects, redaction. */
const clientFor = (options: TransportOptions): Got => {
  const url = new URL(options.baseUrl);
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  const root = url.toString().replace(/\/+$/, '');
  return got.extend({
    prefixUrl: root,
    agent: agentsFor(options.baseUrl),
    ...(username === '' ? {} : { username }),
    ...(password === '' ? {} : { password }),
    headers: {
      'user-agent': options.userAgent,
      accept: 'application/json',
      ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    },
    responseType: 'text',
    throwHttpErrors: false,
    followRedirect: false,
    retry: { limit: 0 },
    hooks: {
      beforeError: [
        (error) => {
          // The error holds the request options: the key goes, and the message is redacted
          // in case a server or proxy echoed a secret into it.
          delete error.options.headers.authorization;
          error.message = redact(error.message);
          return error;
        },
      ],
    },
  });
};

/**
 * A large body held back until the server asks for it. `watch` is given got's request: its
 * `continue` (or the wait) releases the body; a final answer first means it is never sent, and
 * got, which destroys its request once the answer is read, closes that connection mid-request
 * instead of reusing it.
 */
const heldBody = (bytes: Buffer): { readonly body: AsyncIterable<Buffer>; readonly watch: (outgoing: ClientRequest) => void } => {
  let release: (send: boolean) => void = () => undefined;
  const decided = new Promise<boolean>((resolve) => {
    release = resolve;
  });
  const timer = setTimeout(() => release(true), CONTINUE_WAIT_MS);
  void decided.then(() => clearTimeout(timer));
  return {
    body: (async function* () {
      if (await decided) yield bytes;
      // Refused first: never yield and never end, so not a byte of the body is written.
      else await new Promise<never>(() => undefined);
    })(),
    watch: (outgoing) => {
      outgoing.once('continue', () => release(true));
      outgoing.once('response', () => release(false));
    },
  };
};

export const createTransport = (options: TransportOptions): Transport => {
  const http = clientFor(options);

  /** got's retry options for one call: our plan decides, got waits and resends. */
  const retryOf = (plan: RetryPlan): Partial<RetryOptions> => ({
    limit: plan.limit,
    methods: ['GET', 'PUT', 'POST', 'PATCH', 'DELETE'],
    calculateDelay: ({ attemptCount, error }) => {
      if (attemptCount > plan.limit) return 0;
      const delay = plan.delayAfter(attemptCount, outcomeOf(error));
      // got reads 0 as "stop"; a wait of 0 ms is sent as 1.
      return delay === undefined ? 0 : Math.max(1, delay);
    },
  });

  return {
    send: async (request, { signal, timeoutMs, retry }) => {
      const limit = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      const searchParams = searchParamsOf(request.query);
      // The same text as JSON.stringify; a retain job's content was encoded when it was queued (`jsonEncode`).
      const text = request.body === undefined ? undefined : jsonEncode(request.body);
      const bytes = text === undefined ? undefined : Buffer.from(text, 'utf8');
      const held = bytes !== undefined && bytes.length >= EXPECT_CONTINUE_BYTES ? heldBody(bytes) : undefined;
      const pending = http(request.path.slice(1), {
        method: request.method,
        ...(bytes === undefined ? {} : { body: held?.body ?? bytes, headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), ...(held === undefined ? {} : { expect: '100-continue' }) } }),
        ...(searchParams === undefined ? {} : { searchParams }),
        ...(signal === undefined ? {} : { signal }),
        timeout: { request: timerMs(timeoutMs) },
        // A held body is an iterable got reads once: a large body is sent once.
        ...(retry === undefined || held !== undefined
          ? {}
          : {
              retry: retryOf(retry),
              hooks: {
                beforeRetry: [
                  (error: RequestError) => {
                    error.options.timeout = { request: timerMs(retry.nextTimeoutMs()) };
                  },
                ],
              },
            }),
      });
      if (held !== undefined) pending.on('request', held.watch);
      // Cut the body off at the cap: a declared length over it at once, otherwise as bytes
      // arrive, so no more than the cap (plus one chunk) is ever held.
      let tooLarge = false;
      pending.on('downloadProgress', (progress) => {
        if (tooLarge || ((progress.total === undefined || progress.total <= limit) && progress.transferred <= limit)) return;
        tooLarge = true;
        pending.cancel();
      });
      try {
        return { ok: true, response: responseOf(await pending) };
      } catch (error) {
        if (tooLarge && error instanceof CancelError) return { ok: false, facts: TOO_LARGE };
        return { ok: false, facts: factsOf(error) };
      }
    },
  };
};
