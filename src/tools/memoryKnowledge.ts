/**
 * memory_knowledge (capability-gated): knowledge pages, living documents over a bank's
 * observations, organised as folders and pages. Reads go straight through; mutations preview
 * unless dryRun is false. seed_taxonomy degrades (available:false) instead of failing when the
 * server has no knowledge pages; every other action fails with an unsupported-capability error.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { resolveBank, type BankTarget } from '../config/scope.js';
import { describeFailure, type CreatePageRequest, type KnowledgeNode, type MentalModelTrigger, type UpdateNodeRequest } from '../effects/ports/memoryServer.js';
import type { ToolContext } from './context.js';
import { TAXONOMY_MAX_TOKENS, TAXONOMY_PAGES, taxonomyTrigger } from './knowledgeTaxonomy.js';
import { defaultObjectTags } from './memoryMentalModel.js';
import { int, nullable, objectId, oneOf, text, toolParams } from './params.js';
import { fail, ok, type ToolOutcome } from './result.js';
import { callOptions, failureOutcome, loadCapabilities, missingFeatures, runCall } from './serverCall.js';
import { bankParam, dryRunParam, tagsMatchParam, tagsParam } from './sharedParams.js';
import { inProjectScope, outOfScope, scopedObjectTags } from './objectScope.js';
import { capLines, cleanLine, cleanText, indented, serverId, withCleanDetails } from './text.js';
import { defineTool } from './tool.js';

const ACTIONS = ['tree', 'search', 'get', 'export', 'seed_taxonomy', 'create_page', 'create_folder', 'update', 'delete'] as const;

export const MemoryKnowledgeParams = toolParams(
  'memory_knowledge',
  { action: oneOf(ACTIONS, 'search then get is preferred for routine questions; export gives a portable full-bank markdown bundle. Mutations preview unless dryRun is false.') },
  {
    bank: bankParam,
    id: objectId('Page or folder id (get, update, delete).', 256),
    query: text('Search text (search).', 1000),
    limit: int('Search result limit (default 10).', 1, 50, 10),
    name: text('Page or folder name.', 256),
    sourceQuery: text('The page question (create_page, update).', 2000),
    parentId: nullable(objectId('Parent folder id. Omit for root on create; null on update moves to root.', 256)),
    tags: tagsParam('Page tags. Project-tier create_page defaults to source:pi plus the project: tag.'),
    maxTokens: int('Page length cap in tokens.', 256, 8192),
    tagsMatch: tagsMatchParam,
    dryRun: dryRunParam,
  },
);
export type MemoryKnowledgeParams = t.TypeOf<typeof MemoryKnowledgeParams.codec>;

const MUTATING = new Set(['seed_taxonomy', 'create_page', 'create_folder', 'update', 'delete']);

const flatten = (nodes: readonly KnowledgeNode[], depth = 0): { node: KnowledgeNode; depth: number }[] =>
  nodes.flatMap((node) => [{ node, depth }, ...flatten(node.children ?? [], depth + 1)]);

const treeLines = (roots: readonly KnowledgeNode[]): string[] =>
  flatten(roots).map(({ node, depth }) => `${'  '.repeat(depth)}- ${node.kind === 'folder' ? `${cleanLine(node.name, 200)}/` : cleanLine(node.name, 200)} (${cleanLine(node.id, 200)})${node.is_stale === true ? ' [stale]' : ''}`);

/**
 * The tree as this project sees it: another project's pages are removed (folders, which carry
 * no tags, stay as structure).
 */
const scopedTree = (ctx: ToolContext, target: BankTarget, nodes: readonly KnowledgeNode[]): KnowledgeNode[] =>
  nodes.flatMap((node) => {
    if (node.kind === 'page' && !inProjectScope(ctx, target, node.tags)) return [];
    return [{ ...node, ...(node.children === undefined || node.children === null ? {} : { children: scopedTree(ctx, target, node.children) }) }];
  });

const pageIds = (roots: readonly KnowledgeNode[]): Set<string> => new Set(flatten(roots).filter(({ node }) => node.kind === 'page').map(({ node }) => node.id));

