/**
 * `agent-memory ui` as a server of its own: the browser's handler on a loopback port, with a
 * token made for this launch. The URL it gives (`url`) carries the token after `#`, which the
 * page keeps in `sessionStorage` and sends as a header (security.ts); nothing but the page's
 * shell is served without it.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { isLoopbackHost } from '../../server/http/guard.js';
import { portOf } from '../../server/http/address.js';
import { createUiHandler, type UiHandlerOptions } from './uiHandler.js';
import { newLaunchToken } from './security.js';

export interface UiServerOptions extends Omit<UiHandlerOptions, 'token' | 'port'> {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** A loopback address (default 127.0.0.1); anything else is refused. */
  readonly host?: string;
}

export interface UiServer {
  /** The page's address, token included: the one thing to open. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

export const startUiServer = async (options: UiServerOptions): Promise<UiServer> => {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) throw new Error(`agent-memory ui listens on loopback only; ${host} is not a loopback address`);
  const token = newLaunchToken();
  let port = 0;
  const handler = createUiHandler({ ...options, token, port: () => port });
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => void handler.handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  port = portOf(server.address());
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/ui/#token=${token}`,
    port,
    token,
    close: async () => {
      handler.close();
      // Event streams never end on their own: their sockets are closed with the server.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
