import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODING_BANK, PROJECT_TAG, startHarness, type Harness } from './harness.js';

describe('memory_mental_model on a 0.9 server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.ok('memory_retain', { content: 'The parser module owns tokenising and the AST.', context: 'architecture note' });
  });
  afterAll(async () => h.close());

  it('create previews by default with project-tier default tags and sends nothing', async () => {
    const preview = await h.ok('memory_mental_model', { action: 'create', name: 'Architecture', sourceQuery: 'What are the modules?' });
    const d = preview.details as { dryRun: boolean; wouldCreate: { tags: string[]; trigger: Record<string, unknown> } };
    expect(d.dryRun).toBe(true);
    expect(d.wouldCreate.tags).toEqual(['source:pi', PROJECT_TAG]);
    expect(d.wouldCreate.trigger).toEqual({ refresh_after_consolidation: true });
    const list = await h.ok('memory_mental_model', { action: 'list' });
    expect(list.text).toContain('No mental models');
  });

  it('create, list (metadata only), get, update, refresh and delete apply with dryRun:false', async () => {
    const created = await h.ok('memory_mental_model', { action: 'create', name: 'Architecture', sourceQuery: 'What are the modules?', dryRun: false });
    const id = (created.details as { created: { mental_model_id: string } }).created.mental_model_id;
    expect(id).toBeTruthy();
    const list = await h.ok('memory_mental_model', { action: 'list' });
    const items = (list.details as { items: Record<string, unknown>[] }).items;
    expect(items).toHaveLength(1);
    expect(Object.keys(items[0] ?? {}).every((k) => ['id', 'name', 'tags', 'max_tokens', 'last_refreshed_at'].includes(k))).toBe(true);
    const got = await h.ok('memory_mental_model', { action: 'get', id });
    expect(got.text).toContain('Mental model');
    const updatePreview = await h.ok('memory_mental_model', { action: 'update', id, name: 'Modules' });
    expect((updatePreview.details as { dryRun: boolean }).dryRun).toBe(true);
    await h.ok('memory_mental_model', { action: 'update', id, name: 'Modules', dryRun: false });
    expect((await h.ok('memory_mental_model', { action: 'list' })).text).toContain('Modules');
    const refreshed = await h.ok('memory_mental_model', { action: 'refresh', id, dryRun: false });
    expect((refreshed.details as { operationId: string }).operationId).toBeTruthy();
    const deletePreview = await h.ok('memory_mental_model', { action: 'delete', id });
    expect((deletePreview.details as { wouldDelete: boolean }).wouldDelete).toBe(true);
    expect((await h.ok('memory_mental_model', { action: 'list' })).text).toContain('Modules');
    await h.ok('memory_mental_model', { action: 'delete', id, dryRun: false });
    expect((await h.ok('memory_mental_model', { action: 'list' })).text).toContain('No mental models');
  });

  it('names what is missing per action', async () => {
    expect((await h.fails('memory_mental_model', { action: 'get' })).message).toContain('id is required for get');
    expect((await h.fails('memory_mental_model', { action: 'create', name: 'x' })).message).toContain('name and sourceQuery are required for create');
    expect((await h.fails('memory_mental_model', { action: 'update', id: 'mm-1' })).message).toContain('Provide name, sourceQuery, tags, maxTokens and/or tagsMatch');
    const missing = await h.fails('memory_mental_model', { action: 'get', id: 'mm-does-not-exist' });
    expect(missing.code).toBe('server');
    expect(missing.message).toContain('404');
  });
});

