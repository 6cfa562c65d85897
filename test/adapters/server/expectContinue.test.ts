/**
 * The transport's `Expect: 100-continue` for a large body, against servers that answer it in
 * each way a real one may: a server that never sends `100 Continue` still gets the body (after
 * the wait) and its answer is read; one that answers a final status first never gets the body.
 * Raw TCP servers, so what reaches the wire is what is asserted.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport, EXPECT_CONTINUE_BYTES } from '../../../src/adapters/server/http.js';

interface Seen {
  head: string;
  bodyBytes: number;
}

/** A server that reads one request head, then does `onHead` with the socket. */
const rawServer = async (onHead: (socket: Socket, seen: Seen) => void): Promise<{ server: Server; url: string; seen: Seen[] }> => {
  const seen: Seen[] = [];
  const server = createServer((socket) => {
    let buffered = Buffer.alloc(0);
    let current: Seen | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (current !== undefined) {
        current.bodyBytes += chunk.length;
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      current = { head: buffered.subarray(0, end).toString('latin1'), bodyBytes: buffered.length - end - 4 };
      seen.push(current);
      onHead(socket, current);
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `http://127.0.0.1:${address.port}`, seen };
};

const answer = (status: string, body: string): string => `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;

const largeBody = { items: [{ content: 'z'.repeat(EXPECT_CONTINUE_BYTES + 10) }] };
const declaredLength = Buffer.byteLength(JSON.stringify(largeBody));

describe('a large body and Expect: 100-continue', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a server that never sends 100 Continue still gets the whole body and its answer is read', async () => {
    const target = await rawServer((socket, seen) => {
      const poll = setInterval(() => {
        if (seen.bodyBytes < declaredLength) return;
        clearInterval(poll);
        socket.end(answer('200 OK', '{"success":true}'));
      }, 20);
    });
    servers.push(target.server);
    const result = await createTransport({ baseUrl: target.url, userAgent: 'test' }).send({ method: 'POST', path: '/v1/x', body: largeBody }, { timeoutMs: 30_000 });
    expect(result.ok && result.response.status).toBe(200);
    expect(target.seen[0]?.head).toMatch(/\r\nexpect: 100-continue/i);
    expect(target.seen[0]?.bodyBytes).toBe(declaredLength);
  });

  it('a server that answers 413 before 100 Continue: the 413 is read and the body never sent', async () => {
    const target = await rawServer((socket) => socket.end(answer('413 Payload Too Large', '{"detail":"too large"}')));
    servers.push(target.server);
    const result = await createTransport({ baseUrl: target.url, userAgent: 'test' }).send({ method: 'POST', path: '/v1/x', body: largeBody }, { timeoutMs: 30_000 });
    expect(result.ok && result.response).toMatchObject({ status: 413, body: '{"detail":"too large"}' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(target.seen[0]?.bodyBytes).toBe(0);
  });

  it('a small body is sent at once, with no Expect header', async () => {
    const target = await rawServer((socket) => socket.end(answer('200 OK', '{"success":true}')));
    servers.push(target.server);
    const result = await createTransport({ baseUrl: target.url, userAgent: 'test' }).send({ method: 'POST', path: '/v1/x', body: { items: [{ content: 'small' }] } }, { timeoutMs: 30_000 });
    expect(result.ok && result.response.status).toBe(200);
    expect(target.seen[0]?.head).not.toMatch(/expect:/i);
  });
});