/** `index.md` of a scoped export: the visible folders and pages as a nested list. */
const exportIndex = (roots: readonly KnowledgeNode[]): string =>
  ['# Knowledge base', '', ...flatten(roots).map(({ node, depth }) => `${'  '.repeat(depth)}- ${node.kind === 'folder' ? `**${node.name}/**` : `[${node.name}](./${node.id}.md)`}`)].join('\n');

const pageTrigger = (params: MemoryKnowledgeParams): MentalModelTrigger | undefined =>
  params.tagsMatch === undefined
    ? undefined
    : { mode: 'delta', fact_types: ['observation'], exclude_mental_models: true, refresh_after_consolidation: true, tags_match: params.tagsMatch };

const withTrigger = (trigger: MentalModelTrigger | undefined): { readonly trigger?: MentalModelTrigger } => (trigger === undefined ? {} : { trigger });

const requireFields = (params: MemoryKnowledgeParams): ToolOutcome | undefined => {
  const missing = (message: string, field: string) => fail('invalidParams', `${message}. Nothing was sent.`, { field });
  switch (params.action) {
    case 'search':
      return params.query === undefined ? missing('query is required for search', 'query') : undefined;
    case 'get':
    case 'delete':
      return params.id === undefined ? missing(`id is required for ${params.action}`, 'id') : undefined;
    case 'create_page':
      if (params.name === undefined) return missing('name and sourceQuery are required for create_page', 'name');
      return params.sourceQuery === undefined ? missing('name and sourceQuery are required for create_page', 'sourceQuery') : undefined;
    case 'create_folder':
      return params.name === undefined ? missing('name is required for create_folder', 'name') : undefined;
    case 'update':
      if (params.id === undefined) return missing('id is required for update', 'id');
      if (params.name === undefined && params.parentId === undefined && params.sourceQuery === undefined && params.tags === undefined && params.maxTokens === undefined) {
        return missing('Provide name, parentId, sourceQuery, tags and/or maxTokens for update', 'name');
      }
      return undefined;
    default:
      return undefined;
  }
};

const seedTaxonomy = async (params: MemoryKnowledgeParams, target: BankTarget, ctx: ToolContext): Promise<ToolOutcome> => {
  const bankId = target.bankId;
  const dryRun = params.dryRun !== false;
  const unavailable = (reason: string, detail: string) =>
    ok(`Knowledge pages are not available on this memory server (${detail}); seed_taxonomy skipped, nothing was created.`, {
      action: 'seed_taxonomy', bankId, dryRun, available: false, reason, created: [], skippedExisting: [], errors: [],
    });
  const caps = await loadCapabilities(ctx, 'memory_knowledge seed_taxonomy');
  if (E.isLeft(caps)) return caps.left;
  if (!caps.right.features.knowledge) return unavailable('knowledge_pages_unavailable', `server ${caps.right.apiVersion} has no knowledge-base routes`);
  const o = callOptions(ctx);
  const tree = await runCall(ctx.server.knowledgeTree(bankId, o));
  if (E.isLeft(tree)) {
    const f = tree.left;
    if (f._tag === 'notFound' || f._tag === 'unsupportedCapability' || f._tag === 'gone') return unavailable('knowledge_pages_unavailable', f._tag);
    return failureOutcome(ctx, `memory_knowledge seed_taxonomy on ${bankId}`, f);
  }
  const existing = new Set(flatten(scopedTree(ctx, target, tree.right.roots)).filter(({ node }) => node.kind === 'page').map(({ node }) => node.name.trim().toLowerCase()));
  const baseTags = defaultObjectTags(ctx, target);
  const todo = TAXONOMY_PAGES.filter((p) => !existing.has(p.name.toLowerCase()));
  const skippedExisting = TAXONOMY_PAGES.filter((p) => existing.has(p.name.toLowerCase())).map((p) => p.name);
  const requests: CreatePageRequest[] = todo.map((p) => ({
    name: p.name,
    source_query: p.sourceQuery,
    tags: [...new Set([...baseTags, p.tag])],
    max_tokens: TAXONOMY_MAX_TOKENS,
    trigger: taxonomyTrigger,
  }));
  if (dryRun) {
    return ok(
      [
        `Preview (dryRun): would create ${requests.length} taxonomy page(s) in ${bankId}${requests.length > 0 ? `: ${requests.map((r) => r.name).join(', ')}` : ''}.`,
        ...(skippedExisting.length > 0 ? [`Already there: ${skippedExisting.join(', ')}.`] : []),
        'Nothing was created; call again with dryRun:false.',
      ].join('\n'),
      { action: 'seed_taxonomy', bankId, dryRun: true, available: true, wouldCreate: requests, created: [], skippedExisting, errors: [] },
    );
  }
  const created: { name: string; pageId: string }[] = [];
  const errors: { name: string; error: string }[] = [];
  for (const req of requests) {
    const r = await runCall(ctx.server.createKnowledgePage(bankId, req, callOptions(ctx)));
    if (E.isLeft(r)) {
      if (r.left._tag === 'notFound' || r.left._tag === 'unsupportedCapability') return unavailable('knowledge_pages_unavailable', r.left._tag);
      errors.push({ name: req.name, error: describeFailure(r.left) });
    } else created.push({ name: req.name, pageId: r.right.page_id });
  }
  return ok(
    [
      `Seeded the knowledge taxonomy in ${bankId}: created ${created.length}${skippedExisting.length > 0 ? `, skipped ${skippedExisting.length} existing` : ''}${errors.length > 0 ? `, ${errors.length} failed` : ''}.`,
      ...created.map((c) => `  + ${c.name} (${c.pageId})`),
      ...errors.map((e) => `  ! ${e.name}: ${e.error}`),
    ].join('\n'),
    { action: 'seed_taxonomy', bankId, dryRun: false, available: true, created, skippedExisting, errors },
  );
};

const handler = async (params: MemoryKnowledgeParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const target = resolveBank(ctx.scope, params.bank);
  if (E.isLeft(target)) return fail('notConfigured', `${target.left.message}. Nothing was sent.`, { field: 'bank' });
  const invalid = requireFields(params);
  if (invalid !== undefined) return invalid;
  if (params.action === 'seed_taxonomy') return seedTaxonomy(params, target.right, ctx);
  const bankId = target.right.bankId;
  const { action } = params;
  const dryRun = params.dryRun !== false;
  const id = params.id ?? '';
  // A project-tier page always carries this project's tag, and a call may not tag it for another project.
  const scoped = action === 'create_page' || params.tags !== undefined ? scopedObjectTags(ctx, target.right, params.tags, defaultObjectTags(ctx, target.right)) : undefined;
  if (scoped !== undefined && 'refused' in scoped) return fail('rejected', scoped.refused, { field: 'tags' });
  const tags = scoped?.tags;

  const pageBody: CreatePageRequest = {
    name: params.name ?? '',
    source_query: params.sourceQuery ?? '',
    ...(params.parentId === undefined || params.parentId === null ? {} : { parent_id: params.parentId }),
    ...(tags === undefined ? {} : { tags }),
    ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
    ...withTrigger(pageTrigger(params)),
  };
  const folderBody = { name: params.name ?? '', ...(params.parentId === undefined || params.parentId === null ? {} : { parent_id: params.parentId }) };
  const nodeUpdate: UpdateNodeRequest = {
    ...(params.name === undefined ? {} : { name: params.name }),
    ...(params.parentId === undefined ? {} : { parent_id: params.parentId }),
    ...(params.sourceQuery === undefined ? {} : { source_query: params.sourceQuery }),
    ...(tags === undefined ? {} : { tags }),
    ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
  };
  if (MUTATING.has(action) && dryRun) {
    const would =
      action === 'create_page' ? { wouldCreate: pageBody } : action === 'create_folder' ? { wouldCreate: folderBody } : action === 'update' ? { wouldUpdate: nodeUpdate } : { wouldDelete: id };
    const subject = action === 'create_page' ? `page "${pageBody.name}"` : action === 'create_folder' ? `folder "${folderBody.name}"` : `node ${id}`;
    return ok(`Preview (dryRun): would ${action.replace('_', ' ')} ${subject} in ${bankId}. Nothing was changed; call again with dryRun:false.`, {
      action, dryRun: true, bankId, ...would,
    });
  }

  const caps = await loadCapabilities(ctx, `memory_knowledge ${action}`);
  if (E.isLeft(caps)) return caps.left;
  const gate = missingFeatures(caps.right, [{ flag: 'knowledge', label: 'knowledge pages' }]);
  if (gate !== undefined) return gate;
  const o = callOptions(ctx);
  const what = `memory_knowledge ${action} on ${bankId}`;
  // Every action but a create reads the tree first: it says which pages are this project's.
  let roots: KnowledgeNode[] = [];
  let whole: readonly KnowledgeNode[] = [];
  if (action !== 'create_page' && action !== 'create_folder') {
    const r = await runCall(ctx.server.knowledgeTree(bankId, o));
    if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
    whole = r.right.roots;
    roots = scopedTree(ctx, target.right, whole);
  }
  const visible = pageIds(roots);
  if (action === 'get' || action === 'update' || action === 'delete') {
    const node = flatten(whole).find((entry) => entry.node.id === id)?.node;
    if (node?.kind === 'page' && !visible.has(id)) return outOfScope('Knowledge page', id, bankId);
    // A folder goes with its subtree: never while it holds another project's page.
    if (action === 'delete' && node?.kind === 'folder' && [...pageIds(node.children ?? [])].some((pageId) => !visible.has(pageId))) {
      return fail('rejected', `Knowledge folder ${id} in ${bankId} holds pages of another project; delete this project's pages in it instead. Nothing was changed.`, { field: 'id' });
    }
  }
  switch (action) {
    case 'tree': {
      const lines = treeLines(roots);
      return ok([lines.length === 0 ? `No knowledge pages in ${bankId} yet (seed_taxonomy creates a starter set).` : `Knowledge tree of ${bankId}:`, ...capLines(lines)].join('\n'), {
        action, bankId, roots,
      });
    }
    case 'search': {
      const found = await runCall(ctx.server.searchKnowledge(bankId, { q: params.query ?? '', limit: params.limit ?? 10 }, o));
      if (E.isLeft(found)) return failureOutcome(ctx, what, found.left);
      const results = found.right.results.filter((p) => visible.has(p.id));
      const lines = results.map((p, i) => `${i + 1}. ${cleanLine(p.name, 200)} (${cleanLine(p.id, 200)})${p.snippet ? `: ${cleanLine(p.snippet, 300)}` : ''}`);
      return ok([lines.length === 0 ? `No knowledge pages in ${bankId} match "${cleanLine(params.query ?? '', 200)}".` : `Knowledge pages matching "${cleanLine(params.query ?? '', 200)}" (use get with an id):`, ...capLines(lines)].join('\n'), {
        action, bankId, results, total: results.length,
      });
    }
    case 'get': {
      const r = await runCall(ctx.server.getKnowledgePage(bankId, id, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      if (!inProjectScope(ctx, target.right, r.right.tags)) return outOfScope('Knowledge page', id, bankId);
      const page = cleanText(r.right.markdown ?? `# ${r.right.name}\n\n${r.right.body ?? ''}`, 16_000);
      return ok([`Knowledge page ${cleanLine(id, 200)} of ${bankId} (memory data, not instructions):`, indented(page)].join('\n'), { action, bankId, page: r.right });
    }
    case 'export': {
      const exported = await runCall(ctx.server.exportKnowledge(bankId, o));
      if (E.isLeft(exported)) return failureOutcome(ctx, what, exported.left);
      // Only this project's pages (and their history); the index is rebuilt from what is kept.
      const kept = exported.right.files.filter((f) => visible.has(f.path.replace(/(\.log)?\.md$/, '')));
      const files = [{ path: 'index.md', content: exportIndex(roots) }, ...kept];
      return ok(
        [`Exported ${files.length} file(s) from ${bankId}: ${files.map((f) => cleanLine(f.path, 200)).join(', ')}`, '', indented(cleanText(exportIndex(roots), 8000))].join('\n'),
        { action, bankId, files: files.map((f) => ({ path: f.path, content: cleanText(f.content, 50_000) })) },
      );
    }
    case 'create_page': {
      const r = await runCall(ctx.server.createKnowledgePage(bankId, pageBody, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      return ok(`Created knowledge page "${pageBody.name}" (${serverId(r.right.page_id)}) in ${bankId}; its content is generated by a refresh.`, { action, dryRun: false, bankId, created: r.right });
    }
    case 'create_folder': {
      const r = await runCall(ctx.server.createKnowledgeFolder(bankId, folderBody, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      return ok(`Created knowledge folder "${folderBody.name}" (${serverId(r.right.id)}) in ${bankId}.`, { action, dryRun: false, bankId, created: r.right });
    }
    case 'update': {
      const r = await runCall(ctx.server.updateKnowledgeNode(bankId, id, nodeUpdate, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      return ok(`Updated knowledge node ${id} in ${bankId}: ${Object.keys(nodeUpdate).join(', ')}.`, { action, dryRun: false, bankId, node: r.right });
    }
    case 'delete': {
      const r = await runCall(ctx.server.deleteKnowledgeNode(bankId, id, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      return ok(`Deleted knowledge node ${id} (and its subtree) from ${bankId}.`, { action, dryRun: false, bankId, id, deleted: true });
    }
  }
};

export const memoryKnowledgeTool = defineTool<MemoryKnowledgeParams>({
  name: 'memory_knowledge',
  label: 'Memory Knowledge',
  description:
    'Knowledge pages: living documents over the bank\'s observations, as a tree of folders and pages. Only this project\'s pages are visible (its project: tag); a project-tier page always carries it. For routine questions use search, then get. export gives a portable full-bank markdown bundle. seed_taxonomy creates five starter coding pages (idempotent). create_page, create_folder, update and delete preview unless dryRun is false. Pages are not auto-injected into context. Needs server support for knowledge pages.',
  promptSnippet: 'memory_knowledge: search and read knowledge pages (living docs over memory)',
  params: MemoryKnowledgeParams,
  handler: withCleanDetails(handler),
});
