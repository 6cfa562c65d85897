/**
 * Conformance (1): every implemented route, driven through one scripted session against the
 * embedded server, answers with a status and body that validate against the OpenAPI document
 * of the version it mimics (`--mimic 0.9`: Hindsight 0.9.1; `--mimic 0.10`: the 0.10 shapes),
 * with unknown keys refused as the strict clients refuse them. One row per call; later rows
 * use ids earlier rows got.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../../helpers/embeddedServer.js';
import type { TestServer } from '../../helpers/embeddedServer.js';
import { createChecker, spec0_10Path, specPath } from './openapi.js';
import type { Mimic } from '../../../src/server/context.js';

type Ids = Record<string, string>;

interface Row {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: (ids: Ids) => string;
  readonly body?: (ids: Ids) => unknown;
  readonly status: number;
  /** The status when mimicking 0.10, where it differs (retired profile routes answer 410). */
  readonly status0_10?: number;
  /** Keeps ids from the response for later rows. */
  readonly keep?: (body: Record<string, unknown>, ids: Ids) => void;
  /** Wait for async operations to finish before this row. */
  readonly afterIdle?: boolean;
  /**
   * Upstream answers this with a shape its own OpenAPI does not declare (reference 6.1:
   * some 422s carry a string detail). Checked against the generic `{"detail"}` error shape.
   */
  readonly upstreamStringDetail?: boolean;
}

