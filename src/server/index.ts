/**
 * The embedded memory server: a Hindsight 0.9.1-compatible HTTP server with lexical recall and
 * no LLM, startable in-process (`startEmbeddedServer`) or as `agent-memory serve`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { wallClock, type ServerClock } from './clock.js';
import { answerTooLarge, createRequestHandler } from './app.js';
import { portOf } from './http/address.js';
import { refuseDeclared } from './http/body.js';
import { apiVersionOf } from './context.js';
import type { Mimic, ServerContext } from './context.js';
import { FaultSet } from './faults.js';
import type { FaultRule } from './faults.js';
import { compileRoute } from './http/router.js';
import { isLoopbackHost, isWildcardHost } from './http/guard.js';
import { createForeground } from './foreground.js';
import { createOperationRunner } from './operations.js';
import { AuditLog } from './features/auditLog.js';
import { WebhookDispatcher } from './features/webhooks.js';
import { routeModules } from './routes/index.js';
import { createSearchIndexes, indexFingerprint } from './search/indexes.js';
import { readIndexFile } from './search/indexFile.js';
import { openStore } from './store/store.js';

export type { FaultRule } from './faults.js';
export type { Mimic } from './context.js';

export interface EmbeddedServerOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. Any other address needs `apiKey` (refused otherwise). */
  readonly host?: string;
  /** Host names the `Host` header may carry besides loopback names and `host` (a LAN name, say). */
  readonly allowedHosts?: readonly string[];
  /** Where the log and snapshots live; undefined keeps everything in memory. */
  readonly dataDir?: string;
  /** When set, `/v1/...` requests need `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  readonly mimic?: Mimic;
  /** Delay before an async operation starts (default 0: next turn of the event loop). */
  readonly operationDelayMs?: number;
  readonly faults?: FaultRule[];
  readonly clock?: ServerClock;
  /** Mutations between snapshots (default 20,000). */
  readonly snapshotEvery?: number;
  /**
   * Requests under `prefix` (`/ui`, `/ui/...`) go to `handle` instead of the API: `serve`'s
   * memory browser, which guards its requests itself (loopback, token, Host, Origin).
   */
  readonly mount?: { readonly prefix: string; readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> };
}

const underPrefix = (url: string | undefined, prefix: string): boolean => {
  const path = (url ?? '/').split('?')[0] ?? '/';
  return path === prefix || path.startsWith(`${prefix}/`);
};

export interface EmbeddedServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  setFaults(rules: FaultRule[]): void;
  /** Resolves once every scheduled async operation has finished. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Quiet time after start-up before indexes built from the store are saved. */
const SAVE_REBUILT_AFTER_MS = 2_000;

const isoFrom = (clock: ServerClock) => (): string => new Date(clock.now()).toISOString().replace('Z', '+00:00');

/** Thrown before anything is opened when the server would listen beyond loopback with no key. */
export class UnsafeBindError extends Error {
  constructor(readonly host: string) {
    super(
      `refusing to listen on ${host} without an API key: any machine that can reach that address could read and write every memory. Set an API key (--api-key-env NAME, with the key in that environment variable), or bind 127.0.0.1`,
    );
    this.name = 'UnsafeBindError';
  }
}

/** The host names a request may name: the bind host, extra names, and every local address for a wildcard bind. */
const allowedHostsFor = (host: string, extra: readonly string[]): Set<string> => {
  const names = new Set([host, ...extra].map((h) => h.toLowerCase().replace(/^\[|\]$/g, '')));
  if (isWildcardHost(host)) {
    for (const list of Object.values(networkInterfaces())) for (const entry of list ?? []) names.add(entry.address.toLowerCase());
  }
  return names;
};

