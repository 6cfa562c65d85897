/**
 * Mental models: request codecs, the stored record, the list filter of reference 2.6 and
 * the response shapes for each `detail` level. Content is built extractively by the
 * refresh operation (see reflect.ts); until then it reads "Generating content...".
 */
import * as t from 'io-ts';
import { Trigger } from './trigger.js';


export const GENERATING = 'Generating content...';
const MIN_MODEL_TOKENS = 256;
const MAX_MODEL_TOKENS = 8192;
export const DEFAULT_MODEL_TOKENS = 2048;

export { CreateMentalModelRequest as CreateMentalModelBody, UpdateMentalModelRequest as UpdateMentalModelBody } from '../../wire/hindsight.js';

const HistoryRecord = t.type({
  previous_content: t.string,
  previous_reflect_response: t.union([t.record(t.string, t.unknown), t.null]),
  changed_at: t.string,
});
type HistoryRecord = t.TypeOf<typeof HistoryRecord>;

/** A mental model as stored in the bank's `mental_model` records. */
export const MentalModelRecord = t.intersection([
  t.type({
    id: t.string,
    name: t.string,
    source_query: t.string,
    content: t.string,
    tags: t.array(t.string),
    max_tokens: t.number,
    trigger: Trigger,
    created_at: t.string,
    history: t.array(HistoryRecord),
  }),
  t.partial({
    last_refreshed_at: t.string,
    reflect_response: t.record(t.string, t.unknown),
    /** Set when the model backs a knowledge page. */
    page_id: t.string,
  }),
]);
export type MentalModelRecord = t.TypeOf<typeof MentalModelRecord>;

export const MENTAL_MODEL_KIND = 'mental_model';

/** `undefined` when `max_tokens` is within 256-8192, else the 422 message. */
export const maxTokensProblem = (value: number): string | undefined =>
  Number.isInteger(value) && value >= MIN_MODEL_TOKENS && value <= MAX_MODEL_TOKENS
    ? undefined
    : `Input should be an integer between ${MIN_MODEL_TOKENS} and ${MAX_MODEL_TOKENS}`;

export type ListTagsMatch = 'any' | 'all' | 'exact';

/**
 * Reference 2.6: plain array operators, no untagged inclusion. `exact` compares the stored
 * array with the requested one element by element (order-sensitive, an upstream quirk).
 */
export const modelMatchesList = (modelTags: readonly string[], tags: readonly string[] | undefined, mode: ListTagsMatch): boolean => {
  if (tags === undefined || tags.length === 0) return true;
  switch (mode) {
    case 'any':
      return tags.some((tag) => modelTags.includes(tag));
    case 'all':
      return tags.every((tag) => modelTags.includes(tag));
    case 'exact':
      return modelTags.length === tags.length && modelTags.every((tag, i) => tag === tags[i]);
  }
};

export type Detail = 'metadata' | 'content' | 'full';

const dropNulls = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

/** `MentalModelResponse` at a detail level; `isStale` only on a single full read. */
export const modelResponse = (bankId: string, model: MentalModelRecord, detail: Detail, isStale?: boolean): Record<string, unknown> => {
  const base: Record<string, unknown> = {
    id: model.id,
    bank_id: bankId,
    name: model.name,
    tags: model.tags,
    last_refreshed_at: model.last_refreshed_at,
    created_at: model.created_at,
  };
  if (detail !== 'metadata') {
    Object.assign(base, { source_query: model.source_query, content: model.content, max_tokens: model.max_tokens, trigger: model.trigger });
  }
  if (detail === 'full') {
    Object.assign(base, { reflect_response: model.reflect_response, is_stale: isStale });
  }
  return dropNulls(base);
};

/** Newest first by last refresh (never-refreshed last), then by creation, then id. */
export const compareModels = (a: MentalModelRecord, b: MentalModelRecord): number => {
  const ar = a.last_refreshed_at ?? '';
  const br = b.last_refreshed_at ?? '';
  if (ar !== br) return ar < br ? 1 : -1;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};
