/**
 * Who the memory browser answers, checked before anything of a request is read:
 * - loopback only: the peer address must be this machine, whatever address the socket is on;
 * - the embedded server's Host and Origin rules (`guardRequest`): a page on another origin, or
 *   one that rebinds its DNS name to 127.0.0.1, is refused (403);
 * - the launch token, generated per launch, on every API call and event stream as the
 *   `x-agent-memory-token` header, and nowhere else (401 otherwise). The address the person opens
 *   carries it after `#` (`/ui/#token=…`): a fragment is never sent to a server, so the page's
 *   shell (`/ui/`: markup, style and script, no data) is served without it, and its script moves
 *   the token into `sessionStorage` and takes it off the address. `sessionStorage` is kept per
 *   origin, and an origin includes its port: another web server on this host cannot read it,
 *   where a cookie (kept per host, RFC 6265 §8.5) was sent to every port and could be replayed.
 *   No cookie is set or read, and a token in a query (the old launch address) is refused;
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
  /** The port the page is served on, for the same-origin check. */
  readonly port: () => number;
  /** The 0600 file that holds the launch address, while it does (browserAddress.ts). */
  readonly addressFile?: () => string | undefined;
}

/**
 * Where a person finds the launch address again: the file it was written to, or the terminal
 * that started this page. Only a file and a terminal that exist: "agent-memory ui" is on no
 * PATH from a clone, and running a command again would start another page with another token.
 */
export const whereTheAddressIs = (file: string | undefined): string =>
  file === undefined
    ? 'open the address printed in the terminal that started this memory browser (it ends in #token=…)'
    : `open the address in ${file} (readable by you only; it is also printed in the terminal that started this memory browser)`;

const matches = (presented: string | undefined, expected: string): boolean =>
  presented !== undefined && presented.length > 0 && timingSafeEqual(digest(presented), digest(expected));

/** What a request may be answered with: the page's shell (no credential, no data), or anything with the token as a header. */
export type Access = 'shell' | 'token';

const isShell = (method: string, url: URL): boolean => method === 'GET' && (url.pathname === '/ui' || url.pathname === '/ui/');

/** Throws the refusal for a request this page must not answer; else says what it may be given. */
export const guardUiRequest = (req: IncomingMessage, url: URL, input: GuardInput): Access => {
  if (!isLoopbackHost(req.socket.remoteAddress ?? '')) throw new HttpError(403, 'The memory browser answers only this machine (loopback)');
  guardRequest(req.headers, { allowedHosts: new Set(), port: input.port });
  const method = (req.method ?? 'GET').toUpperCase();
  // A token in a query lands in logs, the history and a Referer; the launch address gives it after `#`.
  if (url.searchParams.has('token')) {
    throw new HttpError(401, `The launch token goes after # in the address (/ui/#token=…), never in its query; ${whereTheAddressIs(input.addressFile?.())}`);
  }
  const access: Access | undefined = matches(single(req.headers[TOKEN_HEADER]), input.token) ? 'token' : isShell(method, url) ? 'shell' : undefined;
  if (access === undefined) {
    throw new HttpError(401, `This tab has no launch token (or one of an earlier launch): ${whereTheAddressIs(input.addressFile?.())}`);
  }
  if (method !== 'GET' && method !== 'POST') throw new HttpError(405, 'Method Not Allowed');
  guardContentType(method, req.headers, false);
  return access;
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