export const startEmbeddedServer = async (options: EmbeddedServerOptions = {}): Promise<EmbeddedServer> => {
  const bindHost = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(bindHost) && (options.apiKey === undefined || options.apiKey === '')) throw new UnsafeBindError(bindHost);
  const clock = options.clock ?? wallClock;
  const mimic = options.mimic ?? '0.9';
  const faults = new FaultSet(options.faults ?? []);
  // The saved search index is read while the store loads (the file is only ever replaced whole).
  const savedRead = options.dataDir === undefined ? undefined : readIndexFile(options.dataDir, indexFingerprint());
  const store = await openStore({
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.snapshotEvery === undefined ? {} : { snapshotEvery: options.snapshotEvery }),
  });
  const nowIso = isoFrom(clock);
  const search = createSearchIndexes(store);
  // Before listening: a recall right after start-up must not wait for an index build. The
  // saved indexes load as they are; a bank they cannot serve is built from the store.
  const saved = await savedRead;
  const rebuilt = search.buildAll(saved?.ok === true ? saved.saved : undefined);
  const foreground = createForeground();
  const operations = createOperationRunner({
    store,
    foreground,
    faults,
    delayMs: options.operationDelayMs ?? 0,
    nowIso,
    newId: randomUUID,
  });
  const webhooks = new WebhookDispatcher();
  const context: ServerContext = { store, search, operations, foreground, faults, clock, mimic, apiVersion: apiVersionOf(mimic), nowIso, audit: new AuditLog(), webhooks };
  webhooks.attach(context);
  for (const module of routeModules) {
    for (const [taskType, handler] of Object.entries(module.operations?.(context) ?? {})) operations.register(taskType, handler);
    for (const [taskType, handler] of Object.entries(module.batchOperations?.(context) ?? {})) operations.registerBatch(taskType, handler);
  }
  const routes = routeModules.flatMap((m) => m.routes).map(compileRoute);
  let boundPort = 0;
  const guard = { allowedHosts: allowedHostsFor(bindHost, options.allowedHosts ?? []), port: () => boundPort };
  const handle = createRequestHandler({ routes, server: context, guard, ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }) });

  const sockets = new Set<Socket>();
  const mount = options.mount;
  const http = createServer((req, res) => {
    // Last line of defence: whatever a request does, it never takes the process down.
    (mount !== undefined && underPrefix(req.url, mount.prefix) ? mount.handle(req, res) : handle(req, res)).catch(() => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'Content-Type': 'application/json', 'X-Hindsight-Embedded': '1' });
        res.end('{"detail":"Internal Server Error"}');
      } else res.destroy();
    });
  });
  // A client asking `Expect: 100-continue` for a body over the limit is told 413 before it
  // sends a byte of it; every other request is let go on and handled as usual.
  http.on('checkContinue', (req, res) => {
    const refused = mount !== undefined && underPrefix(req.url, mount.prefix) ? undefined : refuseDeclared(req);
    if (refused !== undefined) {
      answerTooLarge(res, refused);
      return;
    }
    res.writeContinue();
    http.emit('request', req, res);
  });
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 0, bindHost, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  operations.resumeAll();
  // Banks built from the store (or loaded without their kinds) are saved soon, so the next start
  // loads them whole (a snapshot would save them too, but a server that is never closed cleanly
  // may not reach one for long).
  let unsaved = rebuilt > 0 && store.persistent;
  const saveTimer = unsaved
    ? setTimeout(() => {
        unsaved = false;
        void search.save();
      }, SAVE_REBUILT_AFTER_MS)
    : undefined;
  saveTimer?.unref();
  const port = portOf(http.address());
  boundPort = port;
  const host = bindHost;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    setFaults: (rules) => faults.set(rules),
    idle: () => operations.idle(),
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        // Stalled and keep-alive connections would hold close() forever.
        for (const socket of sockets) socket.destroy();
        await closed;
        await operations.close();
        for (const module of routeModules) await module.close?.(context);
        clearTimeout(saveTimer);
        if (unsaved) await search.save();
        // The store's closing snapshot saves the search indexes too: close them after it.
        await store.close();
        search.close();
      })();
      return closing;
    },
  };
};
