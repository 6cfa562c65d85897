/**
 * memory_mental_model (capability-gated): list (metadata only), get, and previewed create,
 * update, refresh and delete of mental models. A server without mental models gets a clear
 * unsupported-capability error; nothing is reshaped to fit.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { resolveBank, type BankTarget } from '../config/scope.js';
import type { CreateMentalModelRequest, MentalModel, MentalModelTrigger, UpdateMentalModelRequest } from '../effects/ports/memoryServer.js';
import type { ToolContext } from './context.js';
import { int, objectId, oneOf, text, toolParams } from './params.js';
import { fail, ok, type ToolOutcome } from './result.js';
import { callOptions, failureOutcome, requireFeatures, runCall } from './serverCall.js';
import { bankParam, dryRunParam, tagsMatchParam, tagsParam } from './sharedParams.js';
import { inProjectScope, outOfScope, scopedObjectTags } from './objectScope.js';
import { capLines, cleanLine, cleanText, indented, serverId, withCleanDetails } from './text.js';
import { defineTool } from './tool.js';

export const MemoryMentalModelParams = toolParams(
  'memory_mental_model',
  { action: oneOf(['list', 'get', 'create', 'update', 'refresh', 'delete'], 'What to do. create, update, refresh and delete preview unless dryRun is false.') },
  {
    bank: bankParam,
    id: objectId('Mental model id (get, update, refresh, delete).', 256),
    name: text('Model name (create, update).', 256),
    sourceQuery: text('The question the model answers (create, update).', 2000),
    tags: tagsParam('Model tags. Project-tier create defaults to source:pi plus the project: tag.'),
    maxTokens: int('Content length cap in tokens (256-8192).', 256, 8192),
    tagsMatch: tagsMatchParam,
    dryRun: dryRunParam,
  },
);
export type MemoryMentalModelParams = t.TypeOf<typeof MemoryMentalModelParams.codec>;

/** What list shows: metadata only, whatever the server sent. */
const modelMetadata = (m: MentalModel) => ({
  id: m.id,
  name: m.name,
  ...(m.tags === undefined || m.tags === null ? {} : { tags: m.tags }),
  ...(m.max_tokens === undefined || m.max_tokens === null ? {} : { max_tokens: m.max_tokens }),
  ...(m.last_refreshed_at === undefined || m.last_refreshed_at === null ? {} : { last_refreshed_at: m.last_refreshed_at }),
});

/** Default tags of a created object: project tier gets the project tag, the user tier does not. */
export const defaultObjectTags = (ctx: ToolContext, target: BankTarget): string[] =>
  target.role === 'user' ? ['source:pi'] : ['source:pi', ctx.scope.identity.tag];

const need = (value: unknown, message: string, field: string): ToolOutcome | undefined =>
  value === undefined ? fail('invalidParams', `${message}. Nothing was sent.`, { field }) : undefined;