const B = '/v1/default/banks/conf';
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const rows: readonly Row[] = [
  // meta
  { name: 'version', method: 'GET', path: () => '/version', status: 200 },
  { name: 'health', method: 'GET', path: () => '/health', status: 200 },
  { name: 'health ready', method: 'GET', path: () => '/health/ready', status: 200 },
  { name: 'health live', method: 'GET', path: () => '/health/live', status: 200 },
  // banks
  { name: 'create bank', method: 'PUT', path: () => B, body: () => ({ mission: 'help with code' }), status: 200 },
  { name: 'update bank', method: 'PATCH', path: () => B, body: () => ({ name: 'Conformance' }), status: 200 },
  { name: 'update missing bank', method: 'PATCH', path: () => '/v1/default/banks/nope', body: () => ({ name: 'x' }), status: 404 },
  { name: 'list banks', method: 'GET', path: () => '/v1/default/banks', status: 200 },
  { name: 'bank profile', status0_10: 410, method: 'GET', path: () => `${B}/profile`, status: 200 },
  { name: 'missing bank profile', status0_10: 410, method: 'GET', path: () => '/v1/default/banks/nope/profile', status: 404 },
  { name: 'set disposition', status0_10: 410, method: 'PUT', path: () => `${B}/profile`, body: () => ({ disposition: { skepticism: 4, literalism: 2, empathy: 3 } }), status: 200 },
  { name: 'add background', status0_10: 410, method: 'POST', path: () => `${B}/background`, body: () => ({ content: 'Works on TypeScript.' }), status: 200 },
  { name: 'bank config', method: 'GET', path: () => `${B}/config`, status: 200 },
  { name: 'patch config', method: 'PATCH', path: () => `${B}/config`, body: () => ({ updates: { retain_chunk_size: 2000, HINDSIGHT_API_REFLECT_MISSION: 'be precise' } }), status: 200 },
  { name: 'patch config unknown key', method: 'PATCH', path: () => `${B}/config`, body: () => ({ updates: { not_a_field: 1 } }), status: 400 },
  { name: 'patch config without updates', method: 'PATCH', path: () => `${B}/config`, body: () => ({}), status: 422 },
  { name: 'reset config', method: 'DELETE', path: () => `${B}/config`, status: 200 },
  // retain
  {
    name: 'retain sync',
    method: 'POST',
    path: () => `${B}/memories`,
    body: () => ({
      items: [
        { content: 'The deploy pipeline runs on GitHub Actions.', document_id: 'doc/ci', tags: ['project:a'], context: 'ci', metadata: { source: 'test' }, entities: [{ text: 'GitHub' }] },
        { content: 'Alice reviews every deploy to production.', document_id: 'doc-2', tags: ['project:a', 'team'], timestamp: '2026-01-05T10:00:00Z' },
        { content: 'Lunch is at noon.', document_id: 'doc-3' },
      ],
    }),
    status: 200,
  },
  {
    name: 'retain async',
    method: 'POST',
    path: () => `${B}/memories`,
    body: () => ({ async: true, operation_id: '0b6a1c9e-3f7d-4c1e-9a8b-2d4f6e8a0c12', items: [{ content: 'Deploys are frozen on Fridays.', document_id: 'doc-4', tags: ['project:a'] }] }),
    status: 200,
    keep: (body, ids) => {
      ids['op'] = str(body['operation_id']);
    },
  },
  { name: 'retain with an empty content', method: 'POST', path: () => `${B}/memories`, body: () => ({ items: [{ content: '   ' }] }), status: 422 },
  { name: 'append without a document id', method: 'POST', path: () => `${B}/memories`, body: () => ({ items: [{ content: 'x', update_mode: 'append' }] }), status: 400 },
  // recall
  { name: 'recall', method: 'POST', path: () => `${B}/memories/recall`, body: () => ({ query: 'deploy', trace: true, include: { chunks: {}, entities: {} } }), status: 200, afterIdle: true },
  { name: 'recall observations', method: 'POST', path: () => `${B}/memories/recall`, body: () => ({ query: 'deploy', types: ['observation'], include: { source_facts: {} } }), status: 200 },
  { name: 'recall tag groups', method: 'POST', path: () => `${B}/memories/recall`, body: () => ({ query: 'deploy', tag_groups: [{ tags: ['team'] }, { not: { tags: ['x'] } }] }), status: 200 },
  { name: 'recall bad types', method: 'POST', path: () => `${B}/memories/recall`, body: () => ({ query: 'deploy', types: ['bogus'] }), status: 422, upstreamStringDetail: true },
  { name: 'recall tags and groups', method: 'POST', path: () => `${B}/memories/recall`, body: () => ({ query: 'deploy', tags: [], tag_groups: [] }), status: 422 },
  { name: 'recall without a query', method: 'POST', path: () => `${B}/memories/recall`, body: () => ({}), status: 422 },
  // reflect
  { name: 'reflect', method: 'POST', path: () => `${B}/reflect`, body: () => ({ query: 'How do we deploy?', include: { facts: {}, tool_calls: {} } }), status: 200 },
  { name: 'reflect inputs-only trace', method: 'POST', path: () => `${B}/reflect`, body: () => ({ query: 'deploy', budget: 'high', include: { tool_calls: { output: false } }, tags: ['project:a'], tags_match: 'all_strict' }), status: 200 },
  { name: 'reflect structured output', method: 'POST', path: () => `${B}/reflect`, body: () => ({ query: 'deploy', response_schema: { type: 'object', properties: { summary: { type: 'string' } } } }), status: 400 },
  { name: 'reflect malformed schema', method: 'POST', path: () => `${B}/reflect`, body: () => ({ query: 'deploy', response_schema: { type: 'object', properties: {} } }), status: 422 },
  { name: 'reflect tags and groups', method: 'POST', path: () => `${B}/reflect`, body: () => ({ query: 'deploy', tags: ['a'], tag_groups: [{ tags: ['a'] }] }), status: 422 },
  // memories, documents, chunks, tags
  {
    name: 'list memories',
    method: 'GET',
    path: () => `${B}/memories/list?limit=10`,
    status: 200,
    keep: (body, ids) => {
      const items = body['items'] as { id: string; chunk_id?: string }[];
      ids['memory'] = items[0]?.id ?? '';
      ids['chunk'] = items.find((i) => i.chunk_id !== undefined)?.chunk_id ?? '';
    },
  },
  { name: 'get memory', method: 'GET', path: (ids) => `${B}/memories/${ids['memory'] ?? ''}`, status: 200 },
  { name: 'list documents', method: 'GET', path: () => `${B}/documents?tags=project:a`, status: 200 },
  { name: 'get document with a slash in its id', method: 'GET', path: () => `${B}/documents/doc/ci`, status: 200 },
  { name: 'document chunks', method: 'GET', path: () => `${B}/documents/doc-2/chunks`, status: 200 },
  { name: 'get chunk', method: 'GET', path: (ids) => `/v1/default/chunks/${encodeURIComponent(ids['chunk'] ?? '')}`, status: 200 },
  { name: 'patch document tags', method: 'PATCH', path: () => `${B}/documents/doc-3`, body: () => ({ tags: ['misc'] }), status: 200 },
  { name: 'missing document', method: 'GET', path: () => `${B}/documents/none`, status: 404 },
  { name: 'list tags', method: 'GET', path: () => `${B}/tags?q=project*`, status: 200 },
  // operations
  { name: 'list operations', method: 'GET', path: () => `${B}/operations`, status: 200 },
  { name: 'operation status', method: 'GET', path: (ids) => `${B}/operations/${ids['op'] ?? ''}`, status: 200 },
  { name: 'unknown operation status', method: 'GET', path: () => `${B}/operations/7d1e8c3a-5b2f-4e6d-8a9c-0f1e2d3c4b5a`, status: 200 },
  { name: 'malformed operation id', method: 'GET', path: () => `${B}/operations/not-a-uuid`, status: 400 },
  // directives
  {
    name: 'create directive',
    method: 'POST',
    path: () => `${B}/directives`,
    body: () => ({ name: 'Brevity', content: 'Answer in one paragraph.', priority: 2, tags: ['project:a'] }),
    status: 200,
    keep: (body, ids) => {
      ids['directive'] = str(body['id']);
    },
  },
  { name: 'list directives', method: 'GET', path: () => `${B}/directives?tags=project:a&tags_match=any`, status: 200 },
  { name: 'get directive', method: 'GET', path: (ids) => `${B}/directives/${ids['directive'] ?? ''}`, status: 200 },
  { name: 'patch directive', method: 'PATCH', path: (ids) => `${B}/directives/${ids['directive'] ?? ''}`, body: () => ({ is_active: false }), status: 200 },
  { name: 'missing directive', method: 'GET', path: () => `${B}/directives/none`, status: 404 },
  // mental models
  {
    name: 'create mental model',
    method: 'POST',
    path: () => `${B}/mental-models`,
    body: () => ({ name: 'Deploy process', source_query: 'How do we deploy?', tags: ['project:a'], trigger: { refresh_cron: '0 3 * * *' } }),
    status: 200,
    keep: (body, ids) => {
      ids['model'] = str(body['mental_model_id']);
    },
  },
  { name: 'mental model max_tokens out of range', method: 'POST', path: () => `${B}/mental-models`, body: () => ({ name: 'x', source_query: 'y', max_tokens: 100 }), status: 422 },
  { name: 'list mental models (full)', method: 'GET', path: () => `${B}/mental-models`, status: 200, afterIdle: true },
  { name: 'list mental models (metadata)', method: 'GET', path: () => `${B}/mental-models?detail=metadata&tags=project:a&tags_match=exact`, status: 200 },
  { name: 'get mental model', method: 'GET', path: (ids) => `${B}/mental-models/${ids['model'] ?? ''}`, status: 200 },
  { name: 'patch mental model', method: 'PATCH', path: (ids) => `${B}/mental-models/${ids['model'] ?? ''}`, body: () => ({ trigger: { refresh_after_consolidation: true } }), status: 200 },
  { name: 'refresh mental model', method: 'POST', path: (ids) => `${B}/mental-models/${ids['model'] ?? ''}/refresh`, status: 200 },
  { name: 'mental model history', method: 'GET', path: (ids) => `${B}/mental-models/${ids['model'] ?? ''}/history`, status: 200, afterIdle: true },
  { name: 'dry-run refresh', method: 'POST', path: (ids) => `${B}/mental-models/${ids['model'] ?? ''}/dry-run-refresh`, status: 400 },
  { name: 'clear mental model', method: 'POST', path: (ids) => `${B}/mental-models/${ids['model'] ?? ''}/clear`, status: 200 },
  { name: 'missing mental model', method: 'GET', path: () => `${B}/mental-models/none`, status: 404 },
  { name: 'delete mental model', method: 'DELETE', path: (ids) => `${B}/mental-models/${ids['model'] ?? ''}`, status: 200 },
  // knowledge base
  {
    name: 'create folder',
    method: 'POST',
    path: () => `${B}/knowledge-base/folders`,
    body: () => ({ name: 'Ops' }),
    status: 201,
    keep: (body, ids) => {
      ids['folder'] = str(body['id']);
    },
  },
  {
    name: 'create page',
    method: 'POST',
    path: () => `${B}/knowledge-base/pages`,
    body: (ids) => ({ name: 'Deploy', source_query: 'deploy', parent_id: ids['folder'], tags: ['type:runbook', 'project:a'] }),
    status: 201,
    keep: (body, ids) => {
      ids['page'] = str(body['page_id']);
    },
  },
  { name: 'duplicate page name', method: 'POST', path: () => `${B}/knowledge-base/pages`, body: (ids) => ({ name: 'deploy', source_query: 'x', parent_id: ids['folder'] }), status: 409 },
  { name: 'page under a page', method: 'POST', path: () => `${B}/knowledge-base/folders`, body: (ids) => ({ name: 'x', parent_id: ids['page'] }), status: 400 },
  { name: 'knowledge tree', method: 'GET', path: () => `${B}/knowledge-base/tree`, status: 200, afterIdle: true },
  { name: 'get page', method: 'GET', path: (ids) => `${B}/knowledge-base/pages/${ids['page'] ?? ''}`, status: 200 },
  { name: 'folder is not a page', method: 'GET', path: (ids) => `${B}/knowledge-base/pages/${ids['folder'] ?? ''}`, status: 404 },
  { name: 'search pages', method: 'GET', path: () => `${B}/knowledge-base/search?q=deploy&limit=5`, status: 200 },
  { name: 'search without q', method: 'GET', path: () => `${B}/knowledge-base/search`, status: 422 },
  { name: 'rename page', method: 'PATCH', path: (ids) => `${B}/knowledge-base/nodes/${ids['page'] ?? ''}`, body: () => ({ name: 'Deploying' }), status: 200 },
  { name: 'empty node patch', method: 'PATCH', path: (ids) => `${B}/knowledge-base/nodes/${ids['page'] ?? ''}`, body: () => ({}), status: 400 },
  { name: 'export knowledge base', method: 'GET', path: () => `${B}/knowledge-base/export`, status: 200 },
  { name: 'delete folder subtree', method: 'DELETE', path: (ids) => `${B}/knowledge-base/nodes/${ids['folder'] ?? ''}`, status: 200 },
  { name: 'delete missing node', method: 'DELETE', path: (ids) => `${B}/knowledge-base/nodes/${ids['folder'] ?? ''}`, status: 404 },
  // stats and teardown
  { name: 'bank stats', method: 'GET', path: () => `${B}/stats`, status: 200 },
  { name: 'stats of a missing bank', method: 'GET', path: () => '/v1/default/banks/nope/stats?refresh=true', status: 200 },
  { name: 'delete directive', method: 'DELETE', path: (ids) => `${B}/directives/${ids['directive'] ?? ''}`, status: 200 },
  { name: 'delete document', method: 'DELETE', path: () => `${B}/documents/doc-3`, status: 200 },
  { name: 'clear bank memories', method: 'DELETE', path: () => `${B}/memories`, status: 200 },
  { name: 'delete bank', method: 'DELETE', path: () => B, status: 200 },
  { name: 'delete missing bank', method: 'DELETE', path: () => B, status: 200 },
];

