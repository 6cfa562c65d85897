/**
 * The mental-model refresh trigger (`MentalModelTrigger`): its request codec, the checks
 * upstream runs as model validators (422), the full stored dump with every default filled,
 * and the tag scope a refresh uses (reference 1.8 and 2.4).
 */
import * as t from 'io-ts';
import { TagGroup, TagsMatch } from '../recall/tagFilter.js';
import { cronProblem } from './cron.js';
import { responseSchemaProblem } from './responseSchema.js';


// The request shapes are the one wire schema's (src/wire); this file adds the checks and defaults.
import { FactType as WireFactType, MentalModelTrigger as TriggerInput } from '../../wire/hindsight.js';

export { WireFactType, TriggerInput };

/** The stored trigger: the full model dump (nulls dropped on output). */
export const Trigger = t.intersection([
  t.type({
    mode: t.keyof({ full: null, delta: null }),
    refresh_after_consolidation: t.boolean,
    exclude_mental_models: t.boolean,
    keep_trace: t.boolean,
  }),
  t.partial({
    refresh_cron: t.string,
    fact_types: t.array(WireFactType),
    exclude_mental_model_ids: t.array(t.string),
    tags_match: TagsMatch,
    tag_groups: t.array(TagGroup),
    include_chunks: t.boolean,
    recall_max_tokens: t.number,
    recall_chunks_max_tokens: t.number,
    response_schema: t.record(t.string, t.unknown),
  }),
]);
export type Trigger = t.TypeOf<typeof Trigger>;

/** A problem found by a trigger's model validators: where and what. */
export interface TriggerProblem {
  readonly loc: readonly (string | number)[];
  readonly message: string;
}

/** The model-validator checks upstream applies; `loc` is relative to the trigger. */
export const triggerProblem = (input: TriggerInput): TriggerProblem | undefined => {
  const cron = input.refresh_cron === null || input.refresh_cron === undefined || input.refresh_cron.trim() === '' ? undefined : input.refresh_cron;
  if (cron !== undefined) {
    const problem = cronProblem(cron);
    if (problem !== undefined) return { loc: ['refresh_cron'], message: `Invalid refresh_cron '${cron}': ${problem}` };
    if (input.refresh_after_consolidation === true) {
      return { loc: [], message: 'refresh_cron and refresh_after_consolidation are mutually exclusive; set only one' };
    }
  }
  if (input.fact_types !== null && input.fact_types !== undefined && input.fact_types.length === 0) {
    return { loc: ['fact_types'], message: 'fact_types must not be empty; omit it (null) to use all fact types' };
  }
  if (input.response_schema !== null && input.response_schema !== undefined) {
    const problem = responseSchemaProblem(input.response_schema);
    if (problem !== undefined) return { loc: ['response_schema'], message: problem };
  }
  return undefined;
};

const defined = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

/** Fills defaults: the stored trigger of a model created with `input`. A blank cron is null. */
export const normaliseTrigger = (input: TriggerInput): Trigger => {
  const cron = defined(input.refresh_cron) && input.refresh_cron.trim() !== '' ? input.refresh_cron.trim() : undefined;
  return {
    mode: input.mode ?? 'full',
    refresh_after_consolidation: input.refresh_after_consolidation ?? false,
    exclude_mental_models: input.exclude_mental_models ?? false,
    keep_trace: input.keep_trace ?? false,
    ...(cron === undefined ? {} : { refresh_cron: cron }),
    ...(defined(input.fact_types) ? { fact_types: input.fact_types } : {}),
    ...(defined(input.exclude_mental_model_ids) ? { exclude_mental_model_ids: input.exclude_mental_model_ids } : {}),
    ...(defined(input.tags_match) ? { tags_match: input.tags_match } : {}),
    ...(defined(input.tag_groups) ? { tag_groups: input.tag_groups } : {}),
    ...(defined(input.include_chunks) ? { include_chunks: input.include_chunks } : {}),
    ...(defined(input.recall_max_tokens) ? { recall_max_tokens: input.recall_max_tokens } : {}),
    ...(defined(input.recall_chunks_max_tokens) ? { recall_chunks_max_tokens: input.recall_chunks_max_tokens } : {}),
    ...(defined(input.response_schema) ? { response_schema: input.response_schema } : {}),
  };
};

/** The default trigger of a knowledge page created without one (reference 1.9). */
export const PAGE_DEFAULT_TRIGGER: TriggerInput = {
  mode: 'delta',
  fact_types: ['observation'],
  exclude_mental_models: true,
  refresh_after_consolidation: true,
};

/** The tag scope a refresh recalls with: trigger groups replace the model's tags. */
export interface RefreshScope {
  readonly tags?: readonly string[];
  readonly tagsMatch: TagsMatch;
  readonly tagGroups?: readonly TagGroup[];
}

export const refreshScope = (modelTags: readonly string[], trigger: Trigger): RefreshScope => {
  if (trigger.tag_groups !== undefined && trigger.tag_groups.length > 0) {
    return { tagGroups: trigger.tag_groups, tagsMatch: trigger.tags_match ?? 'any' };
  }
  if (modelTags.length === 0) return { tagsMatch: trigger.tags_match ?? 'any' };
  return { tags: modelTags, tagsMatch: trigger.tags_match ?? 'all_strict' };
};
