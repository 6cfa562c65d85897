import * as fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decodeWith } from '../../src/codecs/decode.js';
import { toolCatalogue } from '../../src/tools/catalogue.js';
import { MemoryBankParams } from '../../src/tools/memoryBank.js';
import { MemoryConfigParams } from '../../src/tools/memoryConfig.js';
import { MemoryKnowledgeParams } from '../../src/tools/memoryKnowledge.js';
import { MemoryMentalModelParams } from '../../src/tools/memoryMentalModel.js';
import { MemoryRecallParams } from '../../src/tools/memoryRecall.js';
import { MemoryReflectParams } from '../../src/tools/memoryReflect.js';
import { MemoryRetainParams } from '../../src/tools/memoryRetain.js';
import { MemoryRetainGlobalParams } from '../../src/tools/memoryRetainGlobal.js';
import { MemoryScopeParams } from '../../src/tools/memoryScope.js';
import { MemoryScopeMigrateParams } from '../../src/tools/memoryScopeMigrate.js';
import { MemorySeedGitParams } from '../../src/tools/memorySeedGit.js';
import { MemoryStatusParams } from '../../src/tools/memoryStatus.js';
import type * as t from 'io-ts';
import type { JsonSchema } from '../../src/tools/params.js';

interface AnyParams {
  readonly codec: t.Mixed;
  readonly schema: JsonSchema;
}

const all: Record<string, AnyParams> = {
  memory_recall: MemoryRecallParams,
  memory_retain: MemoryRetainParams,
  memory_retain_global: MemoryRetainGlobalParams,
  memory_reflect: MemoryReflectParams,
  memory_status: MemoryStatusParams,
  memory_seed_git: MemorySeedGitParams,
  memory_scope: MemoryScopeParams,
  memory_config: MemoryConfigParams,
  memory_bank: MemoryBankParams,
  memory_mental_model: MemoryMentalModelParams,
  memory_knowledge: MemoryKnowledgeParams,
  memory_scope_migrate: MemoryScopeMigrateParams,
};

const decode = (name: string, input: unknown) => decodeWith((all[name] as AnyParams).codec, `tool ${name}`)(input);

const failurePaths = (name: string, input: unknown): string[] => {
  const result = decode(name, input);
  if (E.isRight(result)) throw new Error(`${name} accepted ${JSON.stringify(input)}`);
  return result.left.issues.map((i) => i.path).sort();
};

