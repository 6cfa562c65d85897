/**
 * The memory browser's request handler: every request is guarded first (loopback, Host,
 * Origin, the launch token as a header, JSON writes: security.ts), then routed to the page's
 * shell (served without the token: it holds no data), an API route or an event stream. `agent-memory ui` serves it on its own port; `agent-memory serve` mounts
 * it at `/ui` of the embedded server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import { loadConfig } from '../../config/load.js';
import { redact } from '../../config/redact.js';
import { HttpError } from '../../server/http/errors.js';
import { uiPage } from '../../ui/page.js';
import { hindsightLine } from './hindsight.js';
import { watchLiveRuns } from './liveRuns.js';
import { machineRoutes, streamMachines } from './machineRoutes.js';
import { memoryRoutes, streamMemories, type ApiRoute } from './memoryRoutes.js';
import { projectRoutes } from './projectRoutes.js';
import { guardUiRequest, readJson, sendHtml, sendJson } from './security.js';

export interface UiHandlerOptions {
  /** The project directory whose config, scope, queue and sessions are shown. */
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The launch token (security.ts `newLaunchToken`). */
  readonly token: string;
  /** The port the page is served on (the same-origin check). */
  readonly port: () => number;
  /** Another memory server than the config's (the embedded server `serve` runs), with its key. */
  readonly server?: { readonly baseUrl: string; readonly apiKey?: string };
  /** A trace or journal file to offer for replay (`agent-memory ui --trace FILE`). */
  readonly trace?: string;
  /** The 0600 file that holds the launch address, named to a tab that has no token. */
  readonly addressFile?: () => string | undefined;
}

export interface UiHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  close(): void;
}

export const createUiHandler = (options: UiHandlerOptions): UiHandler => {
  const env = options.env ?? process.env;
  const loaded = loadConfig({ cwd: options.cwd, home: env['HOME'] ?? homedir(), env });
  const line = hindsightLine(loaded, env, options.server);
  const live = watchLiveRuns(loaded);
  const routes: Readonly<Record<string, ApiRoute>> = {
    ...memoryRoutes(line),
    ...projectRoutes(line, options.cwd, env),
    ...machineRoutes(loaded, options.trace),
    // What the header of the page names: asked for with the token, since the shell is served without it.
    'GET /ui/api/where': () => Promise.resolve({ status: 200, body: { server: line.baseUrl, cwd: options.cwd } }),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://ui.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    try {
      if (guardUiRequest(req, url, { token: options.token, port: options.port, ...(options.addressFile === undefined ? {} : { addressFile: options.addressFile }) }) === 'shell') {
        sendHtml(res, (nonce) => uiPage({ nonce }));
        return;
      }
      if (method === 'GET' && url.pathname === '/ui/api/stream/machines') return streamMachines(req, res, live);
      if (method === 'GET' && url.pathname === '/ui/api/stream/memories') return streamMemories(req, res, line, url.searchParams);
      const route = routes[`${method} ${url.pathname}`];
      if (route === undefined) throw new HttpError(404, 'Not Found');
      const body = method === 'POST' ? await readJson(req) : undefined;
      const reply = await route({ query: url.searchParams, body });
      sendJson(res, reply.status, reply.body);
    } catch (error) {
      if (error instanceof HttpError) sendJson(res, error.status, { detail: error.detail });
      else sendJson(res, 500, { detail: `the memory browser failed: ${redact(error instanceof Error ? error.message : String(error))}` });
    }
  };
  return { handle, close: () => live.close() };
};
