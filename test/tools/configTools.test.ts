import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolCallError, executeForHost, findTool } from '../../src/tools/catalogue.js';
import { CODING_BANK, PROJECT_TAG, startHarness, type Harness } from './harness.js';

const readJson = (file: string): Record<string, unknown> => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

describe('memory_config', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ project: { banks: { project: { bankId: CODING_BANK } }, custom: { kept: true } }, env: { SECRET_API_VAR: 'sk-proj-realsecretvalue1234567890' } });
  });
  afterAll(async () => h.close());
  const projectFile = () => path.join(h.stateDir, 'memory.json');
  const userFile = () => path.join(h.home, '.pi', 'agent', 'memory.json');

  it('get returns effective allowlisted values with sources and no secret', async () => {
    const got = await h.ok('memory_config', { action: 'get' });
    const details = got.details as { values: Record<string, unknown>; sources: Record<string, string>; allowlist: string[] };
    expect(details.values['projectBankId']).toBe(CODING_BANK);
    expect(details.sources['projectBankId']).toBe('project');
    expect(details.values['recallMaxTokens']).toBe(800);
    expect(details.allowlist).not.toContain('apiKeyEnvVar');
    expect(details.allowlist).not.toContain('baseUrl');
    expect(details.allowlist).not.toContain('apiKeyDirect');
    expect(got.text).toContain('projectBankId = coding-bank (project)');
    expect(got.text).toContain('Authentication: no API key configured');
  });

  it('patch previews by default and writes nothing', async () => {
    const before = readFileSync(projectFile(), 'utf8');
    const preview = await h.ok('memory_config', { action: 'patch', patch: { recallMaxTokens: 1200, recallBudget: 'high' } });
    expect(preview.text).toContain('Preview (dryRun)');
    expect((preview.details as { dryRun: boolean }).dryRun).toBe(true);
    expect(readFileSync(projectFile(), 'utf8')).toBe(before);
  });

  it('patch with dryRun:false writes the project file, keeps other keys, reloads once', async () => {
    let reloads = 0;
    const applied = await h.run('memory_config', { action: 'patch', patch: { recallMaxTokens: 1200 }, dryRun: false }, { reloadConfig: () => (reloads += 1) });
    if (!applied.ok) throw new Error(applied.error.message);
    expect(reloads).toBe(1);
    const data = readJson(projectFile()) as { recall: { maxTokens: number }; custom: unknown; banks: unknown };
    expect(data.recall.maxTokens).toBe(1200);
    expect(data.custom).toEqual({ kept: true });
    expect(data.banks).toEqual({ project: { bankId: CODING_BANK } });
    expect(readFileSync(projectFile(), 'utf8')).not.toContain('realsecretvalue');
    const got = await h.ok('memory_config', { action: 'get' });
    expect(JSON.stringify(got)).not.toContain('realsecretvalue');
    expect((got.details as { values: Record<string, unknown> }).values['recallMaxTokens']).toBe(1200);
    expect(got.text).toContain('Authentication: no API key configured');
  });

  it('null resets a field and prunes the emptied object', async () => {
    const applied = await h.ok('memory_config', { action: 'patch', patch: { recallMaxTokens: null }, dryRun: false });
    expect(applied.text).toContain('recallMaxTokens = not set (reset) -> effective 800');
    const data = readJson(projectFile());
    expect(data['recall']).toBeUndefined();
  });

  it('global scope writes the user file', async () => {
    await h.ok('memory_config', { action: 'patch', scope: 'global', patch: { recallMaxTokens: 700, recallBudget: 'high' }, dryRun: false });
    const data = readJson(userFile()) as { recall: { maxTokens: number; budget: string } };
    expect(data.recall).toEqual({ maxTokens: 700, budget: 'high' });
  });

  it('global scope refuses the user bank, its tag filter and the project bank (security.md, ninth session)', async () => {
    const before = readFileSync(userFile(), 'utf8');
    const refused = await h.fails('memory_config', { action: 'patch', scope: 'global', patch: { enableGlobalBank: true, globalBankId: 'life-bank' }, dryRun: false });
    expect(refused.message).toContain('enableGlobalBank cannot be changed in the user file (scope global) by a tool call');
    expect(readFileSync(userFile(), 'utf8')).toBe(before);
  });

  it('refuses setupComplete in domain-tagged mode without projectBankId, allows it with one', async () => {
    await h.ok('memory_config', { action: 'patch', patch: { projectBankId: null }, dryRun: false });
    const before = readFileSync(projectFile(), 'utf8');
    const refused = await h.fails('memory_config', { action: 'patch', patch: { setupComplete: true }, dryRun: false });
    expect(refused.code).toBe('rejected');
    expect(refused.message).toContain('Cannot set setupComplete=true in domain-tagged mode without projectBankId');
    expect(readFileSync(projectFile(), 'utf8')).toBe(before);
    await h.ok('memory_config', { action: 'patch', patch: { setupComplete: true, projectBankId: CODING_BANK }, dryRun: false });
    await h.ok('memory_config', { action: 'patch', patch: { setupComplete: true, scopeMode: 'isolated-bank', projectBankId: null } });
  });

  it('rejects unknown keys, bad values, raw keys and empty patches; writes nothing', async () => {
    const before = readFileSync(projectFile(), 'utf8');
    expect((await h.fails('memory_config', { action: 'patch', patch: { apiKey: 'sk-proj-abcdefghijklmnopqrstuv' }, dryRun: false })).message).toContain('not allowlisted');
    expect((await h.fails('memory_config', { action: 'patch', patch: { timeoutMs: 0 }, dryRun: false })).field).toBe('patch.timeoutMs');
    expect((await h.fails('memory_config', { action: 'patch', patch: {} })).message).toContain('Provide at least one allowlisted config field');
    expect((await h.fails('memory_config', { action: 'patch' })).field).toBe('patch');
    const secret = await h.fails('memory_config', { action: 'patch', patch: { globalBankId: 'https://user:hunter2pass@memory.example.com' }, dryRun: false });
    expect(secret.message).not.toContain('hunter2pass');
    expect(readFileSync(projectFile(), 'utf8')).toBe(before);
  });

  it('never rewrites a config file it cannot parse', async () => {
    writeFileSync(projectFile(), '{ "recall": { "maxTokens": 5, } }');
    const error = await h.fails('memory_config', { action: 'patch', patch: { recallBudget: 'low' }, dryRun: false });
    expect(error.code).toBe('io');
    expect(error.message).toContain('invalid JSON');
    expect(readFileSync(projectFile(), 'utf8')).toBe('{ "recall": { "maxTokens": 5, } }');
    writeFileSync(projectFile(), `${JSON.stringify({ setupComplete: true, banks: { project: { bankId: CODING_BANK } } })}\n`);
  });
});

