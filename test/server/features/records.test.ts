import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { checkConfigUpdates, fieldName, profileOverlay, resolveConfig } from '../../../src/server/features/bankConfig.js';
import { CreateDirectiveBody, directiveListed, directivesForReflect } from '../../../src/server/features/directives.js';
import type { DirectiveRecord } from '../../../src/server/features/directives.js';
import { buildTree, pageNameTaken, parentProblem, subtreeIds, wouldCycle } from '../../../src/server/features/knowledge.js';
import type { KnowledgeNodeRecord } from '../../../src/server/features/knowledge.js';
import { CreateMentalModelBody, maxTokensProblem, modelMatchesList } from '../../../src/server/features/mentalModels.js';
import { matchesTagFilter } from '../../../src/server/recall/tagFilter.js';

const directive = (id: string, tags: string[], extra: Partial<DirectiveRecord> = {}): DirectiveRecord => ({
  id,
  name: id,
  content: `${id} content`,
  priority: 0,
  is_active: true,
  tags,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  ...extra,
});

describe('bank config', () => {
  it('accepts field and env forms, refuses unknown keys and bad values before any write', () => {
    expect(fieldName('HINDSIGHT_API_RETAIN_CHUNK_SIZE')).toBe('retain_chunk_size');
    expect(checkConfigUpdates({ HINDSIGHT_API_RETAIN_CHUNK_SIZE: 10, enable_reranking: true })).toEqual({ ok: { retain_chunk_size: 10, enable_reranking: true } });
    expect(checkConfigUpdates({ llm_api_key: 'x' })).toMatchObject({ problem: expect.stringContaining('llm_api_key') });
    expect(checkConfigUpdates({ disposition_empathy: 9 })).toMatchObject({ problem: expect.stringContaining('1 to 5') });
  });
  it('resolves defaults under overrides and overlays the profile (reflect_mission wins)', () => {
    expect(resolveConfig({ retain_chunk_size: 10 })['retain_chunk_size']).toBe(10);
    expect(resolveConfig({})['retain_extraction_mode']).toBe('chunks');
    expect(profileOverlay({ disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: 'm' }, { reflect_mission: 'r', disposition_empathy: 5 })).toEqual({
      disposition: { skepticism: 3, literalism: 3, empathy: 5 },
      mission: 'r',
    });
  });
});

describe('directives', () => {
  it('list filter: no tags lists all, untagged always listed, inactive hidden by active_only', () => {
    const tagged = directive('t', ['a', 'b']);
    const global = directive('g', []);
    expect(directiveListed(tagged, ['c'], 'any', true)).toBe(false);
    expect(directiveListed(global, ['c'], 'any', true)).toBe(true);
    expect(directiveListed(tagged, ['b', 'a'], 'exact', true)).toBe(true);
    expect(directiveListed(tagged, ['a'], 'all', true)).toBe(true);
    expect(directiveListed(directive('off', [], { is_active: false }), undefined, 'any', true)).toBe(false);
    expect(directiveListed(directive('off', [], { is_active: false }), undefined, 'any', false)).toBe(true);
  });
  it('reflect (2.5): global always; tagged only when the scope matches; no scope loads only global; apply_all loads all active', () => {
    const all = [directive('global', []), directive('alice', ['user:alice']), directive('bob', ['user:bob']), directive('off', [], { is_active: false }), directive('hi', [], { priority: 5 })];
    const pick = (tags: string[] | undefined, applyAll = false): string[] =>
      directivesForReflect(all, { tags, tagsMatch: 'any' }, applyAll, (rowTags) => matchesTagFilter({ tags: tags ?? null, tagsMatch: 'any' }, rowTags)).map((d) => d.id);
    expect(pick(undefined)).toEqual(['hi', 'global']);
    expect(pick(['user:alice'])).toEqual(['hi', 'alice', 'global']);
    expect(pick(undefined, true)).toEqual(['hi', 'alice', 'bob', 'global']);
  });
  it('create body decoding never throws and keeps required fields', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('name', 'content', 'priority', 'is_active', 'tags'), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.string()), fc.constant(null))), (raw) => {
        const decoded = CreateDirectiveBody.decode(raw);
        if (E.isRight(decoded)) {
          expect(typeof decoded.right.name).toBe('string');
          expect(typeof decoded.right.content).toBe('string');
        }
      }),
    );
  });
});

describe('mental models', () => {
  it('list filter of 2.6: any = overlap, all = contains, exact = equal arrays in stored order; no tags = no filter', () => {
    expect(modelMatchesList(['a', 'b'], ['b', 'c'], 'any')).toBe(true);
    expect(modelMatchesList([], ['b'], 'any')).toBe(false);
    expect(modelMatchesList(['a', 'b'], ['b', 'a'], 'all')).toBe(true);
    expect(modelMatchesList(['a', 'b'], ['a', 'b'], 'exact')).toBe(true);
    expect(modelMatchesList(['a', 'b'], ['b', 'a'], 'exact')).toBe(false);
    expect(modelMatchesList([], undefined, 'exact')).toBe(true);
  });
  it('max_tokens must be an integer within 256-8192', () => {
    expect(maxTokensProblem(256)).toBeUndefined();
    expect(maxTokensProblem(8192)).toBeUndefined();
    expect(maxTokensProblem(255)).toContain('256');
    expect(maxTokensProblem(300.5)).toBeDefined();
  });
  it('create body decoding never throws', () => {
    fc.assert(
      fc.property(fc.anything(), (raw) => {
        const decoded = CreateMentalModelBody.decode(raw);
        if (E.isRight(decoded)) expect(typeof decoded.right.source_query).toBe('string');
      }),
    );
  });
});

describe('knowledge tree', () => {
  const node = (id: string, kind: 'folder' | 'page', parent: string | null, name = id, sort = 0): KnowledgeNodeRecord => ({
    id,
    kind,
    name,
    parent_id: parent,
    managed: false,
    sort_order: sort,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-02T00:00:00Z',
    ...(kind === 'page' ? { mental_model_id: `mm-${id}` } : {}),
  });
  const nodes = [node('f1', 'folder', null, 'Ops'), node('p1', 'page', 'f1', 'Zeta'), node('p2', 'page', 'f1', 'Alpha'), node('f2', 'folder', 'f1', 'Sub', 1), node('p3', 'page', 'f2')];

  it('nests children under parents, ordered by sort order then name', () => {
    const tree = buildTree(nodes, () => ({ description: 'q', tags: ['t'], timestamp: null, isStale: true }));
    expect(tree.map((n) => n.id)).toEqual(['f1']);
    expect(tree[0]?.children.map((n) => n.id)).toEqual(['p2', 'p1', 'f2']);
    expect(tree[0]?.children[0]).toMatchObject({ kind: 'page', description: 'q', tags: ['t'], is_stale: true, mental_model_id: 'mm-p2', parent_id: 'f1' });
  });
  it('subtree, cycles, parents and sibling names', () => {
    expect(subtreeIds(nodes, 'f1').sort()).toEqual(['f1', 'f2', 'p1', 'p2', 'p3']);
    expect(wouldCycle(nodes, 'f1', 'f2')).toBe(true);
    expect(wouldCycle(nodes, 'f2', null)).toBe(false);
    expect(parentProblem(nodes, 'p1')).toBe("Parent 'p1' is not a folder");
    expect(parentProblem(nodes, 'zz')).toBe("Parent folder 'zz' not found");
    expect(pageNameTaken(nodes, 'f1', 'ZETA')).toBe(true);
    expect(pageNameTaken(nodes, 'f1', 'zeta', 'p1')).toBe(false);
  });
});
