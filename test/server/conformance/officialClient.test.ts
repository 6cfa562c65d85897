/**
 * Conformance (2): the official TypeScript client, `@vectorize-io/hindsight-client` 0.9.1,
 * drives every implemented route against the embedded server (with API-key auth on) and
 * gets what its types promise. Routes `HindsightClient` does not wrap go through its
 * exported low-level `sdk` functions, as reference 8.8 recommends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createConfig, HindsightClient, HindsightError, sdk } from '@vectorize-io/hindsight-client';
import { startTestServer } from '../../helpers/embeddedServer.js';
import type { TestServer } from '../../helpers/embeddedServer.js';

const KEY = 'conformance-key-123';
const BANK = 'client-bank';

const rejection = async (promise: Promise<unknown>): Promise<HindsightError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HindsightError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
};

describe('official client 0.9.1 against the embedded server', () => {
  let server: TestServer;
  let client: HindsightClient;
  let low: ReturnType<typeof createClient>;

  beforeAll(async () => {
    server = await startTestServer({ persist: false, apiKey: KEY });
    client = new HindsightClient({ baseUrl: server.url, apiKey: KEY });
    low = createClient(createConfig({ baseUrl: server.url, headers: { Authorization: `Bearer ${KEY}` } }));
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('a wrong key is a HindsightError 401 naming the problem', async () => {
    const wrong = new HindsightClient({ baseUrl: server.url, apiKey: 'nope' });
    const error = await rejection(wrong.recall(BANK, 'anything'));
    expect(error.statusCode).toBe(401);
    expect(error.details).toBe('Invalid API key');
  });

  it('getVersion reports 0.9.1 and every feature flag', async () => {
    const version = await client.getVersion();
    expect(version.api_version).toBe('0.9.1');
    expect(Object.keys(version.features)).toEqual(expect.arrayContaining(['observations', 'worker', 'bank_config_api', 'store_document_text']));
  });

  it('createBank, setMission, getBankProfile, and the bank list through sdk.listBanks', async () => {
    const created = await client.createBank(BANK, { reflectMission: 'Help with the agent-memory repo' });
    expect(created).toMatchObject({ bank_id: BANK, name: BANK, disposition: { skepticism: 3, literalism: 3, empathy: 3 } });
    const withMission = await client.setMission(BANK, 'Remember build facts');
    expect(withMission.bank_id).toBe(BANK);
    const profile = await client.getBankProfile(BANK);
    expect(profile.bank_id).toBe(BANK);
    const list = await sdk.listBanks({ client: low });
    expect(list.data?.banks.map((b) => b.bank_id)).toContain(BANK);
  });

  it('bank config: get, update (camelCase options), reset', async () => {
    const before = await client.getBankConfig(BANK);
    expect(before.bank_id).toBe(BANK);
    const updated = await client.updateBankConfig(BANK, { retainChunkSize: 1500, dispositionEmpathy: 5, enableObservations: true });
    expect(updated.overrides).toMatchObject({ retain_chunk_size: 1500, disposition_empathy: 5, enable_observations: true });
    expect(updated.config['retain_chunk_size']).toBe(1500);
    const reset = await client.resetBankConfig(BANK);
    expect(reset.overrides).toEqual({});
  });

  it('retain, retainBatch (async + operationId) and the operation through sdk.getOperationStatus', async () => {
    const one = await client.retain(BANK, 'The build uses rollup and esbuild.', { documentId: 'build', tags: ['project:x'], context: 'build', metadata: { k: 'v' } });
    expect(one).toMatchObject({ success: true, items_count: 1, async: false });
    const appended = await client.retain(BANK, 'Tests run with vitest.', { documentId: 'build', tags: ['project:x'], updateMode: 'append' });
    expect(appended.success).toBe(true);
    const operationId = '3c9f5e2a-8b1d-4f6e-9a7c-1d2e3f4a5b6c';
    const batch = await client.retainBatch(
      BANK,
      [
        { content: 'Deploys go through GitHub Actions.', document_id: 'ci', tags: ['project:x'], entities: [{ text: 'GitHub' }] },
        { content: 'Alice owns the deploy pipeline.', document_id: 'owners', tags: ['project:x', 'team'] },
      ],
      { async: true, operationId },
    );
    expect(batch).toMatchObject({ success: true, async: true, operation_id: operationId, items_count: 2 });
    await server.idle();
    const status = await sdk.getOperationStatus({ client: low, path: { bank_id: BANK, operation_id: operationId } });
    expect(status.data?.status).toBe('completed');
    const ops = await sdk.listOperations({ client: low, path: { bank_id: BANK } });
    expect(ops.data?.operations.map((o) => o.id)).toContain(operationId);
    const document = await client.getDocument(BANK, 'build');
    expect(document?.original_text).toBe('The build uses rollup and esbuild.\nTests run with vitest.');
    expect(await client.getDocument(BANK, 'no-such-doc')).toBeNull();
  });

  it('recall with the options the client maps, including observations and source facts', async () => {
    const res = await client.recall(BANK, 'deploy pipeline', { tags: ['project:x'], tagsMatch: 'any_strict', includeChunks: true, includeEntities: true, trace: true, budget: 'high' });
    expect(res.results.length).toBeGreaterThan(0);
    expect(res.results.every((r) => typeof r.id === 'string' && typeof r.text === 'string')).toBe(true);
    const observations = await client.recall(BANK, 'GitHub', { types: ['observation'], includeSourceFacts: true });
    expect(observations.results.length).toBeGreaterThan(0);
    expect(observations.results.every((r) => r.type === 'observation')).toBe(true);
    const grouped = await client.recall(BANK, 'deploy', { tagGroups: [{ tags: ['team'], match: 'any_strict' }] });
    expect(grouped.results.every((r) => (r.tags ?? []).includes('team'))).toBe(true);
  });

  it('listMemories, listDocuments, updateDocument and sdk.listTags', async () => {
    const memories = await client.listMemories(BANK, { limit: 50 });
    expect(memories.total).toBeGreaterThan(0);
    const documents = await client.listDocuments(BANK);
    expect(documents.items.map((d) => d['id'])).toEqual(expect.arrayContaining(['build', 'ci', 'owners']));
    const updated = await client.updateDocument(BANK, 'ci', { tags: ['project:x', 'ci'] });
    expect(updated.success).toBe(true);
    const tags = await sdk.listTags({ client: low, path: { bank_id: BANK } });
    expect(tags.data?.items.map((i) => i.tag)).toContain('ci');
  });

  it('directives: create, list, get, update, delete', async () => {
    const created = await client.createDirective(BANK, 'Brevity', 'Answer in one paragraph.', { priority: 3, tags: ['project:x'] });
    expect(created).toMatchObject({ name: 'Brevity', priority: 3, is_active: true, tags: ['project:x'] });
    expect((await client.listDirectives(BANK)).items.map((d) => d.id)).toContain(created.id);
    expect((await client.getDirective(BANK, created.id)).content).toBe('Answer in one paragraph.');
    expect((await client.updateDirective(BANK, created.id, { content: 'Be terse.' })).content).toBe('Be terse.');
    await client.deleteDirective(BANK, created.id);
    await expect(client.getDirective(BANK, created.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('reflect with facts and tool calls, and structured output refused as a capability', async () => {
    const answer = await client.reflect(BANK, 'Who owns the deploy pipeline?', { includeFacts: true, includeToolCalls: true, tags: ['project:x'] });
    expect(answer.text).toContain('Alice');
    expect(answer.based_on?.memories?.some((m) => m.text.includes('Alice'))).toBe(true);
    expect(answer.trace?.tool_calls?.map((c) => c.tool)).toEqual(['search_mental_models', 'recall']);
    const error = await rejection(client.reflect(BANK, 'x', { responseSchema: { type: 'object', properties: { a: { type: 'string' } } } }));
    expect(error.statusCode).toBe(400);
    expect(String(error.details)).toMatch(/^capability_unavailable: /);
  });

  it('mental models: create, get after refresh, list, update, refresh, history, clear, dry-run refused, delete', async () => {
    const created = await client.createMentalModel(BANK, 'Deploys', 'How do deploys work?', { tags: ['project:x'], maxTokens: 512, trigger: { tagsMatch: 'any' } });
    expect(created.mental_model_id).toMatch(/^mm-[0-9a-f]{32}$/);
    await server.idle();
    const model = await client.getMentalModel(BANK, created.mental_model_id ?? '');
    expect(model.content).toContain('GitHub Actions');
    expect(model.is_stale).toBe(false);
    const list = await client.listMentalModels(BANK, { detail: 'metadata', tags: ['project:x'] });
    expect(list.items.map((m) => m.id)).toContain(model.id);
    expect(list.items[0]?.content).toBeUndefined();
    const updated = await client.updateMentalModel(BANK, model.id, { name: 'Deploy process', trigger: { refreshAfterConsolidation: true } });
    expect(updated.name).toBe('Deploy process');
    const refresh = await client.refreshMentalModel(BANK, model.id);
    expect(refresh.status).toBe('queued');
    await server.idle();
    const history = (await client.getMentalModelHistory(BANK, model.id)) as { previous_content: string }[];
    expect(history.length).toBeGreaterThanOrEqual(2);
    expect(history.at(-1)?.previous_content).toBe('Generating content...');
    expect((await client.clearMentalModel(BANK, model.id)).content).toBe('');
    expect((await rejection(client.dryRunRefreshMentalModel(BANK, model.id))).statusCode).toBe(400);
    await client.deleteMentalModel(BANK, model.id);
    expect((await rejection(client.getMentalModel(BANK, model.id))).statusCode).toBe(404);
  });

  it('knowledge base: folder, page, tree, page markdown, search, move, export, delete', async () => {
    const folder = await client.createKnowledgeFolder(BANK, 'Runbooks');
    expect(folder).toMatchObject({ kind: 'folder', name: 'Runbooks' });
    const page = await client.createKnowledgePage(BANK, 'Deploying', 'deploy pipeline', { parentId: folder.id, tags: ['type:runbook', 'project:x'], trigger: { factTypes: ['world'], tagsMatch: 'any' } });
    expect(page.page_id).toMatch(/^kp-/);
    expect(page.mental_model_id).toMatch(/^mm-/);
    await server.idle();
    const tree = await client.getKnowledgeBaseTree(BANK);
    expect(tree.roots[0]?.children?.[0]).toMatchObject({ id: page.page_id, kind: 'page', is_stale: false });
    const rendered = await client.getKnowledgePage(BANK, page.page_id);
    expect(rendered.type).toBe('runbook');
    expect(rendered.markdown.startsWith(`---\nid: "${page.page_id}"\ntype: "runbook"\ntitle: "Deploying"\n`)).toBe(true);
    expect(rendered.body).toContain('Alice owns the deploy pipeline.');
    const found = await client.searchKnowledgeBase(BANK, 'deploy', { limit: 5 });
    expect(found.results[0]?.id).toBe(page.page_id);
    const moved = await client.updateKnowledgeNode(BANK, page.page_id, { parentId: null });
    expect(moved.parent_id ?? null).toBeNull();
    const bundle = await client.exportKnowledgeBase(BANK);
    expect(bundle.files.map((f) => f.path)).toEqual(expect.arrayContaining(['index.md', `${page.page_id}.md`]));
    await client.deleteKnowledgeNode(BANK, page.page_id);
    expect((await rejection(client.getKnowledgePage(BANK, page.page_id))).statusCode).toBe(404);
  });

  it('the low-level sdk reaches what HindsightClient does not wrap: stats, profile writes, chunks, memory, operations, clear', async () => {
    const OTHER = 'client-sdk';
    const path = { bank_id: OTHER };
    expect((await sdk.getLiveness({ client: low })).data?.status).toBe('alive');
    expect((await sdk.getReadiness({ client: low })).response.status).toBe(200);
    await client.retain(OTHER, 'Chunked facts live in chunks.', { documentId: 'doc' });
    expect((await sdk.updateBank({ client: low, path, body: { name: 'SDK bank' } })).data?.name).toBe('SDK bank');
    expect((await sdk.updateBankDisposition({ client: low, path, body: { disposition: { skepticism: 1, literalism: 2, empathy: 3 } } })).data?.disposition.skepticism).toBe(1);
    expect((await sdk.addBankBackground({ client: low, path, body: { content: 'Knows Go.' } })).data?.mission).toContain('Knows Go.');
    const stats = await sdk.getAgentStats({ client: low, path, query: { refresh: true } });
    expect(stats.data).toMatchObject({ bank_id: OTHER, total_documents: 1 });
    const chunks = await sdk.listDocumentChunks({ client: low, path: { bank_id: OTHER, document_id: 'doc' } });
    const chunkId = chunks.data?.items[0]?.chunk_id ?? '';
    expect((await sdk.getChunk({ client: low, path: { chunk_id: chunkId } })).data?.chunk_text).toBe('Chunked facts live in chunks.');
    const memoryId = (await client.listMemories(OTHER)).items.find((m) => m['fact_type'] === 'world')?.['id'];
    expect((await sdk.getMemory({ client: low, path: { bank_id: OTHER, memory_id: String(memoryId) } })).response.status).toBe(200);

    server.setFaults([{ kind: 'failOperation', taskType: 'retain', message: 'injected' }]);
    const failing = await client.retain(OTHER, 'Will fail first.', { async: true });
    await server.idle();
    server.setFaults([]);
    const failedId = failing.operation_id ?? '';
    expect((await sdk.getOperationStatus({ client: low, path: { bank_id: OTHER, operation_id: failedId } })).data?.status).toBe('failed');
    expect((await sdk.retryOperation({ client: low, path: { bank_id: OTHER, operation_id: failedId } })).data?.success).toBe(true);
    await server.idle();
    expect((await sdk.deleteOperation({ client: low, path: { bank_id: OTHER, operation_id: failedId } })).data?.success).toBe(true);

    server.setFaults([{ kind: 'pendingOperation', taskType: 'retain' }]);
    const waiting = await client.retain(OTHER, 'Stays pending.', { async: true });
    await server.idle();
    server.setFaults([]);
    expect((await sdk.cancelOperation({ client: low, path: { bank_id: OTHER, operation_id: waiting.operation_id ?? '' } })).data?.success).toBe(true);

    expect((await sdk.clearBankMemories({ client: low, path })).data?.success).toBe(true);
    expect((await client.listMemories(OTHER)).total).toBe(0);
  });

  it('deleteDocument and deleteBank', async () => {
    await client.deleteDocument(BANK, 'ci');
    expect(await client.getDocument(BANK, 'ci')).toBeNull();
    await client.deleteBank(BANK);
    const list = await sdk.listBanks({ client: low });
    expect(list.data?.banks.map((b) => b.bank_id)).not.toContain(BANK);
  });
});
