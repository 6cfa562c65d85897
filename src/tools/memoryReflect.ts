/**
 * memory_reflect: a synthesized answer from memory, for explicit questions (not default
 * recall). Scoped like recall; optional outputs are capability-gated before sending.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { resolveBank, scopeTagsFor } from '../config/scope.js';
import { composeTagFilter } from '../config/tagFilter.js';
import type { ReflectRequest } from '../effects/ports/memoryServer.js';
import type { ToolContext } from './context.js';
import { custom, flag, list, text, toolParams } from './params.js';
import { fail, ok, type ToolOutcome } from './result.js';
import { callOptions, failureOutcome, loadCapabilities, missingFeatures, runCall, type WantedFeature } from './serverCall.js';
import {
  bankParam,
  budgetParam,
  factTypesParam,
  includeSharedObservationsParam,
  maxTokensParam,
  tagGroupsParam,
  tagsMatchParam,
  tagsParam,
} from './sharedParams.js';
import { cleanLine, cleanText, indented, withCleanDetails } from './text.js';
import { projectTagExclusion } from './userBankExclusion.js';
import { defineTool } from './tool.js';

const ResponseSchema = t.UnknownRecord;

export const MemoryReflectParams = toolParams(
  'memory_reflect',
  { query: text('The question to answer from memory.', 2000) },
  {
    context: text('Extra context for the question.', 4000),
    bank: bankParam,
    budget: budgetParam,
    maxTokens: maxTokensParam('Length cap of the answer, in tokens.'),
    responseSchema: custom(ResponseSchema, { type: 'object' }, 'JSON schema of a structured answer, when supported.'),
    includeFacts: flag('Include the facts the answer is based on, when supported.'),
    includeToolCalls: flag('Include the tool-call trace, when supported.'),
    includeToolCallOutput: flag('Only with includeToolCalls. Default true; false gives an inputs-only trace.'),
    factTypes: factTypesParam('Fact types to reason over (default: all).'),
    excludeMentalModels: flag('Exclude all mental models.'),
    excludeMentalModelIds: list(text('Mental model id', 256), 'Exclude these mental models by id.', 100),
    tags: tagsParam('Additional tag filter, AND-ed with the automatic scope filter.'),
    tagsMatch: tagsMatchParam,
    tagGroups: tagGroupsParam,
    includeSharedObservations: includeSharedObservationsParam,
  },
);
export type MemoryReflectParams = t.TypeOf<typeof MemoryReflectParams.codec>;

const reflectFeatures = (params: MemoryReflectParams): WantedFeature[] => {
  const wanted: WantedFeature[] = [{ flag: 'tagGroups', label: 'tag_groups (the scope filter)' }];
  if (params.responseSchema !== undefined) wanted.push({ flag: 'responseSchema', label: 'reflect responseSchema' });
  if (params.includeFacts === true) wanted.push({ flag: 'reflectFacts', label: 'reflect includeFacts' });
  if (params.includeToolCalls === true) wanted.push({ flag: 'toolCalls', label: 'reflect includeToolCalls' });
  if (params.tagsMatch === 'exact') wanted.push({ flag: 'exactTags', label: 'tagsMatch exact' });
  return wanted;
};

const buildReflectRequest = (params: MemoryReflectParams, ctx: ToolContext, scopeTags: readonly string[]): ReflectRequest => {
  const filter = composeTagFilter({
    scopeTags,
    tags: params.tags,
    tagsMatch: params.tagsMatch,
    tagGroups: params.tagGroups,
    includeSharedObservations: params.includeSharedObservations ?? ctx.loaded.config.includeSharedObservations,
  });
  const include: NonNullable<ReflectRequest['include']> = {};
  if (params.includeFacts === true) include.facts = {};
  if (params.includeToolCalls === true) include.tool_calls = { output: params.includeToolCallOutput ?? true };
  return {
    query: params.query,
    budget: params.budget ?? ctx.loaded.config.recallBudget,
    ...(params.context === undefined ? {} : { context: params.context }),
    ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
    ...(Object.keys(include).length === 0 ? {} : { include }),
    ...(params.responseSchema === undefined ? {} : { response_schema: params.responseSchema }),
    ...(params.factTypes === undefined ? {} : { fact_types: params.factTypes }),
    ...(params.excludeMentalModels === undefined ? {} : { exclude_mental_models: params.excludeMentalModels }),
    ...(params.excludeMentalModelIds === undefined ? {} : { exclude_mental_model_ids: params.excludeMentalModelIds }),
    ...(filter.tag_groups === undefined ? {} : { tag_groups: filter.tag_groups }),
  };
};

const handler = async (params: MemoryReflectParams, ctx: ToolContext): Promise<ToolOutcome> => {
  if (ctx.session !== undefined && !ctx.session.recallAllowed) {
    return fail('sessionRefused', `Memory reflect is disabled for this session (mode ${ctx.session.mode ?? 'ignored'}). Change the session mode with /memory mode normal (or read-only) to use memory.`);
  }
  if (params.includeToolCallOutput !== undefined && params.includeToolCalls !== true) {
    return fail('invalidParams', 'tool memory_reflect: field includeToolCallOutput: only with includeToolCalls: true. Nothing was sent.', { field: 'includeToolCallOutput' });
  }
  const target = resolveBank(ctx.scope, params.bank);
  if (E.isLeft(target)) return fail('notConfigured', `${target.left.message}. Nothing was sent.`, { field: 'bank' });
  const caps = await loadCapabilities(ctx, 'memory_reflect');
  if (E.isLeft(caps)) return caps.left;
  const gate = missingFeatures(caps.right, reflectFeatures(params));
  if (gate !== undefined) return gate;
  const built = buildReflectRequest(params, ctx, scopeTagsFor(ctx.scope, target.right));
  // The user bank answers from the person's own memories only, as its recall shows them.
  const exclusion = target.right.role === 'user' ? await projectTagExclusion(ctx, target.right.bankId, `memory_reflect on ${target.right.bankId}`) : E.right(undefined);
  if (E.isLeft(exclusion)) return exclusion.left;
  const request: ReflectRequest = exclusion.right === undefined ? built : { ...built, tag_groups: [...(built.tag_groups ?? []), exclusion.right] };
  const result = await runCall(ctx.server.reflect(target.right.bankId, request, callOptions(ctx)));
  if (E.isLeft(result)) return failureOutcome(ctx, `memory_reflect on ${target.right.bankId}`, result.left);
  const basedOn = result.right.based_on ?? {};
  const facts = basedOn.memories ?? [];
  const models = basedOn.mental_models ?? [];
  const sources = [facts.length > 0 ? `${facts.length} fact(s)` : '', models.length > 0 ? `${models.length} mental model(s)` : ''].filter((s) => s !== '');
  const structured = result.right.structured_output;
  const text = [
    `Reflection from ${target.right.bankId} (synthesized from memory data):`,
    indented(cleanText(result.right.text, 12_000)),
    ...(structured === undefined || structured === null ? [] : [`Structured output: ${cleanLine(JSON.stringify(structured), 4000)}`]),
    // The server lists sources only when asked (includeFacts); absence is not "no memories".
    ...(sources.length > 0 ? [`Based on ${sources.join(' and ')}.`] : []),
  ].join('\n');
  return ok(text, {
    bankId: target.right.bankId,
    query: params.query,
    text: cleanText(result.right.text, 12_000),
    ...(result.right.based_on === undefined || result.right.based_on === null ? {} : { basedOn: result.right.based_on }),
    ...(structured === undefined || structured === null ? {} : { structuredOutput: structured }),
    ...(result.right.trace === undefined || result.right.trace === null ? {} : { trace: result.right.trace }),
  });
};

export const memoryReflectTool = defineTool<MemoryReflectParams>({
  name: 'memory_reflect',
  label: 'Memory Reflect',
  description:
    'Ask long-term memory to synthesize an answer to a question, scoped to this project. Use explicitly for questions that need reasoning over many memories; use memory_recall for ordinary lookups.',
  promptSnippet: 'memory_reflect: synthesize an answer from project memory (explicit questions only)',
  params: MemoryReflectParams,
  handler: withCleanDetails(handler),
});
