/**
 * Who the memory browser answers, checked before anything of a request is read:
 * - loopback only: the peer address must be this machine, whatever address the socket is on;
 * - the embedded server's Host and Origin rules (`guardRequest`): a page on another origin, or
 *   one that rebinds its DNS name to 127.0.0.1, is refused (403);
 * - the launch token: generated per launch, printed in the URL; without it nothing is served
 *   (401), the page included. The page sends it as a header; only GETs (the page itself and
 *   its event streams, which cannot set headers) may carry it in the query;
 * - a write is a POST with a JSON body (415 otherwise), which no other origin can send
 *   without a preflight this server never grants.
 * Every answer carries a strict content security policy and is never cached.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
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
}

/** Throws the refusal for a request this page must not answer. */
export const guardUiRequest = (req: IncomingMessage, url: URL, input: GuardInput): void => {
  if (!isLoopbackHost(req.socket.remoteAddress ?? '')) throw new HttpError(403, 'The memory browser answers only this machine (loopback)');
  guardRequest(req.headers, { allowedHosts: new Set(), port: input.port });
  const method = (req.method ?? 'GET').toUpperCase();
  const fromHeader = single(req.headers[TOKEN_HEADER]);
  const fromQuery = method === 'GET' ? (url.searchParams.get('token') ?? undefined) : undefined;
  const presented = fromHeader ?? fromQuery ?? '';
  if (presented.length === 0 || !timingSafeEqual(digest(presented), digest(input.token))) {
    throw new HttpError(401, 'This page needs the token that agent-memory ui or agent-memory serve printed (open the URL it printed)');
  }
  if (method !== 'GET' && method !== 'POST') throw new HttpError(405, 'Method Not Allowed');
  guardContentType(method, req.headers, false);
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
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
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