describe('memory_knowledge on a 0.9 server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.ok('memory_retain', { content: 'Convention: every module exports named functions only.', context: 'style guide' });
  });
  afterAll(async () => h.close());

  it('seed_taxonomy previews, applies, and is idempotent by name', async () => {
    const preview = await h.ok('memory_knowledge', { action: 'seed_taxonomy' });
    const p = preview.details as { dryRun: boolean; available: boolean; wouldCreate: { name: string; tags: string[]; max_tokens: number }[] };
    expect(p.dryRun).toBe(true);
    expect(p.available).toBe(true);
    expect(p.wouldCreate.map((w) => w.name)).toEqual(['Component map', 'Core concepts', 'Conventions and patterns', 'Key decisions and rationale', 'Initiatives and enhancements']);
    expect(p.wouldCreate[0]?.tags).toEqual(['source:pi', PROJECT_TAG, 'knowledge:component']);
    expect((await h.ok('memory_knowledge', { action: 'tree' })).text).toContain('No knowledge pages');
    const applied = await h.ok('memory_knowledge', { action: 'seed_taxonomy', dryRun: false });
    expect((applied.details as { created: unknown[] }).created).toHaveLength(5);
    const again = await h.ok('memory_knowledge', { action: 'seed_taxonomy', dryRun: false });
    expect((again.details as { created: unknown[]; skippedExisting: string[] }).created).toHaveLength(0);
    expect((again.details as { skippedExisting: string[] }).skippedExisting).toHaveLength(5);
  });

  it('tree, search, get, export, folders, update and delete', async () => {
    const folder = await h.ok('memory_knowledge', { action: 'create_folder', name: 'Guides', dryRun: false });
    const folderId = (folder.details as { created: { id: string } }).created.id;
    const page = await h.ok('memory_knowledge', { action: 'create_page', name: 'Style', sourceQuery: 'What is the code style?', parentId: folderId, dryRun: false });
    const pageId = (page.details as { created: { page_id: string } }).created.page_id;
    const tree = await h.ok('memory_knowledge', { action: 'tree' });
    expect(tree.text).toContain('Guides/');
    expect(tree.text).toContain(`Style (${pageId})`);
    const search = await h.ok('memory_knowledge', { action: 'search', query: 'style', limit: 5 });
    expect(search.text).toContain(pageId);
    const got = await h.ok('memory_knowledge', { action: 'get', id: pageId });
    expect(got.text).toContain('title: "Style"');
    const exported = await h.ok('memory_knowledge', { action: 'export' });
    expect(exported.text).toContain('index.md');
    const movePreview = await h.ok('memory_knowledge', { action: 'update', id: pageId, parentId: null });
    expect((movePreview.details as { wouldUpdate: Record<string, unknown> }).wouldUpdate).toEqual({ parent_id: null });
    await h.ok('memory_knowledge', { action: 'update', id: pageId, parentId: null, dryRun: false });
    await h.ok('memory_knowledge', { action: 'delete', id: folderId, dryRun: false });
    const after = await h.ok('memory_knowledge', { action: 'tree' });
    expect(after.text).not.toContain('Guides/');
    expect(after.text).toContain('Style');
    expect((await h.fails('memory_knowledge', { action: 'search' })).message).toContain('query is required for search');
  });
});

describe('capability gating against the legacy-0.7 server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ mimic: 'legacy-0.7' });
  });
  afterAll(async () => h.close());

  it('knowledge actions fail with an unsupported-capability error; nothing is reshaped', async () => {
    const error = await h.fails('memory_knowledge', { action: 'tree' });
    expect(error.code).toBe('unsupportedCapability');
    expect(error.message).toContain('knowledge pages');
    expect(error.message).toContain('0.7.0');
  });

  it('seed_taxonomy degrades to available:false instead of failing', async () => {
    const result = await h.ok('memory_knowledge', { action: 'seed_taxonomy', dryRun: false });
    expect(result.details).toMatchObject({ available: false, reason: 'knowledge_pages_unavailable', created: [] });
  });

  it('advanced recall options are refused before sending; plain recall still works', async () => {
    const exact = await h.fails('memory_recall', { query: 'anything', tags: ['a'], tagsMatch: 'exact' });
    expect(exact.code).toBe('unsupportedCapability');
    expect(exact.message).toContain('tagsMatch exact');
    const prefer = await h.fails('memory_recall', { query: 'anything', preferObservations: true });
    expect(prefer.code).toBe('unsupportedCapability');
    // The config default preferObservations is not sent to a server without the field.
    const plain = await h.ok('memory_recall', { query: 'anything' });
    expect(plain.text).toContain(`No memories in ${CODING_BANK} matched`);
    expect((plain.details as { request: { prefer_observations: boolean } }).request.prefer_observations).toBe(false);
  });
});