const handler = async (params: MemoryMentalModelParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const target = resolveBank(ctx.scope, params.bank);
  if (E.isLeft(target)) return fail('notConfigured', `${target.left.message}. Nothing was sent.`, { field: 'bank' });
  const bankId = target.right.bankId;
  const { action } = params;
  const missing =
    action === 'create'
      ? need(params.name, 'name and sourceQuery are required for create', 'name') ?? need(params.sourceQuery, 'name and sourceQuery are required for create', 'sourceQuery')
      : action === 'list'
        ? undefined
        : need(params.id, `id is required for ${action}`, 'id');
  if (missing !== undefined) return missing;
  if (
    action === 'update' &&
    params.name === undefined &&
    params.sourceQuery === undefined &&
    params.tags === undefined &&
    params.maxTokens === undefined &&
    params.tagsMatch === undefined
  ) {
    return fail('invalidParams', 'Provide name, sourceQuery, tags, maxTokens and/or tagsMatch for update. Nothing was sent.', { field: 'name' });
  }
  const id = params.id ?? '';
  const dryRun = params.dryRun !== false;
  // A project-tier model always carries this project's tag (an untagged one would be nobody's),
  // and a call may not tag it for another project.
  const scoped = action === 'create' || params.tags !== undefined ? scopedObjectTags(ctx, target.right, params.tags, defaultObjectTags(ctx, target.right)) : undefined;
  if (scoped !== undefined && 'refused' in scoped) return fail('rejected', scoped.refused, { field: 'tags' });
  const tags = scoped?.tags;
  const trigger: MentalModelTrigger = { refresh_after_consolidation: true, ...(params.tagsMatch === undefined ? {} : { tags_match: params.tagsMatch }) };

  // Previews need no server: they describe exactly what would be sent.
  if (dryRun && action === 'create') {
    const wouldCreate: CreateMentalModelRequest = {
      name: params.name ?? '', // required for create: checked above
      source_query: params.sourceQuery ?? '',
      ...(tags === undefined ? {} : { tags }),
      ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
      trigger,
    };
    return ok(`Preview (dryRun): would create mental model "${wouldCreate.name}" in ${bankId} with tags ${(wouldCreate.tags ?? []).join(', ')}. Nothing was changed; call again with dryRun:false.`, {
      action, dryRun: true, bankId, wouldCreate: wouldCreate,
    });
  }
  const update: UpdateMentalModelRequest = {
    ...(params.name === undefined ? {} : { name: params.name }),
    ...(params.sourceQuery === undefined ? {} : { source_query: params.sourceQuery }),
    ...(tags === undefined ? {} : { tags }),
    ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
    ...(params.tagsMatch === undefined ? {} : { trigger }),
  };
  if (dryRun && action === 'update') {
    return ok(`Preview (dryRun): would update mental model ${id} in ${bankId}: ${Object.keys(update).join(', ')}. Nothing was changed; call again with dryRun:false.`, {
      action, dryRun: true, bankId, id, wouldUpdate: update,
    });
  }
  if (dryRun && (action === 'refresh' || action === 'delete')) {
    return ok(`Preview (dryRun): would ${action} mental model ${id} in ${bankId}. Nothing was changed; call again with dryRun:false.`, {
      action, dryRun: true, bankId, id, ...(action === 'refresh' ? { wouldRefresh: true } : { wouldDelete: true }),
    });
  }

  const gate = await requireFeatures(ctx, 'memory_mental_model', [{ flag: 'mentalModels', label: 'mental models' }]);
  if (gate !== undefined) return gate;
  const o = callOptions(ctx);
  const what = `memory_mental_model ${action}${action === 'list' || action === 'create' ? '' : ` ${id}`} on ${bankId}`;
  if (action !== 'list' && action !== 'create') {
    // Another project's model is invisible: it is never read, changed or deleted from here.
    const own = await runCall(ctx.server.getMentalModel(bankId, id, 'metadata', o));
    if (E.isLeft(own)) return failureOutcome(ctx, what, own.left);
    if (!inProjectScope(ctx, target.right, own.right.tags)) return outOfScope('Mental model', id, bankId);
  }
  switch (action) {
    case 'list': {
      const r = await runCall(ctx.server.listMentalModels(bankId, { detail: 'metadata' }, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      const items = r.right.items.filter((m) => inProjectScope(ctx, target.right, m.tags)).map(modelMetadata);
      const lines = items.map((m) => `- ${cleanLine(m.id, 200)}: ${cleanLine(m.name, 200)}${m.tags === undefined ? '' : ` [${m.tags.map((tag) => cleanLine(tag, 200)).join(', ')}]`}${m.last_refreshed_at === undefined ? '' : ` (refreshed ${cleanLine(m.last_refreshed_at, 100)})`}`);
      return ok([items.length === 0 ? `No mental models in ${bankId}.` : `${items.length} mental model(s) in ${bankId} (metadata only; use get for content):`, ...capLines(lines)].join('\n'), {
        action, bankId, items: items,
      });
    }
    case 'get': {
      const r = await runCall(ctx.server.getMentalModel(bankId, id, 'full', o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      const m = r.right;
      return ok(
        [`Mental model ${cleanLine(m.id, 200)}: ${cleanLine(m.name, 200)}`, ...(m.source_query ? [`Question: ${cleanLine(m.source_query, 500)}`] : []), indented(cleanText(m.content ?? '(no content yet)', 12_000))].join('\n'),
        { action, bankId, model: m },
      );
    }
    case 'create': {
      const body: CreateMentalModelRequest = {
        name: params.name ?? '', // required for create: checked above
        source_query: params.sourceQuery ?? '',
        ...(tags === undefined ? {} : { tags }),
        ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
        trigger,
      };
      const r = await runCall(ctx.server.createMentalModel(bankId, body, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      return ok(`Created mental model ${r.right.mental_model_id ? serverId(r.right.mental_model_id) : '(id assigned when the operation completes)'} in ${bankId}; its content is generated by a refresh${r.right.operation_id ? ` (operation ${serverId(r.right.operation_id)})` : ''}.`, {
        action, dryRun: false, bankId, created: r.right,
      });
    }
    case 'update': {
      const r = await runCall(ctx.server.updateMentalModel(bankId, id, update, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      return ok(`Updated mental model ${id} in ${bankId}: ${Object.keys(update).join(', ')}.`, { action, dryRun: false, bankId, id, model: modelMetadata(r.right) });
    }
    case 'refresh': {
      const r = await runCall(ctx.server.refreshMentalModel(bankId, id, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      return ok(`Refresh of mental model ${id} queued (operation ${serverId(r.right.operation_id)}).`, { action, dryRun: false, bankId, id, operationId: r.right.operation_id });
    }
    case 'delete': {
      const r = await runCall(ctx.server.deleteMentalModel(bankId, id, o));
      if (E.isLeft(r)) return failureOutcome(ctx, what, r.left);
      return ok(`Deleted mental model ${id} from ${bankId}.`, { action, dryRun: false, bankId, id, deleted: true });
    }
  }
};

export const memoryMentalModelTool = defineTool<MemoryMentalModelParams>({
  name: 'memory_mental_model',
  label: 'Memory Mental Model',
  description:
    'Manage mental models (living summaries the server keeps up to date): list (metadata only), get (full content), create, update, refresh, delete. Only this project\'s models are visible (its project: tag; in the user bank, the user scope tags). Mutating actions preview unless dryRun is false. A project-tier model always carries the project: tag (create defaults tags to source:pi plus it); tags naming another project are refused. Needs server support; otherwise fails with an unsupported-capability error.',
  promptSnippet: 'memory_mental_model: list, read or manage mental models (preview first)',
  params: MemoryMentalModelParams,
  handler: withCleanDetails(handler),
});
