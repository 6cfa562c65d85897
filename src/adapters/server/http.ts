/**
 * The HTTP transport: node:http(s) over a keep-alive agent shared per base URL, one attempt
 * per call (the retain-delivery machine owns retries) and every status returned, never thrown
 * (the client maps each one). It was got until measured: got's per-request option merging and
 * hooks cost 0.5 ms of CPU on a 2.7 ms loopback recall, more than the whole budget of the
 * recall hook (0.15x the raw request), and this transport needs none of what they buy
 * (no redirects, no retries, no decompression, JSON in and text out).
 *
 * `send` never rejects: a transport error is reduced to its name, code and timeout event.
 *
 * A large body is sent with `Expect: 100-continue`: a server that refuses it (a 413 over its
 * body limit) answers before the body is sent, so the refusal is read as the server's status and
 * never as the ECONNRESET or EPIPE of a connection closed under a 40 MB upload. An answer that
 * arrives while the body is still being written is read, and the rest of the body is not sent.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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

const queryString = (query: Readonly<Record<string, QueryValue>> | undefined): string => {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    // FastAPI list parameters are sent exploded: `?tags=a&tags=b`.
    if (Array.isArray(value)) for (const item of value as readonly string[]) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
};

const headerText = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

const TIMED_OUT: TransportFacts = { name: 'TimeoutError', code: 'ETIMEDOUT', event: 'request' };
const ABORTED: TransportFacts = { name: 'AbortError', code: 'ERR_ABORTED', event: undefined };
const TOO_LARGE: TransportFacts = { name: 'ResponseTooLarge', code: RESPONSE_TOO_LARGE, event: undefined };
const CUT_SHORT: TransportFacts = { name: 'Error', code: 'ERR_STREAM_PREMATURE_CLOSE', event: undefined };

const responseOf = (incoming: IncomingMessage, body: string): HttpResponse => {
  const retryAfter = headerText(incoming.headers['retry-after']);
  const ignored = headerText(incoming.headers['x-ignored-params']);
  return {
    status: incoming.statusCode ?? 0,
    body,
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

export const createTransport = (options: TransportOptions): Transport => {
  const base = options.baseUrl.replace(/\/+$/, '');
  const secure = base.startsWith('https:');
  const agent = secure ? agentsFor(options.baseUrl).https : agentsFor(options.baseUrl).http;
  const send = secure ? httpsRequest : httpRequest;
  const fixedHeaders: Record<string, string> = {
    'user-agent': options.userAgent,
    accept: 'application/json',
    ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
  };

  return {
    send: (request, { signal, timeoutMs }) =>
      new Promise<SendResult>((resolve) => {
        if (signal?.aborted === true) {
          resolve({ ok: false, facts: ABORTED });
          return;
        }
        const limit = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
        const body = request.body === undefined ? undefined : JSON.stringify(request.body);
        const expectContinue = body !== undefined && Buffer.byteLength(body) >= EXPECT_CONTINUE_BYTES;
        let outgoing: ClientRequest | undefined;
        let settled = false;
        let answered = false;
        const onAbort = (): void => fail(ABORTED);
        const finish = (result: SendResult): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          clearTimeout(continueTimer);
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        };
        // Settles first, then tears the request down: its own error events find it settled.
        function fail(facts: TransportFacts): void {
          finish({ ok: false, facts });
          outgoing?.destroy();
        }
        const timer = setTimeout(() => fail(TIMED_OUT), Math.max(1, Math.floor(timeoutMs)));
        // A large body goes when the server says `100 Continue`, or after the wait.
        function sendBody(): void {
          clearTimeout(continueTimer);
          if (answered || settled || outgoing === undefined || outgoing.writableEnded) return;
          outgoing.end(body);
        }
        const continueTimer = expectContinue ? setTimeout(sendBody, CONTINUE_WAIT_MS) : undefined;
        try {
          outgoing = send(`${base}${request.path}${queryString(request.query)}`, {
            method: request.method,
            agent,
            headers:
              body === undefined
                ? fixedHeaders
                : {
                    ...fixedHeaders,
                    'content-type': 'application/json',
                    'content-length': String(Buffer.byteLength(body)),
                    ...(expectContinue ? { expect: '100-continue' } : {}),
                  },
          });
        } catch (error) {
          // Node refuses a bad URL or a header value with control characters before sending.
          finish({ ok: false, facts: transportFacts(error) });
          return;
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        outgoing.on('error', (error) => finish({ ok: false, facts: transportFacts(error) }));
        const sending = outgoing;
        // The answer came before the body was all written (a refusal): the connection is
        // mid-request, so it is closed instead of being reused, and the rest is never sent.
        const settleWith = (result: SendResult): void => {
          finish(result);
          if (!sending.writableFinished) sending.destroy();
        };
        outgoing.on('response', (incoming) => {
          answered = true;
          clearTimeout(continueTimer);
          // Cut the body off at the cap: a declared length over it at once, otherwise as bytes
          // arrive, so no more than the cap (plus one chunk) is ever held.
          const declared = Number(headerText(incoming.headers['content-length']) ?? Number.NaN);
          if (Number.isFinite(declared) && declared > limit) {
            fail(TOO_LARGE);
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          incoming.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > limit) fail(TOO_LARGE);
            else chunks.push(chunk);
          });
          incoming.on('end', () => settleWith({ ok: true, response: responseOf(incoming, Buffer.concat(chunks).toString('utf8')) }));
          incoming.on('error', (error) => finish({ ok: false, facts: transportFacts(error) }));
          // A connection closed before the body ended: no 'end', sometimes no 'error'.
          incoming.on('close', () => finish({ ok: false, facts: CUT_SHORT }));
        });
        if (expectContinue) outgoing.once('continue', sendBody);
        else outgoing.end(body);
      }),
  };
};
