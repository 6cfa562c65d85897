import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';

let server: TestServer;
const B = '/v1/default/banks';

beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
});

describe('meta', () => {
  it('/version reports 0.9.1 and exactly the 0.9.1 no-LLM feature flags; the embedded marker is a header', async () => {
    const res = await call(server, 'GET', '/version');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-hindsight-embedded')).toBe('1');
    expect(res.body).toEqual({
      api_version: '0.9.1',
      features: {
        observations: false,
        mcp: false,
        worker: true,
        bank_config_api: true,
        bank_llm_health: false,
        file_upload_api: false,
        document_export_api: false,
        document_import_api: false,
        audit_log: false,
        llm_trace: false,
        store_document_text: true,
      },
    });
  });
  it('/health, /health/live, /health/ready and /openapi.json answer', async () => {
    expect((await call(server, 'GET', '/health')).body).toMatchObject({ status: 'healthy' });
    expect((await call(server, 'GET', '/health/ready')).status).toBe(200);
    expect((await call(server, 'GET', '/health/live')).body).toMatchObject({ status: 'alive', version: '0.9.1' });
    const spec = await call(server, 'GET', '/openapi.json');
    expect(spec.body.info.version).toBe('0.9.1');
  });
  it('no-LLM features answer 400 capability_unavailable; retired routes 410', async () => {
    for (const path of ['memories/dry-run-extract', 'files/retain', 'consolidate', 'health/llm']) {
      const res = await call(server, 'POST', `/v1/default/banks/b/${path}`, {});
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/^capability_unavailable: .+ is not supported by the embedded server$/);
    }
    expect((await call(server, 'POST', '/v1/default/banks/b/entities/e/regenerate')).status).toBe(410);
    expect((await call(server, 'GET', '/v1/default/banks/b/document-transfer')).status).toBe(410);
  });
  it('unknown routes are 404 Not Found, a wrong method is 405', async () => {
    expect(await call(server, 'GET', '/v1/default/banks/b/no-such-area')).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    expect(await call(server, 'PUT', '/version')).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } });
  });
});

describe('banks', () => {
  it('PUT is idempotent with upstream defaults; mission goes to the profile view', async () => {
    const first = await call(server, 'PUT', `${B}/bk-1`, {});
    expect(first.body).toEqual({ bank_id: 'bk-1', name: 'bk-1', disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: '', background: '' });
    const again = await call(server, 'PUT', `${B}/bk-1`, { name: 'Bank One', mission: 'remember code' });
    expect(again.body).toMatchObject({ name: 'Bank One', mission: 'remember code', background: 'remember code' });
    const list = await call(server, 'GET', `${B}?q=bk-1`);
    expect(list.body.banks[0]).toMatchObject({ bank_id: 'bk-1', name: 'Bank One', mission: 'remember code', fact_count: 0 });
  });
  it('PUT with an invalid config value is a 400 and creates nothing', async () => {
    const res = await call(server, 'PUT', `${B}/bk-bad`, { disposition_empathy: 9 });
    expect(res.status).toBe(400);
    expect((await call(server, 'GET', `${B}?q=bk-bad`)).body.banks).toEqual([]);
  });
  it('PATCH on a missing bank is 404 with the upstream detail', async () => {
    expect(await call(server, 'PATCH', `${B}/bk-missing`, { name: 'x' })).toMatchObject({ status: 404, body: { detail: "Bank 'bk-missing' not found" } });
  });
  it('lists with q (id or name, case-insensitive), most recently written first, as {"banks"} only (0.9.1 has no paging)', async () => {
    for (const id of ['ls-a', 'ls-b', 'ls-c']) {
      await call(server, 'POST', `${B}/${id}/memories`, { items: [{ content: `fact in ${id}` }] });
      // Write times are kept to the millisecond: two writes in one millisecond are a tie (broken by id).
      await new Promise((r) => setTimeout(r, 3));
    }
    const all = await call(server, 'GET', `${B}?q=LS-&limit=1`);
    expect(Object.keys(all.body)).toEqual(['banks']);
    expect(all.body.banks.map((b: { bank_id: string }) => b.bank_id)).toEqual(['ls-c', 'ls-b', 'ls-a']);
  });
  it('DELETE removes the bank and counts; a missing bank is 200 with 0', async () => {
    await call(server, 'POST', `${B}/del-me/memories`, { items: [{ content: 'gone soon', document_id: 'd', entities: [{ text: 'E' }] }] });
    const res = await call(server, 'DELETE', `${B}/del-me`);
    expect(res.body).toMatchObject({ success: true });
    expect(res.body.deleted_count).toBeGreaterThanOrEqual(3);
    expect((await call(server, 'GET', `${B}?q=del-me`)).body.banks).toEqual([]);
    expect((await call(server, 'DELETE', `${B}/del-me`)).body).toMatchObject({ success: true, deleted_count: 0 });
  });
  it('DELETE memories clears a type or everything', async () => {
    await call(server, 'POST', `${B}/clr/memories`, { items: [{ content: 'one', document_id: 'a' }, { content: 'two', document_id: 'b' }] });
    const res = await call(server, 'DELETE', `${B}/clr/memories?type=world`);
    expect(res.body.deleted_count).toBe(2);
    expect((await call(server, 'GET', `${B}/clr/memories/list?type=world`)).body.total).toBe(0);
  });
});

