/**
 * Webhooks deliver `retain.completed` to loopback URLs, one per item with that item's own
 * tags, signed when the hook has a secret; the audit log lists a bank's writes.
 */
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';

const B = '/v1/default/banks/hooks';
let server: TestServer;
let receiver: Server;
let receiverUrl = '';
const received: { body: string; signature: string | undefined }[] = [];

beforeAll(async () => {
  server = await startTestServer({ persist: false });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const sig = req.headers['x-hindsight-signature'];
      received.push({ body, signature: Array.isArray(sig) ? sig[0] : sig });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await server.dispose();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('webhooks', () => {
  it('delivers retain.completed per item with its own tags, signed, and lists the deliveries', async () => {
    const hook = await call(server, 'POST', `${B}/webhooks`, { url: receiverUrl, event_types: ['retain.completed'], secret: 'k' });
    expect(hook.status).toBe(201);
    expect(hook.body.secret).not.toBe('k');
    await call(server, 'POST', `${B}/memories`, {
      items: [
        { content: 'Ivan item', tags: ['user_ivan'], document_id: 'shared' },
        { content: 'Karl item', tags: ['user_karl'], document_id: 'shared' },
      ],
    });
    const deadline = Date.now() + 5000;
    while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const payloads = received.map((r) => JSON.parse(r.body) as { event: string; bank_id: string; data: { document_id: string; tags: string[]; memory_unit_count: number } });
    expect(payloads.map((p) => p.data.tags)).toEqual([['user_ivan'], ['user_karl']]);
    expect(payloads.every((p) => p.event === 'retain.completed' && p.bank_id === 'hooks' && p.data.document_id === 'shared' && p.data.memory_unit_count === 2)).toBe(true);
    for (const r of received) expect(r.signature).toBe(`sha256=${createHmac('sha256', 'k').update(r.body).digest('hex')}`);
    const deliveries = await call(server, 'GET', `${B}/webhooks/${String(hook.body.id)}/deliveries`);
    expect(deliveries.body.items).toHaveLength(2);
    expect(deliveries.body.items[0]).toMatchObject({ status: 'delivered', attempts: 1, last_response_status: 200, event_type: 'retain.completed' });
  });

  it('refuses a non-loopback URL and an unknown event type with 400', async () => {
    expect((await call(server, 'POST', `${B}/webhooks`, { url: 'https://example.com/x' })).body.detail).toMatch(/loopback URLs only/);
    expect((await call(server, 'POST', `${B}/webhooks`, { url: receiverUrl, event_types: ['nope'] })).status).toBe(400);
  });
});

describe('audit log', () => {
  it('lists the bank writes newest first, filters by action, and counts them per bucket', async () => {
    await call(server, 'PATCH', `${B}/config`, { updates: { retain_chunk_size: 2000 } });
    const all = await call(server, 'GET', `${B}/audit-logs`);
    const actions = (all.body.items as { action: string }[]).map((e) => e.action);
    expect(actions[0]).toBe('update_bank_config');
    expect(actions).toContain('retain');
    const retains = await call(server, 'GET', `${B}/audit-logs?action=retain`);
    expect(retains.body.total).toBe(1);
    const stats = await call(server, 'GET', `${B}/audit-logs/stats?period=1d`);
    expect((stats.body.buckets as { total: number }[]).reduce((n, b) => n + b.total, 0)).toBe(all.body.total);
  });

  it("names each request by upstream's action, and leaves out what upstream does not audit", async () => {
    const A = '/v1/default/banks/audit-names';
    await call(server, 'PUT', A, {});
    await call(server, 'POST', `${A}/memories`, { items: [{ content: 'the deploy runs on Fridays', document_id: 'docs/deploy/notes.md' }] });
    await call(server, 'POST', `${A}/memories/recall`, { query: 'when is the deploy' });
    const model = await call(server, 'POST', `${A}/mental-models`, { name: 'deploys', source_query: 'deploy' });
    await call(server, 'PATCH', `${A}/mental-models/${String(model.body.mental_model_id ?? model.body.id)}`, { name: 'deploy days' });
    await call(server, 'POST', `${A}/directives`, { name: 'tone', content: 'Be brief.' });
    await call(server, 'DELETE', `${A}/documents/docs/deploy/notes.md`);
    expect((await call(server, 'POST', `${A}/knowledge-base/folders`, { name: 'notes' })).status).toBe(201);
    const listed = await call(server, 'GET', `${A}/audit-logs`);
    const actions = (listed.body.items as { action: string }[]).map((e) => e.action).reverse();
    expect(actions).toEqual(['create_bank', 'retain', 'recall', 'create_mental_model', 'update_mental_model', 'create_directive', 'delete_document']);
  });
});
