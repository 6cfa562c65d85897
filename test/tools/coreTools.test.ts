import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODING_BANK, PROJECT_TAG, USER_BANK, startHarness, type Harness } from './harness.js';

describe('core tools against the embedded server', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      user: { banks: { global: { enabled: true, bankId: USER_BANK } }, scope: { userScopeTags: ['source:pi'] } },
    });
  });
  afterAll(async () => h.close());

  it('retains explicit content and recalls it within the project scope', async () => {
    const retained = await h.ok('memory_retain', {
      content: 'The widget parser rejects tabs in identifiers since release 2.',
      context: 'decision from the parser review',
      tags: ['topic:parser'],
      metadata: { ticket: 'W-12', source: 'spoofed', cwd: '/elsewhere' },
    });
    expect(retained.text).toMatch(/^Retained in coding-bank as pi-explicit:[0-9a-f]{16}:[0-9a-f]{16}\./);
    expect(retained.text).toContain('Reserved metadata keys ignored: source, cwd');
    const details = retained.details as Record<string, unknown>;
    expect(details['tags']).toEqual(expect.arrayContaining(['source:pi', 'harness:pi', PROJECT_TAG, 'topic:parser']));

    const recalled = await h.ok('memory_recall', { query: 'widget parser tabs identifiers' });
    expect(recalled.text).toContain('Recalled 1 memory from coding-bank');
    expect(recalled.text).toContain('rejects tabs in identifiers');
    // Only the memory's own tags are listed; the scope tags every memory carries are not.
    expect(recalled.text).toContain('tags: topic:parser]');
    expect(recalled.text).not.toContain('harness:pi');
    const recall = recalled.details as { results: { metadata: Record<string, string> }[]; request: { tag_groups: unknown } };
    expect(recall.results[0]?.metadata).toMatchObject({ ticket: 'W-12', source: 'agent-memory', retainSource: 'tool', cwd: h.cwd });
    expect(recall.request.tag_groups).toEqual([{ tags: [PROJECT_TAG, expect.stringMatching(/^repo:/)], match: 'any_strict' }]);
  });

  it('repeating the same memory updates one document', async () => {
    const a = await h.ok('memory_retain', { content: 'Use pnpm, never npm, in this repository.', context: 'team convention' });
    const b = await h.ok('memory_retain', { content: 'Use pnpm, never npm, in this repository.', context: 'team convention' });
    expect((a.details as { documentId: string }).documentId).toBe((b.details as { documentId: string }).documentId);
    const docs = await h.client.listDocuments(CODING_BANK, {})();
    if (docs._tag === 'Left') throw new Error('list failed');
    expect(docs.right.items.filter((d) => d.id === (a.details as { documentId: string }).documentId)).toHaveLength(1);
  });

  it('never recalls memories of another project in the same bank', async () => {
    const other = await h.client.retain(CODING_BANK, { items: [{ content: 'Gadget parser accepts tabs everywhere.', tags: ['project:github.com/acme/gadgets'] }] })();
    expect(other._tag).toBe('Right');
    const recalled = await h.ok('memory_recall', { query: 'parser accepts tabs everywhere gadget' });
    expect(recalled.text).not.toContain('Gadget parser');
  });

  it('tagsMatch exact folds the scope tags into one exact group', async () => {
    const recalled = await h.ok('memory_recall', { query: 'parser', tags: ['topic:parser'], tagsMatch: 'exact' });
    const request = (recalled.details as { request: { tag_groups: { tags: string[]; match: string }[] } }).request;
    expect(request.tag_groups).toHaveLength(1);
    expect(request.tag_groups[0]?.match).toBe('exact');
    expect(request.tag_groups[0]?.tags).toEqual(expect.arrayContaining([PROJECT_TAG, 'topic:parser']));
    // The config default recall.preferObservations goes to a server that has the field.
    expect((recalled.details as { request: { prefer_observations: boolean } }).request.prefer_observations).toBe(true);
  });

  it('retain_global writes to the user bank with the user scope tags', async () => {
    const retained = await h.ok('memory_retain_global', { content: 'The user prefers terse answers.', context: 'stated preference across projects' });
    expect(retained.text).toContain(`Retained in ${USER_BANK}`);
    const recalled = await h.ok('memory_recall', { query: 'terse answers prefers', bank: 'user' });
    expect(recalled.text).toContain('prefers terse answers');
    const onProject = await h.ok('memory_recall', { query: 'terse answers prefers' });
    expect(onProject.text).not.toContain('prefers terse answers');
  });

  it('reflect answers from scoped memories', async () => {
    const reflected = await h.ok('memory_reflect', { query: 'What does the widget parser do with tabs?' });
    expect(reflected.text).toContain('Reflection from coding-bank');
    expect(reflected.text.toLowerCase()).toContain('tabs');
  });

  it('a retained turn (a JSON array of pi messages) reads as who said what in recall and reflect, not as JSON', async () => {
    // What automatic retain stores: the turn's messages as pi writes them.
    const turn = JSON.stringify([
      { role: 'user', timestamp: '2026-11-28T19:14:13.520Z', content: 'Remember: the staging gateway listens on port 8443.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: the staging gateway listens on port 8443.' }], model: 'faux-1', stopReason: 'stop' },
    ]);
    const stored = await h.client.retain(CODING_BANK, { items: [{ content: turn, tags: ['source:pi', PROJECT_TAG] }] })();
    expect(stored._tag).toBe('Right');
    const recalled = await h.ok('memory_recall', { query: 'staging gateway port' });
    expect(recalled.text).toContain('User: Remember: the staging gateway listens on port 8443. · Assistant: Noted: the staging gateway listens on port 8443.');
    expect(recalled.text).not.toContain('"role"');
    // The details keep the memory as the server holds it.
    expect((recalled.details as { results: { text: string }[] }).results.some((r) => r.text.includes('"role"'))).toBe(true);
    const reflected = await h.ok('memory_reflect', { query: 'Which port does the staging gateway listen on?' });
    expect(reflected.text).toContain('User: Remember: the staging gateway listens on port 8443.');
    expect(reflected.text).not.toContain('"role"');
  });

  it('redacts secrets before they reach the queue file', async () => {
    await h.ok('memory_retain', { content: 'Deploy with password: hunter2-secret-value and token ghp_abcdefghijklmnopqrstuvwxyz0123', context: 'deploy notes' });
    const file = readFileSync(h.queuePath, 'utf8');
    expect(file).not.toContain('hunter2-secret-value');
    expect(file).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123');
  });

  it('includeSharedObservations ORs an exact-empty leaf; the user bank uses its own token cap', async () => {
    const shared = await h.ok('memory_recall', { query: 'parser', includeSharedObservations: true });
    const groups = (shared.details as { request: { tag_groups: unknown[] } }).request.tag_groups;
    expect(groups).toEqual([{ or: [{ tags: [PROJECT_TAG, expect.stringMatching(/^repo:/)], match: 'any_strict' }, { tags: [], match: 'exact' }] }]);
    const user = await h.ok('memory_recall', { query: 'terse', bank: 'user' });
    expect((user.details as { request: { max_tokens: number; tag_groups: unknown } }).request).toMatchObject({ max_tokens: 400, tag_groups: [{ tags: ['source:pi'], match: 'any_strict' }] });
    const project = await h.ok('memory_recall', { query: 'terse', budget: 'high', maxTokens: 0 });
    expect((project.details as { request: { max_tokens: number; budget: string } }).request).toMatchObject({ max_tokens: 0, budget: 'high' });
  });

  it('optional recall outputs go to the server when it has them', async () => {
    const recalled = await h.ok('memory_recall', { query: 'widget parser', includeChunks: true, recallChunksMaxTokens: 500, trace: true });
    expect((recalled.details as { request: { include: string[] } }).request.include).toEqual(['chunks']);
    const orphan = await h.fails('memory_recall', { query: 'x', recallChunksMaxTokens: 500 });
    expect(orphan.field).toBe('recallChunksMaxTokens');
  });

  it('reflect refuses a response schema the embedded server cannot honour, before sending', async () => {
    const error = await h.fails('memory_reflect', { query: 'q', responseSchema: { type: 'object', properties: { a: { type: 'string' } } } });
    expect(error.code).toBe('unsupportedCapability');
    expect(error.message).toContain('reflect responseSchema');
    const orphan = await h.fails('memory_reflect', { query: 'q', includeToolCallOutput: false });
    expect(orphan.field).toBe('includeToolCallOutput');
  });

  it('retain passes entities, timestamps and observation scopes; refuses what the queue cannot carry', async () => {
    const retained = await h.ok('memory_retain', {
      content: 'Ada reviewed the lexer on Monday.',
      context: 'review log',
      entities: [{ text: 'Ada', type: 'person' }],
      timestamp: '2026-11-02T09:00:00Z',
      // Project-tier scopes each hold the project tag (per_tag would form some without it: userBankReach.test.ts).
      observationScopes: [[PROJECT_TAG, 'person:ada'], [PROJECT_TAG]],
      updateMode: 'append',
      documentId: 'review-log',
    });
    expect(retained.details).toMatchObject({ documentId: 'review-log', updateMode: 'append' });
    const doc = await h.client.getDocument(CODING_BANK, 'review-log')();
    expect(doc._tag === 'Right' && doc.right._tag).toBe('present');
    expect((await h.fails('memory_retain', { content: 'x', context: 'y', documentTags: ['a'] })).field).toBe('documentTags');
    expect((await h.fails('memory_retain', { content: 'x', context: 'y', async: false })).field).toBe('async');
  });

  it('refuses per session mode and for a missing user bank', async () => {
    const refused = await h.fails('memory_retain', { content: 'x', context: 'y' }, { session: { recallAllowed: true, retainAllowed: false, mode: 'read-only' } });
    expect(refused.code).toBe('sessionRefused');
    const noRecall = await h.fails('memory_recall', { query: 'x' }, { session: { recallAllowed: false, retainAllowed: false, mode: 'ignored' } });
    expect(noRecall.code).toBe('sessionRefused');
  });

  it('rejects bad parameters by field and sends nothing', async () => {
    const before = h.queue.status().depth;
    const error = await h.fails('memory_retain', { content: 'ok', context: 'ok', updateMode: 'merge', tagz: ['a'] });
    expect(error.code).toBe('invalidParams');
    expect(error.message).toContain('field tagz');
    expect(h.queue.status().depth).toBe(before);
    const recallError = await h.fails('memory_recall', { query: '', maxTokens: -1 });
    expect(recallError.message).toContain('field query');
    expect(recallError.message).toContain('field maxTokens');
  });
});

describe('memory_retain_global without a user bank', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('fails clearly and queues nothing', async () => {
    const error = await h.fails('memory_retain_global', { content: 'likes tea', context: 'preference' });
    expect(error.code).toBe('notConfigured');
    expect(error.message).toContain('globalBankId');
    expect(h.queue.status().depth).toBe(0);
  });
});

describe('explicit retain before setup is complete', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ project: {} });
  });
  afterAll(async () => h.close());

  it('retains into the path-derived bank and says setup is incomplete', async () => {
    const result = await h.ok('memory_retain', { content: 'Early note.', context: 'before setup' });
    expect(result.text).toMatch(/^Retained in pi-project-widgets-[0-9a-f]{12} as /);
    expect(result.text).toContain('setup is incomplete');
  });
});
