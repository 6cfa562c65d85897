import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';
import { startEmbeddedServer } from '../../src/server/index.js';

const B = '/v1/default/banks';

describe('API key auth', () => {
  let server: TestServer;
  const key = 'sk-test-0123456789abcdef';
  beforeAll(async () => {
    server = await startTestServer({ persist: false, apiKey: key });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('missing or wrong key is 401 Invalid API key, never echoing what was sent', async () => {
    const missing = await call(server, 'GET', B);
    expect(missing).toMatchObject({ status: 401, body: { detail: 'Invalid API key' } });
    const wrong = await call(server, 'GET', B, undefined, { Authorization: 'Bearer sk-wrong-key-000000' });
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain('sk-wrong');
  });
  it('Bearer <key> and the bare key are accepted; /version needs no key', async () => {
    expect((await call(server, 'GET', B, undefined, { Authorization: `Bearer ${key}` })).status).toBe(200);
    expect((await call(server, 'GET', B, undefined, { Authorization: key })).status).toBe(200);
    expect((await call(server, 'GET', '/version')).status).toBe(200);
  });
});

describe('fault injection', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('status 429/503 with Retry-After, counted by times (flapping)', async () => {
    server.setFaults([{ kind: 'status', status: 503, retryAfterSeconds: 7, method: 'POST', path: '/v1/default/banks/*/memories', times: 2 }]);
    const first = await call(server, 'POST', `${B}/f/memories`, { items: [{ content: 'x' }] });
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('7');
    expect(first.body.detail).toContain('503');
    expect((await call(server, 'POST', `${B}/f/memories`, { items: [{ content: 'x' }] })).status).toBe(503);
    expect((await call(server, 'POST', `${B}/f/memories`, { items: [{ content: 'x' }] })).status).toBe(200);
    server.setFaults([{ kind: 'status', status: 429, retryAfterSeconds: 1, times: 1 }]);
    const limited = await call(server, 'GET', '/version');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
  });

  it('401 and 410 statuses, matched by method and path', async () => {
    server.setFaults([
      { kind: 'status', status: 401, method: 'GET', path: '/v1/default/banks' },
      { kind: 'status', status: 410, path: '*/profile' },
    ]);
    expect((await call(server, 'GET', B)).status).toBe(401);
    expect((await call(server, 'GET', `${B}/x/profile`)).status).toBe(410);
    expect((await call(server, 'GET', `${B}/x/tags`)).status).toBe(200);
    server.setFaults([]);
  });

  it('latency holds one answer back: a later request overtakes it', async () => {
    server.setFaults([{ kind: 'latency', ms: 300, times: 1 }]);
    const order: string[] = [];
    const slow = call(server, 'GET', '/version').then((r) => order.push(`slow ${r.status}`));
    await new Promise((r) => setTimeout(r, 20));
    const fast = call(server, 'GET', '/health').then((r) => order.push(`fast ${r.status}`));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['fast 200', 'slow 200']);
  });

  it('drop destroys the connection before any header', async () => {
    server.setFaults([{ kind: 'drop', times: 1 }]);
    await expect(fetch(`${server.url}/version`)).rejects.toThrow();
    expect((await call(server, 'GET', '/version')).status).toBe(200);
  });

  it('stall never answers (the client aborts)', async () => {
    server.setFaults([{ kind: 'stall', times: 1 }]);
    const controller = new AbortController();
    const pending = fetch(`${server.url}/version`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toThrow(/abort/i);
  });

  it('malformed returns a truncated JSON body with 200', async () => {
    server.setFaults([{ kind: 'malformed', times: 1 }]);
    const res = await call(server, 'POST', `${B}/f/memories/recall`, { query: 'x' });
    expect(res.status).toBe(200);
    expect(typeof res.body).toBe('string');
    expect(() => JSON.parse(res.body as string)).toThrow();
  });

  it('ignoreFields drops fields and names them in X-Ignored-Params, like an older server', async () => {
    server.setFaults([{ kind: 'ignoreFields', fields: ['operation_id'], path: '*/memories' }]);
    const res = await call(server, 'POST', `${B}/f/memories`, { items: [{ content: 'y' }], async: true, operation_id: '5d0c4b1a-0000-4000-8000-000000000001' });
    expect(res.headers.get('x-ignored-params')).toBe('operation_id');
    expect(res.body.operation_id).not.toBe('5d0c4b1a-0000-4000-8000-000000000001');
    server.setFaults([]);
  });

  it('failOperation fails async operations with the message', async () => {
    server.setFaults([{ kind: 'failOperation', message: 'injected: worker crashed' }]);
    const res = await call(server, 'POST', `${B}/f/memories`, { items: [{ content: 'z' }], async: true });
    await server.idle();
    expect((await call(server, 'GET', `${B}/f/operations/${res.body.operation_id}`)).body).toMatchObject({
      status: 'failed',
      error_message: 'injected: worker crashed',
    });
    server.setFaults([]);
  });

  it('a bad fault rule is refused with the field named', () => {
    expect(() => server.setFaults([{ kind: 'status' } as never])).toThrow(/status/);
  });
});

describe('mimic', () => {
  it('legacy-0.7 reports 0.7.0, ignores update_mode and operation_id, refuses exact, hides 0.9.1 routes', async () => {
    const server = await startTestServer({ persist: false, mimic: 'legacy-0.7' });
    try {
      expect((await call(server, 'GET', '/version')).body.api_version).toBe('0.7.0');
      expect((await call(server, 'GET', '/health/live')).status).toBe(404);
      await call(server, 'POST', `${B}/l/memories`, { items: [{ content: 'A', document_id: 'd' }] });
      const res = await call(server, 'POST', `${B}/l/memories`, { items: [{ content: 'B', document_id: 'd', update_mode: 'append' }] });
      expect(res.headers.get('x-ignored-params')).toBe('update_mode');
      expect((await call(server, 'GET', `${B}/l/documents/d`)).body.original_text).toBe('B');
      const exact = await call(server, 'POST', `${B}/l/memories/recall`, { query: 'b', tags_match: 'exact' });
      expect(exact.status).toBe(422);
      const op = await call(server, 'POST', `${B}/l/memories`, { items: [{ content: 'C' }], async: true, operation_id: '5d0c4b1a-0000-4000-8000-000000000002' });
      expect(op.headers.get('x-ignored-params')).toBe('operation_id');
    } finally {
      await server.dispose();
    }
  });
  it('0.10 reports 0.10.0', async () => {
    const server = await startEmbeddedServer({ port: 0, mimic: '0.10' });
    try {
      expect((await call(server, 'GET', '/version')).body.api_version).toBe('0.10.0');
    } finally {
      await server.close();
    }
  });
});

describe('HTTP edges', () => {
  it('a body over the limit is 413; close() ends stalled connections', async () => {
    const server = await startTestServer({ persist: false });
    try {
      const big = JSON.stringify({ items: [{ content: 'x'.repeat(33 * 1024 * 1024) }] });
      const res = await call(server, 'POST', `${B}/big/memories`, big, { 'Content-Type': 'application/json' }).catch(() => ({ status: 413 }));
      expect(res.status).toBe(413);
      server.setFaults([{ kind: 'stall' }]);
      const hanging = new Promise<string>((resolve) => {
        const req = request(`${server.url}/version`, (r) => r.resume());
        req.on('error', (e) => resolve(e.message));
        req.end();
      });
      await new Promise((r) => setTimeout(r, 50));
      await server.close();
      expect(await hanging).toMatch(/socket hang up|ECONNRESET/);
    } finally {
      await server.dispose();
    }
  });
});
