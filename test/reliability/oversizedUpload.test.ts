/**
 * Attack: a job over the server's body limit (issue 26, item 9). With a 40 MB upload the client
 * read ECONNRESET or EPIPE instead of the server's 413 often enough to pause an import with the
 * server up. Real server process (`agent-memory serve`), real client adapter, a counting TCP relay
 * between them: 30 uploads in a row are each refused as the server's 413 (an `invalidRequest`,
 * which the queue dead-letters, never `unreachable`, which pauses), and the 40 MB are never sent
 * (the client asks `Expect: 100-continue`). A client that does not ask (a raw socket writing the
 * whole body) reads the 413, `Connection: close`, and a clean close after its body, 30 times.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { spawnServerProcess, type ServerProcess } from '../helpers/embeddedServer.js';

const FORTY_MB = 40 * 1024 * 1024;
const UPLOADS = 30;

/** A relay to the server that counts the bytes each client connection sends. */
const startRelay = async (target: URL): Promise<{ server: Server; port: number; sentBytes: () => number }> => {
  let sent = 0;
  const server = createServer((client: Socket) => {
    const upstream = connect(Number(target.port), target.hostname);
    client.on('data', (chunk: Buffer) => (sent += chunk.length));
    client.pipe(upstream);
    upstream.pipe(client);
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('relay has no port');
  return { server, port: address.port, sentBytes: () => sent };
};

/** One raw HTTP/1.1 upload that writes the whole body whatever the server answers. */
const rawUpload = (port: number, body: Buffer): Promise<{ answer: string; closed: 'end' | string }> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let outcome: string | undefined;
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('end', () => (outcome ??= 'end'));
    socket.on('error', (error: NodeJS.ErrnoException) => (outcome ??= error.code ?? error.message));
    // A server that keeps the connection open after its refusal is recorded as such, not waited on.
    const open = setTimeout(() => {
      outcome ??= 'still open 20 s after the body was sent';
      socket.destroy();
    }, 20_000);
    socket.on('close', () => {
      clearTimeout(open);
      resolve({ answer, closed: outcome ?? 'close without end' });
    });
    socket.write(
      `POST /v1/default/banks/raw-upload/memories HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body, () => socket.end());
  });

describe('an upload over the server body limit is read as the server 413, every time', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await spawnServerProcess(['--in-memory', '--no-ui']);
  }, 60_000);
  afterAll(async () => {
    await server.kill();
  });

  it('30 retains of 40 MB through the real client: each the server 413 (invalidRequest), none unreachable, none sending its body', async () => {
    const relay = await startRelay(new URL(server.url));
    try {
      const client = createMemoryServer({ baseUrl: `http://127.0.0.1:${relay.port}`, timeoutMs: 60_000 });
      const content = 'x'.repeat(FORTY_MB);
      const outcomes: string[] = [];
      for (let i = 0; i < UPLOADS; i += 1) {
        const before = relay.sentBytes();
        const result = await client.retain('oversized-upload', { items: [{ content, document_id: `big-${i}` }] })();
        const failure = E.isLeft(result) ? result.left : undefined;
        const shape = failure === undefined ? 'stored' : failure._tag === 'invalidRequest' ? `invalidRequest ${failure.status} ${failure.detail}` : JSON.stringify(failure);
        outcomes.push(`${shape} after ${relay.sentBytes() - before} bytes`);
      }
      for (const outcome of outcomes) {
        expect(outcome, outcomes.join('\n')).toMatch(/^invalidRequest 413 Request body too large: more than 33554432 bytes; send smaller batches after \d+ bytes$/);
        // Headers only: the 40 MB body was never put on the wire.
        expect(Number(/after (\d+) bytes/.exec(outcome)?.[1]), outcomes.join('\n')).toBeLessThan(64 * 1024);
      }
      // The refusals left the connection pool usable: a normal retain goes through.
      const small = await client.retain('oversized-upload', { items: [{ content: 'the deploy uses rollup', document_id: 'small' }] })();
      expect(E.isRight(small), JSON.stringify(small)).toBe(true);
    } finally {
      await new Promise<void>((resolve) => relay.server.close(() => resolve()));
    }
  }, 600_000);

  it('30 raw uploads that send their whole 40 MB body: each reads the 413 with Connection: close, then a clean close (no reset)', async () => {
    const port = Number(new URL(server.url).port);
    const body = Buffer.from(JSON.stringify({ items: [{ content: 'y'.repeat(FORTY_MB) }] }));
    const outcomes: string[] = [];
    for (let i = 0; i < UPLOADS; i += 1) {
      const { answer, closed } = await rawUpload(port, body);
      outcomes.push(`${answer.split('\r\n')[0] ?? ''} | connection: ${/\r\nconnection: ([^\r]*)/i.exec(answer)?.[1] ?? 'none'} | ${closed}`);
    }
    for (const outcome of outcomes) expect(outcome, outcomes.join('\n')).toBe('HTTP/1.1 413 Payload Too Large | connection: close | end');
  }, 600_000);
});