describe('documents', () => {
  beforeAll(async () => {
    await call(server, 'POST', `${B}/docs/memories`, {
      items: [
        { content: 'alpha text', document_id: 'team/a', tags: ['team'] },
        { content: 'beta text', document_id: 'solo-b' },
      ],
    });
  });
  it('lists with q, tags (default any_strict), limit and offset', async () => {
    const all = await call(server, 'GET', `${B}/docs/documents`);
    expect(all.body.total).toBe(2);
    expect(all.body.items[0]).toEqual(
      expect.objectContaining({ bank_id: 'docs', text_length: expect.any(Number), memory_unit_count: 1, retain_params: expect.any(Object) }),
    );
    expect((await call(server, 'GET', `${B}/docs/documents?q=TEAM`)).body.items.map((d: { id: string }) => d.id)).toEqual(['team/a']);
    expect((await call(server, 'GET', `${B}/docs/documents?tags=team`)).body.items.map((d: { id: string }) => d.id)).toEqual(['team/a']);
    expect((await call(server, 'GET', `${B}/docs/documents?tags=team&tags_match=any`)).body.total).toBe(2);
  });
  it('gets a document (nulls kept), 404 for a missing one', async () => {
    const res = await call(server, 'GET', `${B}/docs/documents/${encodeURIComponent('team/a')}`);
    expect(res.body).toMatchObject({ id: 'team/a', original_text: 'alpha text', memory_unit_count: 1, tags: ['team'], document_metadata: null });
    expect(await call(server, 'GET', `${B}/docs/documents/nope`)).toMatchObject({ status: 404, body: { detail: 'Document not found' } });
  });
  it('lists chunks and gets a chunk by id', async () => {
    const res = await call(server, 'GET', `${B}/docs/documents/solo-b/chunks`);
    expect(res.body).toMatchObject({ total: 1, items: [{ chunk_id: 'docs_solo-b_0', chunk_index: 0, chunk_text: 'beta text', document_id: 'solo-b' }] });
    expect((await call(server, 'GET', '/v1/default/chunks/docs_solo-b_0')).body).toMatchObject({ bank_id: 'docs', chunk_text: 'beta text' });
  });
  it('PATCH retags the document and its facts; no field is a 422 string detail', async () => {
    expect((await call(server, 'PATCH', `${B}/docs/documents/solo-b`, { tags: ['x', 'y'] })).body).toEqual({ success: true });
    const facts = await call(server, 'GET', `${B}/docs/memories/list?type=world&document_id=solo-b`);
    expect(facts.body.items[0].tags).toEqual(['x', 'y']);
    expect(await call(server, 'PATCH', `${B}/docs/documents/solo-b`, {})).toMatchObject({ status: 422, body: { detail: 'At least one field (tags) must be provided' } });
  });
  it('DELETE removes the document and its facts', async () => {
    const res = await call(server, 'DELETE', `${B}/docs/documents/solo-b`);
    expect(res.body).toEqual({ success: true, message: "Document 'solo-b' deleted", document_id: 'solo-b', memory_units_deleted: 1 });
    expect((await call(server, 'GET', `${B}/docs/memories/list?type=world&document_id=solo-b`)).body.total).toBe(0);
    expect((await call(server, 'DELETE', `${B}/docs/documents/solo-b`)).status).toBe(404);
  });
});

describe('memories list and get', () => {
  beforeAll(async () => {
    await call(server, 'POST', `${B}/mem/memories`, {
      items: [
        { content: 'older fact', document_id: 'o', timestamp: '2024-01-01T00:00:00Z', tags: ['t'] },
        { content: 'newer fact', document_id: 'n', timestamp: '2025-01-01T00:00:00Z' },
      ],
    });
  });
  it('orders by mentioned_at desc and filters by q, tags and exact', async () => {
    const all = await call(server, 'GET', `${B}/mem/memories/list?type=world`);
    expect(all.body.items.map((m: { text: string }) => m.text)).toEqual(['newer fact', 'older fact']);
    expect(all.body.items[0]).toMatchObject({ context: '', metadata: {}, state: 'valid', fact_type: 'world', entities: '' });
    expect((await call(server, 'GET', `${B}/mem/memories/list?type=world&q=OLDER`)).body.total).toBe(1);
    expect((await call(server, 'GET', `${B}/mem/memories/list?type=world&tags_match=exact`)).body.items.map((m: { text: string }) => m.text)).toEqual(['newer fact']);
    expect((await call(server, 'GET', `${B}/mem/memories/list?type=world&tags=t&tags_match=any_strict`)).body.total).toBe(1);
    expect((await call(server, 'GET', `${B}/mem/memories/list?tags_match=bogus`)).status).toBe(422);
  });
  it('gets one memory by id in the upstream detail shape; 400 for a non-UUID id, 404 for unknown', async () => {
    const [first] = (await call(server, 'GET', `${B}/mem/memories/list?type=world`)).body.items;
    const detail = (await call(server, 'GET', `${B}/mem/memories/${first.id}`)).body;
    expect(detail).toMatchObject({ id: first.id, text: 'newer fact', type: 'world', entities: [], state: 'valid' });
    expect(detail).not.toHaveProperty('fact_type');
    expect((await call(server, 'GET', `${B}/mem/memories/nope`)).status).toBe(400);
    expect((await call(server, 'GET', `${B}/mem/memories/7d1e8c3a-5b2f-4e6d-8a9c-0f1e2d3c4b5a`)).status).toBe(404);
  });
});

