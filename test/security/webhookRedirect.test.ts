/**
 * Round 10: the embedded server delivers webhooks to loopback URLs only (it must not become a
 * way to send memories off the machine), but it checked the registered URL and then let `fetch`
 * follow redirects: a loopback receiver answering 307 had the delivery, its payload, its
 * `X-Hindsight-Signature` and the hook's own headers (a receiver's token) sent to whatever the
 * `Location` named, never checked. Now no redirect is followed: the delivery is recorded as
 * failed with the receiver's 3xx. A real embedded server, a real receiver that redirects and a
 * second real listener standing for the unchecked target.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';

const B = '/v1/default/banks/hook-redirect';

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

describe('webhook deliveries follow no redirect (real server, real receivers)', () => {
  let server: TestServer;
  let redirector: Server;
  let target: Server;
  const reached: { path: string; headers: Record<string, unknown> }[] = [];
  let hookUrl = '';

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    target = createServer((req, res) => {
      reached.push({ path: req.url ?? '', headers: req.headers });
      req.resume();
      res.end('ok');
    });
    const targetPort = await listen(target);
    redirector = createServer((req, res) => {
      req.resume();
      // Any host would do; another port of this machine stands for it, so the test needs no network.
      res.writeHead(307, { location: `http://[::ffff:127.0.0.1]:${targetPort}/elsewhere` });
      res.end();
    });
    hookUrl = `http://127.0.0.1:${await listen(redirector)}/hook`;
  });
  afterAll(async () => {
    await server.dispose();
    for (const s of [redirector, target]) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  it('a receiver answering 307: the delivery fails with 307 and the Location is never contacted', async () => {
    const hook = await call(server, 'POST', `${B}/webhooks`, { url: hookUrl, event_types: ['retain.completed'], secret: 'hook-secret', http_config: { headers: { 'X-Receiver-Token': 'receiver-token-1234' } } });
    expect(hook.status).toBe(201);
    await call(server, 'POST', `${B}/memories`, { items: [{ content: 'A memory that fires the hook.' }] });
    await server.idle();
    const deadline = Date.now() + 30_000;
    let delivery: { status?: string; last_response_status?: number; last_error?: string } = {};
    while (Date.now() < deadline) {
      const deliveries = await call(server, 'GET', `${B}/webhooks/${String(hook.body.id)}/deliveries`);
      delivery = ((deliveries.body.items as (typeof delivery)[] | undefined) ?? [])[0] ?? {};
      if (delivery.status !== undefined && delivery.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(delivery).toMatchObject({ status: 'failed', last_response_status: 307 });
    expect(reached).toEqual([]);
  }, 60_000);
});
