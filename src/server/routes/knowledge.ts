/**
 * Knowledge base (0.9.0+, reference 1.9): a tree of folders and pages, each page backed by
 * a mental model refreshed extractively. Tree, folders, pages, search, node patch/delete and
 * the markdown export. Hidden (404) when the server mimics a version before 0.9.0.
 */
import { randomBytes } from 'node:crypto';
import MiniSearch from 'minisearch';
import type { ServerContext } from '../context.js';
import { badRequest, conflict, HttpError, notFound } from '../http/errors.js';
import { decodeOr422, ignoredHeader, unknownFields } from '../http/validation.js';
import {
  buildTree,
  CreateFolderBody,
  CreatePageBody,
  KNOWLEDGE_KIND,
  KnowledgeNodeRecord,
  nodeOut,
  PAGE_DEFAULT_MAX_TOKENS,
  pageNameTaken,
  parentProblem,
  subtreeIds,
  UpdateNodeBody,
  wouldCycle,
} from '../features/knowledge.js';
import type { KnowledgeNodeOut, PageView } from '../features/knowledge.js';
import type { IndexNode } from '../features/knowledgeMarkdown.js';
import { exportIndex, pageLog, pageMarkdown, pageType, visibleTags } from '../features/knowledgeMarkdown.js';
import { intParam } from '../features/listQuery.js';
import { GENERATING, MENTAL_MODEL_KIND, MentalModelRecord } from '../features/mentalModels.js';
import { deleteRecord, putRecord, readRecord, readRecords } from '../features/records.js';
import { buildRefresh } from '../features/refreshQueue.js';
import { bankWrittenSince } from '../features/staleness.js';
import { normaliseTrigger, PAGE_DEFAULT_TRIGGER } from '../features/trigger.js';
import type { Mutation } from '../store/model.js';
import { ensureBankMutations } from './bankOps.js';
import { checkTrigger } from './mentalModels.js';
import type { RouteModule } from './module.js';

const KB = '/v1/default/banks/{bank_id}/knowledge-base';
const SINCE = '0.9.0';

const hex = (): string => randomBytes(16).toString('hex');
const bankIdOf = (params: Readonly<Record<string, string>>): string => params['bank_id'] ?? '';

const nodesOf = (server: ServerContext, bankId: string): KnowledgeNodeRecord[] => readRecords(server, bankId, KNOWLEDGE_KIND, KnowledgeNodeRecord);

const modelOf = (server: ServerContext, bankId: string, node: KnowledgeNodeRecord): MentalModelRecord | undefined =>
  node.mental_model_id === undefined ? undefined : readRecord(server, bankId, MENTAL_MODEL_KIND, node.mental_model_id, MentalModelRecord);

const pageViewOf = (server: ServerContext, bankId: string) => (node: KnowledgeNodeRecord): PageView | undefined => {
  const model = modelOf(server, bankId, node);
  if (model === undefined) return undefined;
  return {
    description: model.source_query,
    tags: model.tags,
    timestamp: model.last_refreshed_at ?? null,
    isStale: bankWrittenSince(server.store.bank(bankId), model.last_refreshed_at),
  };
};

const requireNode = (server: ServerContext, bankId: string, nodeId: string): KnowledgeNodeRecord => {
  const node = readRecord(server, bankId, KNOWLEDGE_KIND, nodeId, KnowledgeNodeRecord);
  if (node === undefined) throw notFound(`Knowledge node '${nodeId}' not found`);
  return node;
};

const requirePage = (server: ServerContext, bankId: string, pageId: string): { node: KnowledgeNodeRecord; model: MentalModelRecord } => {
  const node = readRecord(server, bankId, KNOWLEDGE_KIND, pageId, KnowledgeNodeRecord);
  const model = node?.kind === 'page' ? modelOf(server, bankId, node) : undefined;
  if (node === undefined || model === undefined) throw notFound(`Knowledge page '${pageId}' not found`);
  return { node, model };
};