describe('memory_scope and memory_scope_migrate', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('memory_scope shows the project tag from the remote and the banks', async () => {
    const scope = await h.ok('memory_scope', {});
    const d = scope.details as Record<string, unknown>;
    expect(d['projectTag']).toBe(PROJECT_TAG);
    expect(d['basis']).toBe('remote');
    expect(d['codingBankId']).toBe(CODING_BANK);
    expect(d['legacyRepoTag']).toMatch(/^repo:widgets-[0-9a-f]{12}$/);
    expect(d['lifeBankId']).toBeUndefined();
    expect(scope.text).toContain(`Project scope: ${PROJECT_TAG} (from remote: git@github.com:acme/widgets.git)`);
  });

  it('memory_scope_migrate plans without touching the server and writes the receipt', async () => {
    const receipt = path.join(h.stateDir, 'memory', 'scope-migrate-receipt.json');
    const legacy = ((await h.ok('memory_scope', {})).details as { legacyRepoTag: string }).legacyRepoTag;
    // A stopped server proves no call is made.
    await h.server?.close();
    const plan = await h.ok('memory_scope_migrate', { bankTags: [PROJECT_TAG, legacy, legacy, 'repo:other-123456789012', 'topic:x'] });
    const d = plan.details as Record<string, unknown>;
    expect(d['dryRun']).toBe(true);
    expect(d['rewrite']).toBe('none');
    expect(d['remoteTagCounts']).toEqual({ projectTagHits: 1, legacyRepoTagHits: 2, otherRepoTags: 1, otherProjectTags: 0, sampleSize: 5 });
    expect(existsSync(receipt)).toBe(true);
    expect(readJson(receipt)['receiptPath']).toBe(receipt);
    const noReceipt = path.join(h.stateDir, 'memory', 'scope-migrate-receipt.json');
    writeFileSync(noReceipt, '{"old":true}');
    await h.ok('memory_scope_migrate', { writeReceipt: false });
    expect(readJson(noReceipt)).toEqual({ old: true });
  });
});

describe('executeForHost (the pi result shape)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('returns text content and details, or throws a redacted ToolCallError naming the field', async () => {
    const tool = findTool('memory_scope');
    if (tool === undefined) throw new Error('memory_scope missing');
    const result = await executeForHost(tool, {}, await h.context());
    expect(result.content[0]?.type).toBe('text');
    expect(result.content[0]?.text).toContain(PROJECT_TAG);
    expect(result.details).toMatchObject({ projectTag: PROJECT_TAG });
    const recall = findTool('memory_recall');
    if (recall === undefined) throw new Error('memory_recall missing');
    const thrown = await executeForHost(recall, { query: 'x', apiKey: 'sk-proj-abcdefghijklmnopqrstuvwxyz' }, await h.context()).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ToolCallError);
    expect((thrown as ToolCallError).code).toBe('invalidParams');
    expect((thrown as ToolCallError).field).toBe('apiKey');
    expect((thrown as ToolCallError).message).not.toContain('abcdefghijklmnopqrstuvwxyz');
  });
});

describe('memory tools when memory is disabled', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ project: { enabled: false, setupComplete: true } });
  });
  afterAll(async () => h.close());

  it('answer with the disabled notice (how to re-enable) and make no server call or queue write', async () => {
    await h.server?.close();
    for (const [name, params] of [['memory_recall', { query: 'x' }], ['memory_retain', { content: 'x', context: 'y' }], ['memory_knowledge', { action: 'tree' }]] as const) {
      const result = await h.ok(name, params);
      expect(result.text).toContain(`${name} is off: memory is disabled (enabled: false in`);
      expect(result.text).toContain('Turn it back on in /memory ("Turn memory on")');
      expect(result.details).toEqual({ disabled: true });
    }
    // memory_status still reports, so a user can see that memory is off.
    const status = await h.ok('memory_status', {});
    expect(status.text).toContain('Memory status');
    expect(status.details).not.toEqual({ disabled: true });
    expect(h.queue.status().depth).toBe(0);
    expect(existsSync(h.queuePath) ? readFileSync(h.queuePath, 'utf8') : '').not.toContain('"x"');
  });
});
