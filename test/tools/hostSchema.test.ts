import { validateToolArguments } from '@mariozechner/pi-ai';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
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

/** Calls a model could make; pi's own validator (typebox, with its coercions) must pass each, and so must our codec after pi. */
const valid: Record<string, unknown[]> = {
  memory_recall: [
    { query: 'parser decisions' },
    { query: 'q', types: ['world', 'observation'], budget: 'high', maxTokens: 0, tags: ['topic:x'], tagsMatch: 'exact', tagGroups: [{ tags: ['a'], match: 'any' }], includeSharedObservations: true },
    { query: 'q', queryTimestamp: '2026-11-02T09:00:00Z', minScores: { semantic: 0.2 }, includeChunks: true, recallChunksMaxTokens: 200, trace: true },
  ],
  memory_retain: [
    { content: 'c', context: 'x' },
    { content: 'c', context: 'x', bank: 'project', entities: [{ text: 'Ada', type: 'person' }], timestamp: 'unset', metadata: { a: 'b' }, updateMode: 'append', observationScopes: [['a']] },
  ],
  memory_retain_global: [{ content: 'c', context: 'x', observationScopes: 'shared' }],
  memory_reflect: [{ query: 'q', responseSchema: { type: 'object' }, includeToolCalls: true, includeToolCallOutput: false, factTypes: ['world'], excludeMentalModelIds: ['mm-1'] }],
  memory_status: [{}],
  memory_seed_git: [{}, { limit: 2000, dryRun: false, flush: false }],
  memory_scope: [{}],
  memory_config: [{ action: 'get' }, { action: 'patch', scope: 'global', patch: { recallMaxTokens: 900, projectBankId: null, userScopeTags: ['source:pi'] }, dryRun: false }],
  memory_bank: [{ action: 'update_mission', bank: 'user', retainMission: 'm', dryRun: true }],
  memory_mental_model: [{ action: 'create', name: 'n', sourceQuery: 'q', tags: ['a'], maxTokens: 1024, tagsMatch: 'all_strict' }],
  memory_knowledge: [{ action: 'update', id: 'kp-1', parentId: null }, { action: 'search', query: 'q', limit: 50 }, { action: 'create_page', name: 'n', sourceQuery: 'q', parentId: 'kf-1' }],
  memory_scope_migrate: [{ bankTags: ['project:x'], writeReceipt: false }],
};

const codecs: Record<string, { codec: t.Mixed }> = {
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

const piValidate = (name: string, args: unknown): unknown => {
  const tool = toolCatalogue.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return validateToolArguments({ name, description: tool.description, parameters: tool.parameters } as never, { type: 'toolCall', id: 't1', name, arguments: args } as never);
};

describe('the catalogue schemas in pi\'s own argument validator', () => {
  it('accept every valid call, and our codec accepts what pi passes on', () => {
    for (const tool of toolCatalogue) {
      const samples = valid[tool.name];
      expect(samples, tool.name).toBeDefined();
      for (const args of samples ?? []) {
        const passed = piValidate(tool.name, args);
        const codec = codecs[tool.name];
        expect(codec, tool.name).toBeDefined();
        expect(E.isRight(decodeWith((codec as { codec: t.Mixed }).codec, tool.name)(passed)), `${tool.name} ${JSON.stringify(args)}`).toBe(true);
      }
    }
  });

  it('reject unknown parameters and out-of-range values before our handler runs', () => {
    expect(() => piValidate('memory_recall', { query: 'q', qeury: 'x' })).toThrow(/Validation failed/);
    expect(() => piValidate('memory_seed_git', { limit: 5000 })).toThrow(/Validation failed/);
    expect(() => piValidate('memory_knowledge', { action: 'search', query: 'q', limit: 51 })).toThrow(/Validation failed/);
    expect(() => piValidate('memory_config', { action: 'patch', patch: { apiKey: 'x' } })).toThrow(/Validation failed/);
    expect(() => piValidate('memory_retain', { context: 'x' })).toThrow(/Validation failed/);
  });
});