const pageBody = (node: KnowledgeNodeRecord, model: MentalModelRecord): Record<string, unknown> => {
  const type = pageType(model.tags);
  const tags = visibleTags(model.tags);
  const timestamp = model.last_refreshed_at ?? node.created_at;
  const body = model.content;
  return {
    id: node.id,
    name: node.name,
    type,
    description: model.source_query,
    tags,
    timestamp,
    body,
    markdown: pageMarkdown({ id: node.id, type, title: node.name, description: model.source_query, tags, timestamp }, body),
  };
};

const nextSortOrder = (nodes: readonly KnowledgeNodeRecord[], parentId: string | null): number =>
  nodes.filter((n) => n.parent_id === parentId).reduce((max, n) => Math.max(max, n.sort_order + 1), 0);

const snippetOf = (text: string, terms: readonly string[]): string => {
  const flat = text.replace(/\s+/gu, ' ').trim();
  const lower = flat.toLowerCase();
  const at = terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - 60);
  const piece = flat.slice(start, start + 200);
  return `${start > 0 ? '…' : ''}${piece}${start + 200 < flat.length ? '…' : ''}`;
};

const toIndex = (nodes: readonly KnowledgeNodeOut[]): IndexNode[] =>
  nodes.map((n) => ({ id: n.id, kind: n.kind, name: n.name, description: n.description, children: toIndex(n.children) }));

