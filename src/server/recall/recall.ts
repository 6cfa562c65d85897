/**
 * The recall pipeline of the embedded server: the lexical ranking of search/ranker.ts (BM25F,
 * query expansion, feedback, neighbours), then upstream's post-ranking
 * rules (reference section 4): cut to 2 x thinking budget, `min_scores` floors without
 * backfill, the `max_tokens` walk that stops at the first result that does not fit, chunks
 * chosen before the token filter with the last one truncated, entities and source facts.
 */
import type { ServerContext } from '../context.js';
import { dropNulls } from '../http/json.js';
import { entityId, isLive } from '../features/entities.js';
import type { SearchHit, SearchResult } from '../search/indexes.js';
import type { Stage } from '../search/ranker.js';
import type { FactHead, FactRecord, FactType } from '../store/model.js';
import type { BankState } from '../store/state.js';
import type { RecallRequest } from '../../wire/hindsight.js';
import { onlyQuotesItsFacts } from './quotedObservation.js';
import { matchesTagFilter } from './tagFilter.js';
import type { TagFilter } from './tagFilter.js';
import { countTokens, truncateToTokens } from './tokens.js';

const STAGES: readonly Stage[] = ['keyword', 'expansion', 'feedback', 'neighbour'];

const THINKING_BUDGET = { low: 100, mid: 300, high: 1000 } as const;
export const ALL_FACT_TYPES: readonly FactType[] = ['world', 'experience', 'observation'];

/**
 * What a recall and a reflect may return: the live memories of these types in the tag scope
 * (upstream moves an invalidated memory out of the table both read).
 */
export const recallable =
  (types: ReadonlySet<FactType>, filter: TagFilter) =>
  (fact: FactHead): boolean =>
    types.has(fact.fact_type) && isLive(fact) && matchesTagFilter(filter, fact.tags);

export interface RecallOptions {
  readonly request: RecallRequest;
  /** Fact types after validation (default all three). */
  readonly types: readonly FactType[];
}

interface Scores {
  readonly keyword: number;
  /** 0-1: the query's coverage by the best result x this result's share of its score. */
  readonly final: number;
}

interface Kept {
  readonly fact: FactRecord;
  readonly stage: Stage;
  readonly scores: Scores;
}

interface Ranked {
  readonly hit: SearchHit;
  readonly stage: Stage;
  readonly scores: Scores;
}

interface Walked {
  readonly hits: readonly SearchHit[];
  /** Made when asked for (the chunks and the trace): a plain recall only walks its hits. */
  readonly ranked: () => readonly Ranked[];
  readonly kept: readonly Kept[];
  readonly used: number;
  /** The walk took every ranked hit without reaching max_tokens. */
  readonly exhausted: boolean;
}

/** Whether the hits are in descending keyword score (ties in any order: a stable sort keeps them). */
const byKeywordScore = (hits: readonly SearchHit[]): boolean => {
  for (let i = 1; i < hits.length; i += 1) if ((hits[i - 1]?.score ?? 0) < (hits[i]?.score ?? 0)) return false;
  return true;
};

/** Hits a plain recall ranks first (runRecall): more than max_tokens' default 4,096 holds of most memories. */
const FIRST_HITS = 200;

/**
 * One result as upstream shapes it, nulls dropped: an absent field is `undefined`, which JSON
 * leaves out, so the route sends the body without copying it to drop them (app.ts dropNulls).
 */
const resultOf = (fact: FactRecord, scores: Scores | undefined, withEntities: boolean): Record<string, unknown> => ({
  id: fact.id,
  text: fact.text,
  type: fact.fact_type,
  entities: withEntities && fact.entities !== undefined && fact.entities.length > 0 ? fact.entities.map((e) => e.text) : undefined,
  context: fact.context,
  occurred_start: fact.occurred_start,
  occurred_end: fact.occurred_end,
  mentioned_at: fact.mentioned_at,
  document_id: fact.document_id ?? undefined,
  // What dropNulls made of it before (a copy without null values).
  metadata: fact.metadata === undefined ? undefined : dropNulls(fact.metadata),
  chunk_id: fact.chunk_id ?? undefined,
  tags: fact.tags,
  // An observation names the facts it was built from (upstream's result shape): a caller can
  // credit or show it through the turns it stands for.
  source_fact_ids: fact.fact_type === 'observation' ? fact.source_fact_ids : undefined,
  scores,
});

