/**
 * The HTTP transport: one got instance per (base URL, key, user agent), over a keep-alive
 * agent shared per base URL. got's own retry is off (the client owns retries, bounded by the
 * caller's deadline) and HTTP errors do not throw (the client maps every status itself).
 *
 * `send` never rejects: a transport error is reduced to its name, code and timeout event.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { type Got } from 'got';
import { DEFAULT_MAX_RESPONSE_BYTES, RESPONSE_TOO_LARGE, transportFacts, type TransportFacts } from './failures.js';

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

export interface Transport {
  send(request: HttpRequest, options: { readonly signal?: AbortSignal; readonly timeoutMs: number }): Promise<SendResult>;
}

export interface TransportOptions {
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly userAgent: string;
}

const IDLE_SOCKET_MS = 4_000;

const agents = new Map<string, { http: HttpAgent; https: HttpsAgent }>();

const agentsFor = (baseUrl: string): { http: HttpAgent; https: HttpsAgent } => {
  const existing = agents.get(baseUrl);
  if (existing !== undefined) return existing;
  // Free keep-alive sockets are unref'd by the agent, so they never hold the host open. The
  // agent drops a socket idle for 4 s, before servers' usual 5 s keep-alive timeout (uvicorn,
  // node:http) closes it under a request that would then fail with a reset. Active requests
  // are untouched: only got's own timeout ends them.
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
    if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(key, item);
    else params.append(key, String(value));
  }
  return params;
};

const headerText = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

const instances = new Map<string, Got>();

const instanceFor = (options: TransportOptions): Got => {
  const key = JSON.stringify([options.baseUrl, options.apiKey ?? null, options.userAgent]);
  const existing = instances.get(key);
  if (existing !== undefined) return existing;
  const agent = agentsFor(options.baseUrl);
  const created = got.extend({
    prefixUrl: options.baseUrl,
    agent: { http: agent.http, https: agent.https },
    headers: {
      'user-agent': options.userAgent,
      accept: 'application/json',
      ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
    },
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    responseType: 'text',
  });
  instances.set(key, created);
  return created;
};

export const createTransport = (options: TransportOptions): Transport => {
  const client = instanceFor(options);
  return {
    send: async (request, { signal, timeoutMs }) => {
      const limit = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      let tooLarge = false;
      try {
        const searchParams = searchParamsOf(request.query);
        const pending = client(request.path.replace(/^\//, ''), {
          method: request.method,
          ...(searchParams === undefined ? {} : { searchParams }),
          ...(request.body === undefined ? {} : { json: request.body }),
          ...(signal === undefined ? {} : { signal }),
          timeout: { request: Math.max(1, Math.floor(timeoutMs)) },
        });
        // Cut the body off at the cap: a declared length over it at once, otherwise as bytes arrive,
        // so no more than the cap (plus one chunk) is ever held.
        const cutOff = (): void => {
          tooLarge = true;
          pending.cancel();
        };
        pending.on('response', (incoming: { headers: Record<string, string | string[] | undefined> }) => {
          const declared = Number(headerText(incoming.headers['content-length']) ?? Number.NaN);
          if (Number.isFinite(declared) && declared > limit) cutOff();
        });
        pending.on('downloadProgress', (progress: { transferred: number }) => {
          if (progress.transferred > limit) cutOff();
        });
        const response = await pending;
        const retryAfter = headerText(response.headers['retry-after']);
        const ignored = headerText(response.headers['x-ignored-params']);
        return {
          ok: true,
          response: {
            status: response.statusCode,
            body: response.body,
            ...(retryAfter === undefined ? {} : { retryAfter }),
            ignoredParams:
              ignored === undefined
                ? []
                : ignored
                    .split(',')
                    .map((name) => name.trim().toLowerCase())
                    .filter((name) => name !== ''),
            embedded: headerText(response.headers['x-hindsight-embedded']) === '1',
          },
        };
      } catch (error) {
        if (tooLarge) return { ok: false, facts: { name: 'ResponseTooLarge', code: RESPONSE_TOO_LARGE, event: undefined } };
        // Only the name, code and event survive: got errors carry the request headers.
        return { ok: false, facts: transportFacts(error) };
      }
    },
  };
};