const modes: readonly { mimic: Mimic; file: string }[] = [
  { mimic: '0.9', file: specPath },
  { mimic: '0.10', file: spec0_10Path },
];

for (const mode of modes) {
  describe(`--mimic ${mode.mimic}: every response validates against its OpenAPI document, unknown keys refused`, () => {
    const checker = createChecker(mode.file, { strict: true });
    let server: TestServer;
    const ids: Ids = {};

    beforeAll(async () => {
      server = await startTestServer({ persist: false, mimic: mode.mimic });
    });
    afterAll(async () => {
      await server.dispose();
    });

    for (const row of rows) {
      const status = mode.mimic === '0.10' ? (row.status0_10 ?? row.status) : row.status;
      it(`${row.name}: ${row.method} -> ${status}`, async () => {
        if (row.afterIdle === true) await server.idle();
        const path = row.path(ids);
        const res = await call(server, row.method, path, row.body?.(ids));
        expect({ status: res.status, body: res.body }).toMatchObject({ status });
        const problem = row.upstreamStringDetail === true ? checker.checkResponse(row.method, path, 400, res.body) : checker.checkResponse(row.method, path, res.status, res.body);
        expect(problem).toBeUndefined();
        row.keep?.(res.body as Record<string, unknown>, ids);
      });
    }
  });
}