describe('tags', () => {
  it('counts tags with wildcard q, limit and offset', async () => {
    await call(server, 'POST', `${B}/tg/memories`, {
      items: [
        { content: 'a', document_id: 'a', tags: ['user:alice', 'team'] },
        { content: 'b', document_id: 'b', tags: ['user:bob', 'team'] },
      ],
    });
    const res = await call(server, 'GET', `${B}/tg/tags`);
    expect(res.body.items.find((i: { tag: string }) => i.tag === 'team')).toEqual({ tag: 'team', count: 2 });
    const users = await call(server, 'GET', `${B}/tg/tags?q=USER:*`);
    expect(users.body.items.map((i: { tag: string }) => i.tag).sort()).toEqual(['user:alice', 'user:bob']);
    expect((await call(server, 'GET', `${B}/tg/tags?limit=1&offset=1`)).body.items).toHaveLength(1);
  });
});

describe('operations', () => {
  it('lists, 200 not_found for an unknown UUID, 400 for a malformed id, retries failed, deletes terminal', async () => {
    server.setFaults([{ kind: 'failOperation', taskType: 'retain', message: 'disk on fire', times: 1 }]);
    const sub = await call(server, 'POST', `${B}/ops/memories`, { items: [{ content: 'eventually stored' }], async: true });
    await server.idle();
    const id = sub.body.operation_id as string;
    expect((await call(server, 'GET', `${B}/ops/operations/${id}`)).body).toMatchObject({ status: 'failed', error_message: 'disk on fire' });
    const list = await call(server, 'GET', `${B}/ops/operations`);
    expect(list.body).toMatchObject({ bank_id: 'ops', total: 2, limit: 20, offset: 0 });
    expect((await call(server, 'GET', `${B}/ops/operations?exclude_parents=true`)).body.total).toBe(1);
    expect((await call(server, 'POST', `${B}/ops/operations/${id}/retry`)).body).toMatchObject({ success: true, operation_id: id });
    await server.idle();
    expect((await call(server, 'GET', `${B}/ops/operations/${id}`)).body.status).toBe('completed');
    expect((await call(server, 'GET', `${B}/ops/memories/list?type=world`)).body.total).toBe(1);
    expect((await call(server, 'DELETE', `${B}/ops/operations/${id}`)).status).toBe(400);
    expect((await call(server, 'DELETE', `${B}/ops/operations/${id}/delete`)).body).toMatchObject({ success: true });
    expect((await call(server, 'GET', `${B}/ops/operations/${id}`)).body).toEqual({ operation_id: id, status: 'not_found' });
    expect((await call(server, 'GET', `${B}/ops/operations/not-a-uuid`)).body).toEqual({ detail: 'Invalid operation_id format: not-a-uuid' });
    expect((await call(server, 'POST', `${B}/ops/operations/00000000-0000-4000-8000-000000000000/retry`)).status).toBe(404);
  });
  it('a pending operation can be cancelled', async () => {
    server.setFaults([{ kind: 'pendingOperation', taskType: 'retain', times: 1 }]);
    const sub = await call(server, 'POST', `${B}/ops2/memories`, { items: [{ content: 'never runs' }], async: true });
    await server.idle();
    const id = sub.body.operation_id as string;
    expect((await call(server, 'GET', `${B}/ops2/operations/${id}`)).body.status).toBe('pending');
    expect((await call(server, 'DELETE', `${B}/ops2/operations/${id}`)).body).toMatchObject({ success: true });
    expect((await call(server, 'GET', `${B}/ops2/operations/${id}`)).body.status).toBe('cancelled');
    server.setFaults([]);
  });
});

describe('operationDelayMs', () => {
  it('keeps an async retain pending until the delay has passed, so clients exercise their polling', async () => {
    const slow = await startTestServer({ persist: false, operationDelayMs: 600_000 });
    try {
      const sub = await call(slow, 'POST', `${B}/slow/memories`, { items: [{ content: 'later' }], async: true });
      const status = await call(slow, 'GET', `${B}/slow/operations/${sub.body.operation_id}`);
      expect(status.body.status).toBe('pending');
      expect((await call(slow, 'GET', `${B}/slow/memories/list?type=world`)).body.total).toBe(0);
    } finally {
      await slow.dispose();
    }
  });
});