export const knowledgeModule: RouteModule = {
  routes: [
    {
      method: 'GET',
      pattern: `${KB}/tree`,
      since: SINCE,
      handler: ({ params, server }) => {
        const bankId = bankIdOf(params);
        return { body: { roots: buildTree(nodesOf(server, bankId), pageViewOf(server, bankId)) } };
      },
    },
    {
      method: 'POST',
      pattern: `${KB}/folders`,
      since: SINCE,
      handler: async ({ params, body, server }) => {
        const bankId = bankIdOf(params);
        const req = decodeOr422(CreateFolderBody, body);
        return server.store.exclusive(bankId, async () => {
          const nodes = nodesOf(server, bankId);
          const parentId = req.parent_id ?? null;
          const problem = parentProblem(nodes, parentId);
          if (problem !== undefined) throw badRequest(problem);
          const now = server.nowIso();
          const folder: KnowledgeNodeRecord = {
            id: `kf-${hex()}`,
            kind: 'folder',
            name: req.name,
            parent_id: parentId,
            managed: false,
            sort_order: nextSortOrder(nodes, parentId),
            created_at: now,
            updated_at: now,
          };
          await server.store.commit([...ensureBankMutations(server, bankId), putRecord(bankId, KNOWLEDGE_KIND, folder.id, folder)]);
          return { status: 201, body: nodeOut(folder, undefined, false), headers: ignoredHeader(unknownFields(CreateFolderBody, body)) };
        });
      },
    },
    {
      method: 'POST',
      pattern: `${KB}/pages`,
      since: SINCE,
      handler: async ({ params, body, server }) => {
        const bankId = bankIdOf(params);
        const req = decodeOr422(CreatePageBody, body);
        checkTrigger(req.trigger, ['body', 'trigger']);
        return server.store.exclusive(bankId, async () => {
          const nodes = nodesOf(server, bankId);
          const parentId = req.parent_id ?? null;
          const problem = parentProblem(nodes, parentId);
          if (problem !== undefined) throw badRequest(problem);
          if (pageNameTaken(nodes, parentId, req.name)) throw conflict(`A page named '${req.name}' already exists in this folder`);
          const now = server.nowIso();
          const pageId = `kp-${hex()}`;
          const modelId = `mm-${hex()}`;
          const model: MentalModelRecord = {
            id: modelId,
            name: req.name,
            source_query: req.source_query,
            content: GENERATING,
            tags: req.tags ?? [],
            max_tokens: req.max_tokens ?? PAGE_DEFAULT_MAX_TOKENS,
            // A supplied trigger replaces the page defaults (0.9.1 semantics).
            trigger: normaliseTrigger(req.trigger ?? PAGE_DEFAULT_TRIGGER),
            created_at: now,
            history: [],
            page_id: pageId,
          };
          const page: KnowledgeNodeRecord = {
            id: pageId,
            kind: 'page',
            name: req.name,
            parent_id: parentId,
            managed: false,
            sort_order: nextSortOrder(nodes, parentId),
            created_at: now,
            updated_at: now,
            mental_model_id: modelId,
          };
          const refresh = buildRefresh(server, bankId, modelId);
          await server.store.commit([
            ...ensureBankMutations(server, bankId),
            putRecord(bankId, MENTAL_MODEL_KIND, modelId, model),
            putRecord(bankId, KNOWLEDGE_KIND, pageId, page),
            refresh.mutation,
          ]);
          server.operations.schedule([refresh.operation]);
          return {
            status: 201,
            body: { page_id: pageId, mental_model_id: modelId, operation_id: refresh.operation.id },
            headers: ignoredHeader(unknownFields(CreatePageBody, body)),
          };
        });
      },
    },
    {
      method: 'GET',
      pattern: `${KB}/pages/{page_id}`,
      since: SINCE,
      handler: ({ params, server }) => {
        const { node, model } = requirePage(server, bankIdOf(params), params['page_id'] ?? '');
        return { body: pageBody(node, model) };
      },
    },
    {
      method: 'GET',
      pattern: `${KB}/search`,
      since: SINCE,
      handler: ({ params, query, server }) => {
        const bankId = bankIdOf(params);
        const q = query.get('q');
        if (q === null) throw new HttpError(422, [{ type: 'missing', loc: ['query', 'q'], msg: 'Field required' }]);
        if (q.length < 1) throw new HttpError(422, [{ type: 'string_too_short', loc: ['query', 'q'], msg: 'String should have at least 1 character', input: q }]);
        const limit = intParam(query, 'limit', 10, 1, 50);
        const pages = nodesOf(server, bankId).flatMap((node) => {
          const model = node.kind === 'page' ? modelOf(server, bankId, node) : undefined;
          return model === undefined ? [] : [{ node, model }];
        });
        const index = new MiniSearch<{ id: string; name: string; query: string; content: string }>({
          fields: ['name', 'query', 'content'],
          searchOptions: { boost: { name: 2 }, prefix: true, combineWith: 'OR' },
        });
        index.addAll(pages.map(({ node, model }) => ({ id: node.id, name: node.name, query: model.source_query, content: model.content })));
        const byId = new Map(pages.map((p) => [p.node.id, p]));
        const hits = index.search(q);
        const results = hits.slice(0, limit).flatMap((hit) => {
          const page = byId.get(String(hit.id));
          if (page === undefined) return [];
          const updated = page.model.last_refreshed_at ?? page.node.updated_at;
          return [
            {
              id: page.node.id,
              name: page.node.name,
              mental_model_id: page.model.id,
              snippet: snippetOf(page.model.content === GENERATING ? page.model.source_query : page.model.content, hit.terms),
              score: hit.score,
              updated_at: updated,
            },
          ];
        });
        return { body: { results, total: hits.length } };
      },
    },
    {
      method: 'PATCH',
      pattern: `${KB}/nodes/{node_id}`,
      since: SINCE,
      handler: async ({ params, body, server }) => {
        const bankId = bankIdOf(params);
        const nodeId = params['node_id'] ?? '';
        const req = decodeOr422(UpdateNodeBody, body ?? {});
        const present = (key: keyof UpdateNodeBody): boolean => req[key] !== undefined && (key === 'parent_id' || req[key] !== null);
        const fields = (['name', 'parent_id', 'source_query', 'tags', 'max_tokens'] as const).filter(present);
        if (fields.length === 0) throw badRequest('No fields to update: send at least one of name, parent_id, source_query, tags, max_tokens');
        return server.store.exclusive(bankId, async () => {
          const nodes = nodesOf(server, bankId);
          const node = requireNode(server, bankId, nodeId);
          const pageFields = fields.filter((f) => f === 'source_query' || f === 'tags' || f === 'max_tokens');
          if (node.kind === 'folder' && pageFields.length > 0) throw badRequest(`${pageFields.join(', ')} can only be set on a page; '${nodeId}' is a folder`);
          const parentId = present('parent_id') ? (req.parent_id ?? null) : node.parent_id;
          if (present('parent_id')) {
            const problem = parentProblem(nodes, parentId);
            if (problem !== undefined) throw badRequest(problem);
            if (wouldCycle(nodes, nodeId, parentId)) throw badRequest(`Cannot move '${nodeId}' inside itself`);
          }
          const name = req.name ?? node.name;
          if (node.kind === 'page' && (name !== node.name || parentId !== node.parent_id) && pageNameTaken(nodes, parentId, name, nodeId)) {
            throw conflict(`A page named '${name}' already exists in this folder`);
          }
          const now = server.nowIso();
          const next: KnowledgeNodeRecord = { ...node, name, parent_id: parentId, updated_at: now };
          const mutations: Mutation[] = [putRecord(bankId, KNOWLEDGE_KIND, nodeId, next)];
          let model = modelOf(server, bankId, node);
          if (node.kind === 'page' && model !== undefined) {
            const queryChanged = req.source_query !== undefined && req.source_query !== null && req.source_query !== model.source_query;
            model = {
              ...model,
              name,
              ...(req.source_query === undefined || req.source_query === null ? {} : { source_query: req.source_query }),
              ...(req.tags === undefined || req.tags === null ? {} : { tags: req.tags }),
              ...(req.max_tokens === undefined || req.max_tokens === null ? {} : { max_tokens: req.max_tokens }),
            };
            mutations.push(putRecord(bankId, MENTAL_MODEL_KIND, model.id, model));
            if (queryChanged) {
              const refresh = buildRefresh(server, bankId, model.id);
              mutations.push(refresh.mutation);
              await server.store.commit(mutations);
              server.operations.schedule([refresh.operation]);
              return { body: nodeOut(next, pageViewOf(server, bankId)(next), true), headers: ignoredHeader(unknownFields(UpdateNodeBody, body)) };
            }
          }
          await server.store.commit(mutations);
          return { body: nodeOut(next, node.kind === 'page' ? pageViewOf(server, bankId)(next) : undefined, true), headers: ignoredHeader(unknownFields(UpdateNodeBody, body)) };
        });
      },
    },
    {
      method: 'DELETE',
      pattern: `${KB}/nodes/{node_id}`,
      since: SINCE,
      handler: async ({ params, server }) => {
        const bankId = bankIdOf(params);
        const nodeId = params['node_id'] ?? '';
        return server.store.exclusive(bankId, async () => {
          const nodes = nodesOf(server, bankId);
          requireNode(server, bankId, nodeId);
          const doomed = new Set(subtreeIds(nodes, nodeId));
          const mutations: Mutation[] = [];
          for (const node of nodes) {
            if (!doomed.has(node.id)) continue;
            mutations.push(deleteRecord(bankId, KNOWLEDGE_KIND, node.id));
            if (node.mental_model_id !== undefined && server.store.bank(bankId)?.records.get(MENTAL_MODEL_KIND)?.has(node.mental_model_id) === true) {
              mutations.push(deleteRecord(bankId, MENTAL_MODEL_KIND, node.mental_model_id));
            }
          }
          await server.store.commit(mutations);
          return { body: { status: 'deleted' } };
        });
      },
    },
    {
      method: 'GET',
      pattern: `${KB}/export`,
      since: SINCE,
      handler: ({ params, server }) => {
        const bankId = bankIdOf(params);
        const nodes = nodesOf(server, bankId);
        const tree = buildTree(nodes, pageViewOf(server, bankId));
        const files: { path: string; content: string }[] = [{ path: 'index.md', content: exportIndex(toIndex(tree)) }];
        const walk = (list: readonly KnowledgeNodeOut[]): void => {
          for (const out of list) {
            if (out.kind === 'page') {
              const node = nodes.find((n) => n.id === out.id);
              const model = node === undefined ? undefined : modelOf(server, bankId, node);
              if (node !== undefined && model !== undefined) {
                files.push({ path: `${node.id}.md`, content: String(pageBody(node, model)['markdown']) });
                if (model.history.length > 0) {
                  files.push({
                    path: `${node.id}.log.md`,
                    content: pageLog({ id: node.id, name: node.name }, model.history.map((h) => ({ changedAt: h.changed_at, previousContent: h.previous_content }))),
                  });
                }
              }
            }
            walk(out.children);
          }
        };
        walk(tree);
        return { body: { files } };
      },
    },
  ],
};