export const runRecall = (server: ServerContext, bankId: string, options: RecallOptions): Record<string, unknown> => {
  const started = process.hrtime.bigint();
  const { request, types } = options;
  const budget = request.budget ?? 'mid';
  const maxTokens = request.max_tokens ?? 4096;
  const include = request.include ?? {};
  const withEntities = include.entities !== null;
  const bank: BankState | undefined = server.store.bank(bankId);
  const typeSet = new Set(types);
  const filter = {
    tags: request.tags ?? null,
    tagsMatch: request.tags_match ?? 'any',
    tagGroups: request.tag_groups ?? null,
  };
  const accept = recallable(typeSet, filter);
  // Without tags (an empty list is no filter, but under 'exact', which keeps the untagged) the
  // filter reads only a memory's type and state: the index answers it from each memory's kind.
  const tagFree = (filter.tags ?? []).length === 0 && filter.tagsMatch !== 'exact' && (filter.tagGroups ?? []).length === 0;
  // Relative dates in the query ("last week") are read from query_timestamp, else from now.
  const at = request.query_timestamp === undefined || request.query_timestamp === null ? Number.NaN : Date.parse(request.query_timestamp);
  const now = Number.isNaN(at) ? server.clock.now() : at;
  const limit = 2 * THINKING_BUDGET[budget];
  const minKeyword = request.min_scores?.keyword ?? undefined;
  const minFinal = request.min_scores?.final ?? undefined;
  // prefer_observations: a raw fact that a returned observation was built from gives way to it.
  // An observation that only quotes its facts is not returned in their place: it would spend the
  // caller's token budget on a heading and sentences the facts say themselves, with their dates
  // and documents, and push other facts out (97% of a top 10 on LoCoMo, R@10 by source turns
  // 83.8% -> 29.9%).
  const preferObservations = request.prefer_observations === true && typeSet.has('observation') && (typeSet.has('world') || typeSet.has('experience'));
  const searchFor = (n: number): SearchResult | undefined =>
    bank === undefined
      ? undefined
      : server.search.search(bankId, request.query, accept, n, {
          now,
          observations: typeSet.has('observation'),
          // Everything `accept` reads from the request: searches with the same filter share its verdicts.
          acceptKey: JSON.stringify([[...typeSet].sort(), filter.tags, filter.tagsMatch, filter.tagGroups]),
          ...(tagFree ? { liveOfTypes: [...typeSet] } : {}),
        });

  /** The hits in the order they are returned (scores, observations in place of their facts, floors), and those that fit max_tokens. */
  const walk = (search: SearchResult | undefined): Walked => {
    const hits = search?.hits ?? [];
    const superseded = new Set<string>();
    const echoes = new Set<string>();
    if (preferObservations && bank !== undefined) {
      // By the hit's type: reading every hit's fact to learn it read 600 stored facts a recall
      // (2.2 ms of the extension's request at 100k memories).
      for (const h of hits) {
        if (h.factType !== 'observation') continue;
        if (onlyQuotesItsFacts(h.fact, (id) => bank.facts.get(id))) echoes.add(h.fact.id);
        else for (const id of h.fact.source_fact_ids ?? []) superseded.add(id);
      }
    }
    // An observation standing in for its facts carries the best of their scores: it says what they
    // said, and the caller's precision floor reads the best score (a summary's own words, "**rollup**
    // (1 fact)", score lower than the turn that was asked about).
    const hitScores = preferObservations ? new Map(hits.map((h) => [h.id, { keyword: h.score, final: h.final }])) : undefined;
    const scoresOf = (h: SearchHit): Scores => {
      let best: Scores = { keyword: h.score, final: h.final };
      if (hitScores === undefined || h.factType !== 'observation') return best;
      for (const id of h.fact.source_fact_ids ?? []) {
        const s = hitScores.get(id);
        if (s !== undefined && s.keyword > best.keyword) best = s;
      }
      return best;
    };
    /** Keeps `items` in order until the next would overflow max_tokens: no skipping ahead to smaller ones. */
    const spend = <T>(items: readonly T[], keep: (item: T) => Kept, ranked: () => readonly Ranked[]): Walked => {
      const kept: Kept[] = [];
      let used = 0;
      for (const item of items) {
        const k = keep(item);
        const cost = countTokens(k.fact.text);
        if (used + cost > maxTokens) return { hits, ranked, kept, used, exhausted: false };
        used += cost;
        kept.push(k);
      }
      return { hits, ranked, kept, used, exhausted: true };
    };
    // Nothing to stand in, no floors, and the ranking's order already by keyword score (what the
    // sort below would keep, being stable): the hits are walked as they are, with no list of
    // them made per recall.
    if (!preferObservations && minKeyword === undefined && minFinal === undefined && byKeywordScore(hits)) {
      const asRanked = (h: SearchHit): Ranked => ({ hit: h, stage: h.stage, scores: { keyword: h.score, final: h.final } });
      return spend(hits, (h) => ({ fact: h.fact, stage: h.stage, scores: { keyword: h.score, final: h.final } }), () => hits.map(asRanked));
    }
    const ranked = hits
      .filter((h) => !superseded.has(h.id) && !echoes.has(h.id))
      // The hit, not its fact: a stored fact is read only if the token budget reaches it.
      .map((h) => ({ hit: h, stage: h.stage, scores: scoresOf(h) }))
      // Stable: equal scores keep the ranking's order.
      .sort((a, b) => b.scores.keyword - a.scores.keyword)
      .filter((r) => (minKeyword === undefined || r.scores.keyword >= minKeyword) && (minFinal === undefined || r.scores.final >= minFinal));
    return spend(ranked, (r) => ({ fact: r.hit.fact, stage: r.stage, scores: r.scores }), () => ranked);
  };

  // The trace, the chunks and prefer_observations read every hit. A plain recall returns the best
  // until max_tokens is spent, mostly a hundred or so of the limit's 600: it ranks the first
  // FIRST_HITS, and ranks again with the whole limit only when max_tokens outlasts them. The
  // answer is the same, as the first hits of a larger limit are these (prefixOfLarger); ranking
  // fewer asks the filter about fewer memories (the first time each is asked it is looked up in
  // the store: 0.2-0.4 ms a recall at 100k memories while a server is new).
  const whole = preferObservations || request.trace === true || (include.chunks !== undefined && include.chunks !== null) || limit <= FIRST_HITS;
  let search = searchFor(whole ? limit : FIRST_HITS);
  let cut = !whole && search !== undefined && search.hits.length === FIRST_HITS;
  if (cut && search?.prefixOfLarger === false) {
    search = searchFor(limit);
    cut = false;
  }
  let walked = walk(search);
  if (cut && walked.exhausted) {
    search = searchFor(limit);
    walked = walk(search);
  }
  const { hits, kept, used } = walked;

  const body: Record<string, unknown> = { results: kept.map((r) => resultOf(r.fact, r.scores, withEntities)) };

  if (withEntities) {
    const budgetTokens = include.entities?.max_tokens ?? 500;
    const entities: Record<string, unknown> = {};
    let spent = 0;
    outer: for (const r of kept) {
      for (const e of r.fact.entities ?? []) {
        if (Object.hasOwn(entities, e.text)) continue;
        const cost = countTokens(e.text);
        if (spent + cost > budgetTokens) break outer;
        spent += cost;
        entities[e.text] = { entity_id: entityId(bankId, e.text), canonical_name: e.text, observations: [] };
      }
    }
    if (Object.keys(entities).length > 0) body['entities'] = entities;
  }

  if (include.chunks !== undefined && include.chunks !== null && bank !== undefined) {
    // Chosen from the ranked list before the token filter, so max_tokens: 0 still returns chunks.
    let remaining = include.chunks.max_tokens ?? 8192;
    const chunks: Record<string, unknown> = {};
    for (const r of walked.ranked()) {
      if (remaining <= 0) break;
      const id = r.hit.fact.chunk_id;
      if (id === null || Object.hasOwn(chunks, id)) continue;
      const chunk = bank.chunks.get(id);
      if (chunk === undefined) continue;
      const cost = countTokens(chunk.text);
      if (cost <= remaining) {
        chunks[id] = { id, text: chunk.text, chunk_index: chunk.chunk_index, truncated: false };
        remaining -= cost;
      } else {
        chunks[id] = { id, text: truncateToTokens(chunk.text, remaining), chunk_index: chunk.chunk_index, truncated: true };
        remaining = 0;
      }
    }
    if (Object.keys(chunks).length > 0) body['chunks'] = chunks;
  }

  if (include.source_facts !== undefined && include.source_facts !== null && bank !== undefined) {
    let remaining = include.source_facts.max_tokens ?? 4096;
    const perObservation = include.source_facts.max_tokens_per_observation ?? -1;
    const sourceFacts: Record<string, unknown> = {};
    let truncated = false;
    kept.forEach((r) => {
      const ids = r.fact.source_fact_ids;
      if (r.fact.fact_type !== 'observation' || ids === undefined) return;
      let spentHere = 0;
      for (const id of ids) {
        const source = bank.facts.get(id);
        if (source === undefined || Object.hasOwn(sourceFacts, id)) continue;
        const cost = countTokens(source.text);
        if (cost > remaining || (perObservation >= 0 && spentHere + cost > perObservation)) {
          truncated = true;
          continue;
        }
        remaining -= cost;
        spentHere += cost;
        sourceFacts[id] = resultOf(source, undefined, false);
      }
    });
    if (Object.keys(sourceFacts).length > 0) body['source_facts'] = sourceFacts;
    body['source_facts_truncated'] = truncated;
  }

  if (request.trace === true) {
    const ranked = walked.ranked();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    body['trace'] = {
      query: {
        query_text: request.query,
        query_embedding: [],
        timestamp: server.nowIso(),
        budget: THINKING_BUDGET[budget],
        max_tokens: maxTokens,
        tags: request.tags ?? null,
        tags_match: request.tags_match ?? 'any',
      },
      // One list per stage and fact type: each result appears under the stage that found it.
      retrieval_results: STAGES.flatMap((stage) =>
        types.map((type) => ({
          method_name: stage,
          fact_type: type,
          results: ranked
            .filter((r) => r.hit.fact.fact_type === type && r.stage === stage)
            .map((r, i) => ({ rank: i + 1, node_id: r.hit.id, text: r.hit.fact.text, context: r.hit.fact.context ?? null, event_date: r.hit.fact.mentioned_at ?? null, score: r.scores.keyword, score_name: 'bm25f' })),
          duration_seconds: seconds,
        })),
      ),
      rrf_merged: [],
      reranked: [],
      entry_points: [],
      visits: [],
      pruned: [],
      summary: {
        total_nodes_visited: ranked.length,
        results_returned: kept.length,
        budget_used: used,
        budget_remaining: Math.max(0, maxTokens - used),
        total_duration_seconds: seconds,
        phase_metrics: [
          {
            phase_name: 'lexical',
            duration_seconds: seconds,
            details: {
              candidates: hits.length,
              confidence: search?.confidence ?? 0,
              terms: search?.terms ?? { keyword: [], expansion: [], feedback: [] },
              // The participants the query names, and how far their own words answer it (1: fully or not checked).
              participants: search?.participants ?? [],
              attributed: search?.attributed ?? 1,
            },
          },
        ],
      },
      final_results: kept.map((r) => ({ node_id: r.fact.id, text: r.fact.text, score: r.scores.final, keyword_score: r.scores.keyword, stage: r.stage })),
    };
  }
  return body;
};