describe('tool parameters', () => {
  it('the catalogue has the 12 contract tools, each with an object schema', () => {
    expect(toolCatalogue.map((t) => t.name).sort()).toEqual(Object.keys(all).sort());
    for (const tool of toolCatalogue) {
      expect(tool.parameters['type']).toBe('object');
      expect(tool.parameters['additionalProperties']).toBe(false);
      expect(tool.description.length).toBeGreaterThan(40);
      expect(JSON.parse(JSON.stringify(tool.parameters))).toEqual(tool.parameters);
    }
  });

  it('schema required lists are exactly the parameters an empty call is missing', () => {
    for (const tool of toolCatalogue) {
      const required = (tool.parameters['required'] as string[]).slice().sort();
      const result = decode(tool.name, {});
      if (required.length === 0) expect(E.isRight(result)).toBe(true);
      else expect(failurePaths(tool.name, {})).toEqual(required);
    }
  });

  it('random JSON never throws and always decodes to an Either', () => {
    for (const name of Object.keys(all)) {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const result = decode(name, value);
          return E.isLeft(result) || E.isRight(result);
        }),
        { numRuns: 150 },
      );
    }
  });

  it('random objects over the known keys never throw; failures name a known field', () => {
    for (const [name, params] of Object.entries(all)) {
      const keys = Object.keys((params.schema['properties'] as Record<string, unknown>) ?? {});
      if (keys.length === 0) continue;
      const arb = fc.dictionary(fc.constantFrom(...keys), fc.jsonValue({ maxDepth: 3 }));
      fc.assert(
        fc.property(arb, (value) => {
          const result = decode(name, value);
          if (E.isRight(result)) return true;
          return result.left.issues.every((i) => keys.includes(i.path.split('.')[0] as string));
        }),
        { numRuns: 150 },
      );
    }
  });

  it('names an unknown parameter and lists the known ones', () => {
    const result = decode('memory_recall', { query: 'x', qeury: 'y' });
    if (E.isRight(result)) throw new Error('accepted');
    expect(result.left.issues[0]?.path).toBe('qeury');
    expect(result.left.message).toContain('no such parameter');
    expect(result.left.message).toContain('known: query, bank');
    expect(failurePaths('memory_status', { verbose: true })).toEqual(['verbose']);
  });

  it('enforces the contract limits by field', () => {
    expect(failurePaths('memory_seed_git', { limit: 0 })).toEqual(['limit']);
    expect(failurePaths('memory_seed_git', { limit: 2001 })).toEqual(['limit']);
    expect(E.isRight(decode('memory_seed_git', { limit: 2000, dryRun: false, flush: false }))).toBe(true);
    expect(failurePaths('memory_knowledge', { action: 'search', query: 'q', limit: 51 })).toEqual(['limit']);
    expect(failurePaths('memory_knowledge', { action: 'search', query: 'q', limit: 0 })).toEqual(['limit']);
    expect(failurePaths('memory_knowledge', { action: 'explode' })).toEqual(['action']);
    expect(E.isRight(decode('memory_knowledge', { action: 'update', id: 'kp-1', parentId: null }))).toBe(true);
    expect(failurePaths('memory_mental_model', { action: 'create', maxTokens: 100 })).toEqual(['maxTokens']);
    expect(failurePaths('memory_recall', { query: 'q', tagsMatch: 'fuzzy', types: ['opinion'], budget: 'huge' })).toEqual(['budget', 'tagsMatch', 'types.0']);
    expect(failurePaths('memory_recall', { query: 'q', queryTimestamp: 'yesterday', minScores: { semantic: 2 } })).toEqual(['minScores.semantic', 'queryTimestamp']);
    expect(E.isRight(decode('memory_recall', { query: 'q', maxTokens: 0, tagGroups: [{ tags: ['a'], match: 'all' }, { or: [{ tags: [] }] }] }))).toBe(true);
    expect(failurePaths('memory_recall', { query: 'q', tagGroups: [{ tags: 'a' }] })).toEqual(['tagGroups.0']);
    expect(failurePaths('memory_retain', { content: 'c', context: 'x', metadata: { a: 1 }, entities: [{}], observationScopes: 'weird' })).toEqual([
      'entities.0.text',
      'metadata.a',
      'observationScopes',
    ]);
    expect(E.isRight(decode('memory_retain', { content: 'c', context: 'x', timestamp: 'unset', observationScopes: [['a', 'b']] }))).toBe(true);
    expect(failurePaths('memory_retain', { content: 'c', context: 'x', timestamp: 'last week' })).toEqual(['timestamp']);
    expect(failurePaths('memory_retain_global', { content: 'c', context: 'x', bank: 'project' })).toEqual(['bank']);
    expect(failurePaths('memory_reflect', { query: 'q', excludeMentalModelIds: [''], responseSchema: [] })).toEqual(['excludeMentalModelIds.0', 'responseSchema']);
    expect(failurePaths('memory_scope_migrate', { bankTags: ['ok', ' padded '], writeReceipt: 'yes' })).toEqual(['bankTags.1', 'writeReceipt']);
  });

  it('memory_config patch takes allowlisted typed fields only, never raw secrets', () => {
    expect(E.isRight(decode('memory_config', { action: 'patch', patch: { recallMaxTokens: 900, scopeMode: 'isolated-bank', projectBankId: null } }))).toBe(true);
    expect(failurePaths('memory_config', { action: 'patch', patch: { timeoutMs: -5, recallBudget: 'huge' } })).toEqual(['patch.recallBudget', 'patch.timeoutMs']);
    // Agent-locked fields (baseUrl, apiKeyEnvVar, apiKeyDirect, trustedOrigins, enabled) decode to a
    // value-less marker that memory_config refuses by name (test/security/configPatch.test.ts).
    const locked = decode('memory_config', { action: 'patch', patch: { enabled: false, apiKeyDirect: 'x', baseUrl: 'ftp://x' } });
    if (E.isLeft(locked)) throw new Error(locked.left.message);
    expect((locked.right as { patch: Record<string, unknown> }).patch).toEqual({ enabled: null, apiKeyDirect: null, baseUrl: null });
    const secret = decode('memory_config', { action: 'patch', patch: { globalBankId: 'sk-proj-abcdefghijklmnopqrstuvwx', agentUse: 'token=abcdef1234567890abcdef' } });
    if (E.isRight(secret)) throw new Error('accepted a secret');
    expect(secret.left.issues.map((i) => i.path).sort()).toEqual(['patch.agentUse', 'patch.globalBankId']);
    expect(secret.left.message).not.toContain('abcdefghijklmnopqrstuvwx');
    expect(secret.left.message).not.toContain('abcdef1234567890abcdef');
  });
});
