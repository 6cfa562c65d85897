/**
 * Attack: a webhook receiver that answers 150 MB (issue 26, item 9). The embedded server read
 * the whole answer as text to keep its first 2,000 characters: 1 GB of memory for one delivery.
 * A real receiver on loopback streams its answer with backpressure; the real embedded server
 * delivers a `retain.completed` to it: the delivery is recorded, and the server stops reading
 * after a few kilobytes, so the receiver could write only a small part of what it offered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';

const B = '/v1/default/banks/hook-answer';
const OFFERED = 150 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

describe('webhook answers are read up to a cap (real receiver, real server)', () => {
  let server: TestServer;
  let receiver: Server;
  let url = '';
  // What the receiver managed to hand to its socket before the server stopped reading.
  let written = 0;
  let finished: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        finished = new Promise<void>((resolve) => {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(OFFERED) });
          const pump = (): void => {
            while (written < OFFERED) {
              written += CHUNK.length;
              if (!res.write(CHUNK)) {
                res.once('drain', pump);
                return;
              }
            }
            res.end();
          };
          res.on('close', () => resolve());
          pump();
        });
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await server.dispose();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('a 150 MB answer: the delivery is recorded with the start of the answer, and the rest is never read', async () => {
    const hook = await call(server, 'POST', `${B}/webhooks`, { url, event_types: ['retain.completed'] });
    expect(hook.status).toBe(201);
    await call(server, 'POST', `${B}/memories`, { items: [{ content: 'A memory that fires the hook.' }] });
    await server.idle();
    const deadline = Date.now() + 60_000;
    let delivery: { status?: string; last_response_status?: number; last_response_body?: string } = {};
    while (Date.now() < deadline) {
      const deliveries = await call(server, 'GET', `${B}/webhooks/${String(hook.body.id)}/deliveries`);
      delivery = ((deliveries.body.items as (typeof delivery)[] | undefined) ?? [])[0] ?? {};
      if (delivery.status !== undefined && delivery.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(delivery).toMatchObject({ status: 'delivered', last_response_status: 200 });
    expect(delivery.last_response_body).toMatch(/^a{2000}$/);
    await Promise.race([finished, new Promise((r) => setTimeout(r, 5000))]);
    // Socket buffers on both sides hold a few MB at most; reading it all would have taken all 150.
    expect(written).toBeLessThan(32 * 1024 * 1024);
  }, 90_000);
});
