/**
 * Who the memory browser answers, checked before anything of a request is read:
 * - loopback only: the peer address must be this machine, whatever address the socket is on;
 * - the embedded server's Host and Origin rules (`guardRequest`): a page on another origin, or
 *   one that rebinds its DNS name to 127.0.0.1, is refused (403);
 * - the launch token: generated per launch, in the URL the person opens; without it nothing is
 *   served (401), the page included. Only that address (GET `/ui/?token=…`) may carry it in
 *   its query: it is exchanged there for a session cookie (HttpOnly, SameSite=Strict, this
 *   launch only) and the browser is sent to `/ui/`, so the token stays out of the browser's
 *   address bar, history and bookmarks; every later request (the page on reload, its API calls
 *   and event streams) carries the cookie. A client other than the page may send the token as
 *   a header;
 * - a write is a POST with a JSON body (415 otherwise), which no other origin can send
 *   without a preflight this server never grants.
 * Every answer carries a strict content security policy and is never cached.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonNestingExceeds, MAX_JSON_DEPTH } from '../../codecs/decode.js';
import { redactKnownValues } from '../../config/redact.js';
import { HttpError } from '../../server/http/errors.js';
import { guardContentType, guardRequest, isLoopbackHost } from '../../server/http/guard.js';

const TOKEN_HEADER = 'x-agent-memory-token';

export const newLaunchToken = (): string => randomBytes(24).toString('base64url');

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The content security policy of every answer: this page's own nonce'd script and style, its own origin, nothing else. */
const contentSecurityPolicy = (nonce: string): string =>
  [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

const baseHeaders = (nonce = randomBytes(16).toString('base64')): Record<string, string> => ({
  'Content-Security-Policy': contentSecurityPolicy(nonce),
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
});

export interface GuardInput {
  readonly token: string;
  /** The session cookie's value for this launch (`newLaunchToken`), given for the token. */
  readonly session: string;
  /** The port the page is served on, for the same-origin check. */
  readonly port: () => number;
}

/** The session cookie's name: one per port, so two browsers' launches on one host never overwrite each other. */
export const sessionCookieName = (port: number): string => `agent-memory-ui-${port}`;

/**
 * Every value the `Cookie` header gives `name`. Each is tried: a server on another port of this
 * host may set a cookie of the same name with a longer path (cookies are not kept apart by
 * port, RFC 6265 §8.5), which the browser sends first; taking the first value alone locked the
 * person out ("cookie tossing"). Parsed here rather than with the `cookie` package: its 2.x needs
 * Node 22 (this package supports 20), and its 1.x `parse` keeps only the first value of a name,
 * the very thing tossing exploits. A value is this page's own base64url, so nothing is decoded.
 */
const cookieValues = (header: string | undefined, name: string): string[] => {
  const values: string[] = [];
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) values.push(part.slice(at + 1).trim());
  }
  return values;
};

const matches = (presented: string | undefined, expected: string): boolean =>
  presented !== undefined && presented.length > 0 && timingSafeEqual(digest(presented), digest(expected));

/** How a request showed it may be answered: the launch address (to exchange), the session cookie, or the token as a header. */
export type Credential = 'launch' | 'cookie' | 'header';

/** Throws the refusal for a request this page must not answer; else says which credential it carried. */
export const guardUiRequest = (req: IncomingMessage, url: URL, input: GuardInput): Credential => {
  if (!isLoopbackHost(req.socket.remoteAddress ?? '')) throw new HttpError(403, 'The memory browser answers only this machine (loopback)');
  guardRequest(req.headers, { allowedHosts: new Set(), port: input.port });
  const method = (req.method ?? 'GET').toUpperCase();
  const launch = method === 'GET' && (url.pathname === '/ui' || url.pathname === '/ui/') && url.searchParams.has('token');
  const credential: Credential | undefined = launch
    ? matches(url.searchParams.get('token') ?? undefined, input.token) ? 'launch' : undefined
    : matches(single(req.headers[TOKEN_HEADER]), input.token)
      ? 'header'
      : cookieValues(single(req.headers.cookie), sessionCookieName(input.port())).some((value) => matches(value, input.session))
        ? 'cookie'
        : undefined;
  if (credential === undefined) {
    throw new HttpError(401, 'This page needs the address with its launch token that agent-memory ui or agent-memory serve gave (printed to its terminal, and in the memory-browser-<port>.url file in the pi agent directory); open that address again');
  }
  if (method !== 'GET' && method !== 'POST') throw new HttpError(405, 'Method Not Allowed');
  guardContentType(method, req.headers, false);
  return credential;
};

/**
 * The answer to the launch address: the session cookie, and the page's address without the
 * token (303, so the browser's history keeps `/ui/`; a `#tab` the person opened is kept by the
 * browser). The cookie lives as long as the browser session and this launch: a new launch's
 * token makes a new one.
 */
export const sendLaunchRedirect = (res: ServerResponse, port: number, session: string): void => {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(303, {
    ...baseHeaders(),
    Location: '/ui/',
    'Set-Cookie': `${sessionCookieName(port)}=${session}; Path=/ui; HttpOnly; SameSite=Strict`,
    'Content-Length': 0,
  });
  res.end();
};

const MAX_BODY = 1_000_000;

/** A POST's JSON body, at most 1 MB. */
export const readJson = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(413, 'Request body too large');
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  // Every walk after the parse (a route's codec, its error text) recurses: a body 200,000
  // arrays deep answered 500 with a stack overflow, as the embedded server's own bodies no longer do.
  if (jsonNestingExceeds(text)) throw new HttpError(400, `The body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch {
    throw new HttpError(400, 'The body is not valid JSON');
  }
};

/** Sends JSON; anything known to be secret (the server's key) is replaced before it leaves. */
export const sendJson = (res: ServerResponse, status: number, body: unknown): void => {
  if (res.headersSent || res.destroyed) return;
  const text = redactKnownValues(JSON.stringify(body ?? null));
  res.writeHead(status, { ...baseHeaders(), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
};

export const sendHtml = (res: ServerResponse, html: (nonce: string) => string): void => {
  const nonce = randomBytes(16).toString('base64');
  const text = redactKnownValues(html(nonce));
  res.writeHead(200, { ...baseHeaders(nonce), 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
};

/** Opens a server-sent event stream; `send` writes one event, redacted like every answer. */
export const openEventStream = (req: IncomingMessage, res: ServerResponse): { send: (event: string, data: unknown) => void; closed: () => boolean } => {
  res.writeHead(200, { ...baseHeaders(), 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
  res.write(': open\n\n');
  let closed = false;
  req.on('close', () => {
    closed = true;
  });
  return {
    send: (event, data) => {
      if (closed || res.destroyed) return;
      res.write(`event: ${event}\ndata: ${redactKnownValues(JSON.stringify(data))}\n\n`);
    },
    closed: () => closed || res.destroyed,
  };
};
