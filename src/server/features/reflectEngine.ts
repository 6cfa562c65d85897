/**
 * Runs an extractive reflect against a bank: lexical recall of facts (and observations,
 * consolidated first) in the request's tag scope, a lexical search of mental models in the
 * same scope, the directives that apply, then `composeReflect`. Used by `POST {b}/reflect`
 * and by mental-model / knowledge-page refresh.
 */
import { performance } from 'node:perf_hooks';
import type { ServerContext } from '../context.js';
import { recallable } from '../recall/recall.js';
import { matchesTagFilter } from '../recall/tagFilter.js';
import type { TagFilter } from '../recall/tagFilter.js';
import type { FactRecord } from '../store/model.js';
import { DIRECTIVE_KIND, DirectiveRecord, directivesForReflect } from './directives.js';
import { GENERATING, MENTAL_MODEL_KIND, MentalModelRecord } from './mentalModels.js';
import { observationsFor } from './observationsFor.js';
import { composeReflect, rankModels } from './reflect.js';
import type { ReflectBody, ReflectFactInput } from './reflect.js';
import { readRecords } from './records.js';

export type Budget = 'low' | 'mid' | 'high';
export type FactTypeName = 'world' | 'experience' | 'observation';

/** Facts a reflect reads per budget: the agent's iteration cap scales ×0.5/×1/×2 upstream. */
const REFLECT_FACTS: Readonly<Record<Budget, number>> = { low: 15, mid: 30, high: 60 };
const MODELS_SHOWN = 5;
const ALL_TYPES: readonly FactTypeName[] = ['world', 'experience', 'observation'];

export interface ReflectRun {
  readonly query: string;
  readonly budget: Budget;
  readonly maxTokens: number;
  readonly factTypes?: readonly FactTypeName[] | undefined;
  readonly filter: TagFilter;
  readonly excludeMentalModels: boolean;
  readonly excludeMentalModelIds: readonly string[];
  readonly applyAllDirectives: boolean;
  readonly includeFacts: boolean;
  readonly toolCalls: { readonly output: boolean } | null;
}

const factInput = (fact: FactRecord): ReflectFactInput => ({
  id: fact.id,
  text: fact.text,
  type: fact.fact_type,
  context: fact.context,
  occurred_start: fact.occurred_start,
  occurred_end: fact.occurred_end,
  mentioned_at: fact.mentioned_at,
});

const filterInput = (filter: TagFilter): Record<string, unknown> => ({
  ...(filter.tags === undefined || filter.tags === null ? {} : { tags: filter.tags }),
  tags_match: filter.tagsMatch ?? 'any',
  ...(filter.tagGroups === undefined || filter.tagGroups === null ? {} : { tag_groups: filter.tagGroups }),
});

export const runReflect = async (server: ServerContext, bankId: string, run: ReflectRun): Promise<ReflectBody> => {
  const types = run.factTypes === undefined || run.factTypes.length === 0 ? ALL_TYPES : run.factTypes;
  if (types.includes('observation') && server.store.bank(bankId) !== undefined) await observationsFor(server).ensureFresh(bankId);

  const modelStart = performance.now();
  const searchModels = !run.excludeMentalModels;
  const models = searchModels
    ? rankModels(
        run.query,
        readRecords(server, bankId, MENTAL_MODEL_KIND, MentalModelRecord).filter(
          (m) => !run.excludeMentalModelIds.includes(m.id) && m.content.trim().length > 0 && m.content !== GENERATING && matchesTagFilter(run.filter, m.tags),
        ),
        MODELS_SHOWN,
      )
    : [];
  const modelSearchMs = performance.now() - modelStart;

  const recallStart = performance.now();
  const limit = REFLECT_FACTS[run.budget];
  const hits = server.search.search(bankId, run.query, recallable(new Set(types), run.filter), limit, { observations: types.includes('observation') }).hits;
  const recallMs = performance.now() - recallStart;
  // An observation whose every source fact was recalled too adds nothing but repetition.
  const recalledIds = new Set(hits.map((h) => h.fact.id));
  const facts = hits
    .map((h) => h.fact)
    .filter((fact) => fact.fact_type !== 'observation' || !(fact.source_fact_ids ?? []).every((id) => recalledIds.has(id)) || (fact.source_fact_ids ?? []).length === 0);

  const directives = directivesForReflect(
    readRecords(server, bankId, DIRECTIVE_KIND, DirectiveRecord),
    { tags: run.filter.tags, tagsMatch: run.filter.tagsMatch, tagGroups: run.filter.tagGroups },
    run.applyAllDirectives,
    (tags) => matchesTagFilter(run.filter, tags),
  );

  return composeReflect({
    query: run.query,
    facts: facts.map(factInput),
    models,
    modelsSearched: searchModels,
    directives,
    maxTokens: run.maxTokens,
    includeFacts: run.includeFacts,
    toolCalls: run.toolCalls,
    recallInput: { query: run.query, types: [...types], budget: run.budget, max_results: limit, ...filterInput(run.filter) },
    modelSearchInput: { query: run.query, ...filterInput(run.filter), exclude_mental_model_ids: [...run.excludeMentalModelIds] },
    recallMs,
    modelSearchMs,
  });
};
