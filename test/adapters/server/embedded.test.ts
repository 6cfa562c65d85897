/**
 * The client against the real embedded server: every operation's happy path, auth, the
 * 0.10 and legacy-0.7 profiles, and an idempotent retain resent after a reset.
 */
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import type { MemoryServer, ServerFailure } from '../../../src/effects/ports/memoryServer.js';
import { startEmbeddedServer, type EmbeddedServer } from '../../../src/server/index.js';
import { startFaultServer, type FaultServer } from '../../helpers/faultServer.js';

const API_KEY = 'hsk_embedded_canary_7d41c0f2a9b86e35';

const ok = async <A>(task: () => Promise<E.Either<ServerFailure, A>>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left)}`);
  return result.right;
};

const failed = async <A>(task: () => Promise<E.Either<ServerFailure, A>>): Promise<ServerFailure> => {
  const result = await task();
  if (E.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`);
  expect(JSON.stringify(result.left)).not.toContain(API_KEY);
  return result.left;
};

/** Polls an async operation until it leaves pending/processing. */
const settle = async (client: MemoryServer, bankId: string, operationId: string): Promise<string> => {
  for (let i = 0; i < 200; i += 1) {
    const status = await ok(client.getOperation(bankId, operationId));
    if (status.status !== 'pending' && status.status !== 'processing') return status.status;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return 'still running';
};

describe('server adapter against the embedded server (0.9)', () => {
  let server: EmbeddedServer;
  let client: MemoryServer;

  beforeAll(async () => {
    server = await startEmbeddedServer({ apiKey: API_KEY, operationDelayMs: 0 });
    client = createMemoryServer({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 5_000 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('detects an embedded 0.9.1 server with knowledge pages and append', async () => {
    const caps = await ok(client.capabilities());
    expect(caps).toMatchObject({ apiVersion: '0.9.1', embedded: true, features: { append: true, knowledge: true, exactTags: true, operationId: true } });
    expect((await ok(client.version())).api_version).toBe('0.9.1');
  });

  it('creates a bank, finds it by exact id, and updates its mission', async () => {
    expect(await ok(client.bankExists('adapter-bank'))).toBe(false);
    await ok(client.ensureBank('adapter-bank', { name: 'Adapter bank', mission: 'remember the adapter' }));
    await ok(client.ensureBank('adapter-bank-2', {}));
    expect(await ok(client.bankExists('adapter-bank'))).toBe(true);
    expect(await ok(client.bankExists('adapter'))).toBe(false);
    const listed = await ok(client.listBanks({ q: 'adapter-bank' }));
    expect(listed.map((bank) => bank.bank_id).sort()).toEqual(['adapter-bank', 'adapter-bank-2']);
    const updated = await ok(client.updateBank('adapter-bank', { mission: 'remember more' }));
    expect(updated.bank_id).toBe('adapter-bank');
    const profile = await ok(client.getBankProfile('adapter-bank'));
    expect(profile._tag).toBe('present');
    expect(await ok(client.getBankProfile('no-such-bank'))).toMatchObject({ _tag: 'absent', reason: 'notFound' });
  });

  it('reads and patches bank config and reads stats', async () => {
    const config = await ok(client.getBankConfig('adapter-bank'));
    expect(config._tag).toBe('present');
    const patched = await ok(client.updateBankConfig('adapter-bank', { retain_mission: 'keep decisions' }));
    expect(patched.overrides).toMatchObject({ retain_mission: 'keep decisions' });
    const stats = await ok(client.getBankStats('adapter-bank'));
    expect(stats._tag === 'present' && stats.value.bank_id).toBe('adapter-bank');
  });

  it('retains, appends and recalls with tags, metadata and entities', async () => {
    const first = await ok(
      client.retain('adapter-bank', {
        items: [{ content: 'We chose JSONL for the retain queue journal.', document_id: 'session-1', tags: ['project:p1'], metadata: { source: 'test' }, context: 'decision', entities: [{ text: 'JSONL' }] }],
      }),
    );
    expect(first).toMatchObject({ success: true, items_count: 1 });
    await ok(client.retain('adapter-bank', { items: [{ content: 'Compaction rewrites the journal as a snapshot.', document_id: 'session-1', update_mode: 'append', tags: ['project:p1'] }] }));
    const doc = await ok(client.getDocument('adapter-bank', 'session-1'));
    expect(doc._tag === 'present' && doc.value.original_text).toBe('We chose JSONL for the retain queue journal.\nCompaction rewrites the journal as a snapshot.');
    expect(await ok(client.getDocument('adapter-bank', 'nope'))).toMatchObject({ _tag: 'absent' });

    const recalled = await ok(client.recall('adapter-bank', { query: 'retain queue journal', tags: ['project:p1'], tags_match: 'all_strict' }));
    expect(recalled.results.length).toBeGreaterThan(0);
    expect(recalled.results.some((hit) => hit.text.includes('JSONL'))).toBe(true);
    const exact = await ok(client.recall('adapter-bank', { query: 'retain queue journal', tags: ['project:other'], tags_match: 'exact' }));
    expect(exact.results).toEqual([]);

    const docs = await ok(client.listDocuments('adapter-bank', {}));
    expect(docs.items.map((d) => d.id)).toContain('session-1');
    const tags = await ok(client.listTags('adapter-bank', {}));
    expect(tags.items.map((t) => t.tag)).toContain('project:p1');
  });

  it('retains async with an operation id once, however often it is sent', async () => {
    const operationId = '2f0f7d4e-5b8a-4c1e-9d3a-6b1e2c4f8a01';
    const req = { items: [{ content: 'Async retained fact about breakers.' }], async: true, operation_id: operationId };
    const sent = await ok(client.retain('async-bank', req));
    expect(sent).toMatchObject({ async: true, operation_id: operationId });
    expect(await settle(client, 'async-bank', operationId)).toBe('completed');
    await ok(client.retain('async-bank', req));
    await settle(client, 'async-bank', operationId);
    expect((await ok(client.listDocuments('async-bank', {}))).items).toHaveLength(1);
  });

  it('reflects over what was retained', async () => {
    const reflected = await ok(client.reflect('adapter-bank', { query: 'what journal format did we choose?', include: { facts: {} } }));
    expect(reflected.text.length).toBeGreaterThan(0);
    expect(reflected.based_on?.memories?.length ?? 0).toBeGreaterThan(0);
  });

  it('manages mental models', async () => {
    const created = await ok(client.createMentalModel('adapter-bank', { id: 'mm-conventions', name: 'Conventions', source_query: 'what conventions do we follow?', tags: ['project:p1'] }));
    expect(created.mental_model_id).toBe('mm-conventions');
    const listed = await ok(client.listMentalModels('adapter-bank', { detail: 'metadata' }));
    expect(listed.items.map((m) => m.id)).toContain('mm-conventions');
    const updated = await ok(client.updateMentalModel('adapter-bank', 'mm-conventions', { name: 'Code conventions' }));
    expect(updated.name).toBe('Code conventions');
    const refresh = await ok(client.refreshMentalModel('adapter-bank', 'mm-conventions'));
    expect(await settle(client, 'adapter-bank', refresh.operation_id)).toBe('completed');
    const full = await ok(client.getMentalModel('adapter-bank', 'mm-conventions', 'full'));
    expect(full.last_refreshed_at).toBeTruthy();
    expect(Array.isArray(await ok(client.mentalModelHistory('adapter-bank', 'mm-conventions')))).toBe(true);
    await ok(client.deleteMentalModel('adapter-bank', 'mm-conventions'));
    expect(await failed(client.getMentalModel('adapter-bank', 'mm-conventions'))).toMatchObject({ _tag: 'notFound' });
  });

  it('manages knowledge pages and folders', async () => {
    const folder = await ok(client.createKnowledgeFolder('adapter-bank', { name: 'Architecture' }));
    expect(folder.kind).toBe('folder');
    const page = await ok(client.createKnowledgePage('adapter-bank', { name: 'Queue', source_query: 'how is the retain queue stored?', parent_id: folder.id }));
    expect(page.page_id).toMatch(/^kp-/);
    const duplicate = await failed(client.createKnowledgePage('adapter-bank', { name: 'queue', source_query: 'again', parent_id: folder.id }));
    expect(duplicate).toMatchObject({ _tag: 'invalidRequest', status: 409 });
    const tree = await ok(client.knowledgeTree('adapter-bank'));
    expect(tree.roots.find((node) => node.id === folder.id)?.children?.map((c) => c.id)).toContain(page.page_id);
    const search = await ok(client.searchKnowledge('adapter-bank', { q: 'queue', limit: 5 }));
    expect(search.results.map((r) => r.id)).toContain(page.page_id);
    const read = await ok(client.getKnowledgePage('adapter-bank', page.page_id));
    expect(read.name).toBe('Queue');
    const renamed = await ok(client.updateKnowledgeNode('adapter-bank', page.page_id, { name: 'Retain queue', parent_id: null }));
    expect(renamed.name).toBe('Retain queue');
    const bundle = await ok(client.exportKnowledge('adapter-bank'));
    expect(bundle.files.map((f) => f.path)).toContain('index.md');
    await ok(client.deleteKnowledgeNode('adapter-bank', folder.id));
    await ok(client.deleteKnowledgeNode('adapter-bank', page.page_id));
    expect(await failed(client.getKnowledgePage('adapter-bank', page.page_id))).toMatchObject({ _tag: 'notFound' });
  });

  it('refuses a response schema before sending (no LLM) and keeps the key out of a 401', async () => {
    expect(await failed(client.reflect('adapter-bank', { query: 'q', response_schema: { type: 'object', properties: { a: { type: 'string' } } } }))).toMatchObject({
      _tag: 'unsupportedCapability',
    });
    const wrong = createMemoryServer({ baseUrl: server.url, apiKey: `${API_KEY}-wrong`, timeoutMs: 5_000 });
    expect(await failed(wrong.recall('adapter-bank', { query: 'q' }))).toMatchObject({ _tag: 'unauthorized' });
  });

  it('maps a validation error to invalidRequest with the field', async () => {
    const bad = await failed(client.retain('adapter-bank', { items: [{ content: 'x', update_mode: 'append' }] }));
    expect(bad).toMatchObject({ _tag: 'invalidRequest', status: 400 });
  });
});

describe('server profiles', () => {
  let legacy: EmbeddedServer;
  let v010: EmbeddedServer;
  beforeAll(async () => {
    [legacy, v010] = await Promise.all([startEmbeddedServer({ mimic: 'legacy-0.7' }), startEmbeddedServer({ mimic: '0.10' })]);
  });
  afterAll(async () => {
    await Promise.all([legacy.close(), v010.close()]);
  });

  it('gates append retain and knowledge pages on a legacy 0.7 server', async () => {
    const client = createMemoryServer({ baseUrl: legacy.url, timeoutMs: 5_000 });
    expect(await failed(client.retain('b', { items: [{ content: 'turn', document_id: 'd', update_mode: 'append' }] }))).toEqual({
      _tag: 'unsupportedCapability',
      feature: 'append retain (update_mode "append")',
      serverVersion: '0.7.0',
      remediation: 'upgrade the server to 0.8 or later',
    });
    expect(await failed(client.knowledgeTree('b'))).toMatchObject({ _tag: 'unsupportedCapability', feature: 'knowledge pages' });
    expect(await failed(client.recall('b', { query: 'q', tags_match: 'exact' }))).toMatchObject({ _tag: 'unsupportedCapability' });
    // A plain retain still works.
    expect(await ok(client.retain('b', { items: [{ content: 'plain', document_id: 'd' }] }))).toMatchObject({ success: true });
  });

  it('reads bank lists, mental models and capabilities the same from a 0.9 and a 0.10 server', async () => {
    const v09 = await startEmbeddedServer({});
    try {
      for (const url of [v09.url, v010.url]) {
        const client = createMemoryServer({ baseUrl: url, timeoutMs: 5_000 });
        for (let i = 0; i < 105; i += 1) await ok(client.ensureBank(`many-${i}`, {}));
        expect(await ok(client.capabilities())).toMatchObject({ embedded: true });
        expect((await ok(client.listBanks({}))).filter((b) => b.bank_id.startsWith('many-')).length).toBeGreaterThanOrEqual(100);
        expect((await ok(client.listBanks({ q: 'many-104' }))).map((b) => b.bank_id)).toEqual(['many-104']);
        expect((await ok(client.listMentalModels('many-1', {}))).items).toEqual([]);
      }
    } finally {
      await v09.close();
    }
  });

  it('treats the retired profile of a 0.10 server as absent', async () => {
    const client = createMemoryServer({ baseUrl: v010.url, timeoutMs: 5_000 });
    await ok(client.ensureBank('b', {}));
    expect(await ok(client.getBankProfile('b'))).toMatchObject({ _tag: 'absent', reason: 'gone' });
    expect(await ok(client.bankExists('b'))).toBe(true);
  });
});

describe('idempotent retain resent after a reset', () => {
  let server: EmbeddedServer;
  let proxy: FaultServer;
  beforeAll(async () => {
    server = await startEmbeddedServer({ operationDelayMs: 0 });
    proxy = await startFaultServer({ target: server.url });
    proxy.setFallback({ kind: 'proxy' });
  });
  afterAll(async () => {
    await proxy.close();
    await server.close();
  });

  it('does not duplicate the write the server applied before the connection dropped', async () => {
    const client = createMemoryServer({ baseUrl: proxy.url, timeoutMs: 5_000, retry: { attempts: 3, baseMs: 5, capMs: 20 } });
    const operationId = '8c2d4b1a-3e5f-4a6b-8c7d-9e0f1a2b3c4d';
    // Let /version through, then apply the retain and drop the answer.
    await ok(client.capabilities());
    proxy.script({ kind: 'proxyThenReset' });
    const result = await ok(client.retain('dedupe', { items: [{ content: 'Written once despite the reset.' }], async: true, operation_id: operationId }));
    expect(result.operation_id).toBe(operationId);
    expect(proxy.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    expect(await settle(client, 'dedupe', operationId)).toBe('completed');
    const docs = await ok(client.listDocuments('dedupe', {}));
    expect(docs.items).toHaveLength(1);
  });

  it('does not resend a retain without an operation id after a reset', async () => {
    const client = createMemoryServer({ baseUrl: proxy.url, timeoutMs: 5_000, retry: { attempts: 3, baseMs: 5, capMs: 20 } });
    proxy.requests.length = 0;
    proxy.script({ kind: 'proxyThenReset' });
    expect(await failed(client.retain('no-key', { items: [{ content: 'maybe written' }] }))).toMatchObject({ _tag: 'unreachable' });
    expect(proxy.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});
