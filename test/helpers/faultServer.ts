/**
 * A scripted HTTP server on 127.0.0.1:0 for adapter fault tests: each request takes the next
 * scripted step (answer, reset before headers, stall, or pass through to a real target and
 * optionally reset after the target has applied the request).
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FaultStep =
  | { readonly kind: 'json'; readonly status?: number; readonly body: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: 'text'; readonly status?: number; readonly body: string; readonly headers?: Readonly<Record<string, string>> }
  /** Destroys the connection before any header is written. */
  | { readonly kind: 'reset' }
  /** Never answers; the connection is closed when the server closes. */
  | { readonly kind: 'stall' }
  /** Forwards to the target server. */
  | { readonly kind: 'proxy' }
  /** Forwards to the target, waits for its whole answer, then resets the client connection. */
  | { readonly kind: 'proxyThenReset' };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface FaultServer {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Appends steps; each request takes the first remaining one. */
  script(...steps: FaultStep[]): void;
  /** The step for requests when the script is empty (or a function of the request). */
  setFallback(step: FaultStep | ((req: RecordedRequest) => FaultStep)): void;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const forward = (target: string, recorded: RecordedRequest): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> =>
  new Promise((resolve, reject) => {
    const url = new URL(recorded.path, target);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(recorded.headers)) {
      if (value === undefined || name === 'host' || name === 'connection') continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const outgoing = httpRequest(url, { method: recorded.method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value === undefined || name === 'connection' || name === 'transfer-encoding' || name === 'keep-alive') continue;
          out[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({ status: incoming.statusCode ?? 502, headers: out, body: Buffer.concat(chunks) });
      });
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(recorded.body);
  });

export const startFaultServer = async (options: { target?: string } = {}): Promise<FaultServer> => {
  const steps: FaultStep[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let fallback: FaultStep | ((req: RecordedRequest) => FaultStep) = { kind: 'json', status: 200, body: {} };

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: { ...req.headers }, body: await readBody(req) };
    requests.push(recorded);
    const step = steps.shift() ?? (typeof fallback === 'function' ? fallback(recorded) : fallback);
    switch (step.kind) {
      case 'json':
      case 'text': {
        const body = step.kind === 'json' ? JSON.stringify(step.body) : step.body;
        res.writeHead(step.status ?? 200, { 'content-type': 'application/json', ...step.headers });
        res.end(body);
        return;
      }
      case 'reset':
        req.socket.destroy();
        return;
      case 'stall':
        return;
      case 'proxy':
      case 'proxyThenReset': {
        if (options.target === undefined) throw new Error('fault server: a proxy step needs a target');
        const upstream = await forward(options.target, recorded);
        if (step.kind === 'proxyThenReset') {
          req.socket.destroy();
          return;
        }
        res.writeHead(upstream.status, upstream.headers);
        res.end(upstream.body);
        return;
      }
    }
  };

  const server = createServer((req, res) => {
    answer(req, res).catch(() => {
      req.socket.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    script: (...more) => {
      steps.push(...more);
    },
    setFallback: (step) => {
      fallback = step;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

/** A port on 127.0.0.1 with nothing listening (bound, then released). */
export const refusedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};
