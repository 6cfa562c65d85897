/**
 * The request pipeline: faults -> auth -> route match -> body -> handler -> JSON reply.
 * Every error leaves as `{"detail": ...}`; nothing secret is echoed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkApiKey } from './auth.js';
import { isRecord } from '../codecs/codecs.js';
import { actionOf } from './features/auditLog.js';
import type { ServerContext } from './context.js';
import { BodyTooLarge, parseJsonBody, readBody } from './http/body.js';
import { HttpError } from './http/errors.js';
import { guardContentType, guardRequest, type GuardOptions } from './http/guard.js';
import { dropNulls } from './http/json.js';
import { matchRoute, versionAtLeast } from './http/router.js';
import type { CompiledRoute } from './http/router.js';
import type { Reply } from './http/types.js';

const BASE_HEADERS = { 'Content-Type': 'application/json', 'X-Hindsight-Embedded': '1' };

const send = (res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void => {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, ...headers, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
};

/**
 * A refused body's 413: sent at once, the response (and with it the connection, `Connection:
 * close`) ended only once the rest of the body is dropped, so no reset overtakes the answer.
 */
export const answerTooLarge = (res: ServerResponse, error: BodyTooLarge): void => {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify({ detail: error.detail });
  res.writeHead(error.status, { ...BASE_HEADERS, ...error.headers, 'Content-Length': Buffer.byteLength(text) });
  res.write(text);
  void error.drained.then(() => res.end());
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const withoutFields = (body: unknown, fields: readonly string[]): unknown => {
  if (fields.length === 0 || !isRecord(body)) return body;
  const copy: Record<string, unknown> = { ...body };
  for (const f of fields) delete copy[f];
  return copy;
};

export interface AppOptions {
  readonly routes: readonly CompiledRoute[];
  readonly server: ServerContext;
  readonly apiKey?: string;
  /** Host, origin and content-type checks; none when absent (in-process tests of routes only). */
  readonly guard?: GuardOptions;
}

const RETAIN_PATH = /^\/v1\/default\/banks\/[^/]+\/memories$/;

/** Handles one request; a fault may leave it unanswered (stall) or drop its connection. */
export const createRequestHandler = (options: AppOptions) => {
  // The routes the mimicked version has: the version is the server's for its whole life, so they
  // are chosen once, not filtered again on every request (about 10 us each).
  const visible = options.routes.filter((r) => r.since === undefined || versionAtLeast(options.server.apiVersion, r.since));
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { server } = options;
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://embedded');
    const path = url.pathname;
    let leave: (() => void) | undefined;
    try {
      if (options.guard !== undefined) guardRequest(req.headers, options.guard);
      let ignoredByFault: string[] = [];
      for (const fault of server.faults.forRequest(method, path)) {
        switch (fault.kind) {
          case 'latency':
            await sleep(fault.ms);
            break;
          case 'drop':
            req.socket.destroy();
            return;
          case 'stall':
            // Never answer; the socket is destroyed when the server closes.
            return;
          case 'malformed':
            res.writeHead(200, BASE_HEADERS);
            res.end(fault.body ?? '{"results": [');
            return;
          case 'status': {
            const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
            send(res, fault.status, { detail: fault.detail ?? `injected fault: HTTP ${fault.status}` }, headers);
            return;
          }
        }
      }
      // Served from here on (a stalled request is not): background work waits for a pause.
      leave = server.foreground.enter(method === 'POST' && RETAIN_PATH.test(path) ? 'retain' : undefined);
      ignoredByFault = server.faults.ignoredFields(method, path);
      if (path.startsWith('/v1/')) {
        const auth = req.headers.authorization;
        checkApiKey(options.apiKey, Array.isArray(auth) ? auth[0] : auth);
      }
      const match = matchRoute(visible, method, path);
      if (match.kind === 'notFound') throw new HttpError(404, 'Not Found');
      if (match.kind === 'methodNotAllowed') throw new HttpError(405, 'Method Not Allowed');
      if (options.guard !== undefined) guardContentType(method, req.headers, match.route.multipart === true);
      const raw = method === 'GET' ? Buffer.alloc(0) : await readBody(req);
      // Read your writes: anything but a retain on a bank first lets the async retains it has
      // waiting run (when they are few; a bulk backlog is not waited for).
      const readsBank = match.params['bank_id'];
      if (readsBank !== undefined && !(method === 'POST' && RETAIN_PATH.test(path))) await server.operations.caughtUp(readsBank);
      const multipart = match.route.multipart === true && /^multipart\//i.test(req.headers['content-type'] ?? '');
      const body = multipart ? undefined : withoutFields(parseJsonBody(raw), ignoredByFault);
      const startedAt = server.nowIso();
      const started = server.clock.now();
      const reply: Reply = await match.route.handler({
        method,
        path,
        params: match.params,
        query: url.searchParams,
        headers: req.headers,
        body,
        server,
      });
      const bankId = match.params['bank_id'];
      const action = actionOf(method, path);
      if (action !== undefined && bankId !== undefined && (reply.status ?? 200) < 300) {
        server.audit.record({
          action,
          bank_id: bankId,
          started_at: startedAt,
          ended_at: server.nowIso(),
          duration_ms: Math.max(0, server.clock.now() - started),
          request: { method, path },
          response: { status: reply.status ?? 200 },
          metadata: {},
        });
      }
      const headers = { ...(reply.headers ?? {}) };
      if (ignoredByFault.length > 0) {
        const prior = headers['X-Ignored-Params'];
        headers['X-Ignored-Params'] = [...(prior === undefined ? [] : [prior]), ...ignoredByFault].join(', ');
      }
      if (reply.raw !== undefined) {
        res.writeHead(reply.status ?? 200, { ...BASE_HEADERS, ...headers, 'Content-Type': reply.raw.contentType, 'Content-Length': Buffer.byteLength(reply.raw.text) });
        res.end(reply.raw.text);
        return;
      }
      send(res, reply.status ?? 200, match.route.keepNulls === true ? reply.body : dropNulls(reply.body), headers);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        answerTooLarge(res, error);
        return;
      }
      if (error instanceof HttpError) {
        send(res, error.status, { detail: error.detail }, error.headers);
        return;
      }
      // An unexpected error's message may quote the request: it is not sent.
      send(res, 500, { detail: 'Internal Server Error' });
    } finally {
      leave?.();
    }
  };
};
