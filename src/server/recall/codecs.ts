/** Wire codec of `POST {b}/memories/recall` (reference 1.6). */
import * as t from 'io-ts';
import { nullable } from '../../codecs/codecs.js';
import { TagGroup, TagsMatch } from './tagFilter.js';


const Budget = t.keyof({ low: null, mid: null, high: null });
const MaxTokens = t.partial({ max_tokens: t.Int });

export const RecallRequest = t.intersection([
  t.type({ query: t.string }),
  t.partial({
    types: nullable(t.array(t.string)),
    prefer_observations: t.boolean,
    budget: Budget,
    max_tokens: t.Int,
    trace: t.boolean,
    query_timestamp: nullable(t.string),
    include: t.partial({
      entities: nullable(MaxTokens),
      chunks: nullable(MaxTokens),
      source_facts: nullable(t.partial({ max_tokens: t.Int, max_tokens_per_observation: t.Int })),
    }),
    tags: nullable(t.array(t.string)),
    tags_match: TagsMatch,
    tag_groups: nullable(t.array(TagGroup)),
    min_scores: nullable(
      t.partial({ semantic: nullable(t.number), keyword: nullable(t.number), reranker: nullable(t.number), final: nullable(t.number) }),
    ),
  }),
]);
export type RecallRequest = t.TypeOf<typeof RecallRequest>;
