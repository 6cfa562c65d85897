/**
 * Why each recalled memory ranked, for `POST {b}/memories/recall?explain=true` (the memory
 * browser's recall box). Read off the recall trace (the terms each ranking stage searched, the
 * stage that found each result, its scores) and the memory's own indexed text: which of the
 * query's words it holds, which expansion terms it matched in their place, and which of the
 * ranking's boosts applied. Not part of Hindsight's API: an explanation is added to the body
 * only when asked for, beside the fields upstream defines.
 */
import type { ServerContext } from '../context.js';
import { isRecord } from '../../codecs/codecs.js';
import { analyze, stemWord, words } from '../search/analyzer.js';
import { searchableText } from '../search/indexes.js';

interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

interface TraceFacts {
  readonly terms: { readonly keyword: readonly WeightedTerm[]; readonly expansion: readonly WeightedTerm[]; readonly feedback: readonly WeightedTerm[] };
  readonly participants: readonly string[];
  readonly confidence: number;
  readonly final: ReadonlyMap<string, { readonly stage: string; readonly score: number; readonly keyword: number }>;
}

export interface ResultExplanation {
  readonly id: string;
  readonly rank: number;
  /** The ranking stage that first found it: keyword, expansion, feedback or neighbour. */
  readonly stage: string;
  /** The query's words this memory holds (as typed), with the index term they matched. */
  readonly matched: readonly { readonly word: string; readonly term: string }[];
  /** Related terms (synonyms, coding thesaurus, feedback) it matched instead, with their weight. */
  readonly expanded: readonly { readonly term: string; readonly weight: number; readonly from: 'expansion' | 'feedback' }[];
  /** The query's words it lacks. */
  readonly missing: readonly string[];
  /** Boosts and stages beyond plain term matching that applied, each said in words. */
  readonly boosts: readonly string[];
  /** Relative BM25F score after every stage, and the 0-1 score comparable across queries. */
  readonly score: { readonly keyword: number; readonly final: number };
}

export interface RecallExplanation {
  readonly query_terms: { readonly keyword: readonly string[]; readonly expansion: readonly WeightedTerm[]; readonly feedback: readonly WeightedTerm[] };
  /** The share of the query's information the best result covers. */
  readonly confidence: number;
  readonly participants: readonly string[];
  readonly results: readonly ResultExplanation[];
}

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const weighted = (value: unknown): WeightedTerm[] =>
  list(value).flatMap((v) => {
    const r = record(v);
    return typeof r['term'] === 'string' && typeof r['weight'] === 'number' ? [{ term: r['term'], weight: r['weight'] }] : [];
  });

/** What the recall trace (`trace: true`) says about the ranking. */
const traceFacts = (trace: unknown): TraceFacts => {
  const summary = record(record(trace)['summary']);
  const phase = record(list(summary['phase_metrics'])[0]);
  const details = record(phase['details']);
  const terms = record(details['terms']);
  const final = new Map<string, { stage: string; score: number; keyword: number }>();
  for (const entry of list(record(trace)['final_results'])) {
    const r = record(entry);
    if (typeof r['node_id'] !== 'string') continue;
    final.set(r['node_id'], { stage: typeof r['stage'] === 'string' ? r['stage'] : 'keyword', score: Number(r['score'] ?? 0), keyword: Number(r['keyword_score'] ?? 0) });
  }
  return {
    terms: { keyword: weighted(terms['keyword']), expansion: weighted(terms['expansion']), feedback: weighted(terms['feedback']) },
    participants: list(details['participants']).filter((p): p is string => typeof p === 'string'),
    confidence: Number(details['confidence'] ?? 0),
    final,
  };
};

const STAGE_WORDS: Readonly<Record<string, string>> = {
  expansion: 'found through related terms (synonyms or the coding thesaurus), not the query words themselves',
  feedback: 'found through terms of the best results (feedback)',
  neighbour: 'a neighbour of a strong match in the same conversation or document',
};

/** Explains each result of a recall body that was run with `trace: true`. */
export const explainRecall = (server: ServerContext, bankId: string, query: string, body: Readonly<Record<string, unknown>>): RecallExplanation => {
  const facts = traceFacts(body['trace']);
  // Each typed word with the index term it becomes, so a match is shown as the user wrote it.
  const typed = new Map<string, string>();
  for (const word of words(query)) if (!typed.has(stemWord(word))) typed.set(stemWord(word), word);
  const keywordTerms = facts.terms.keyword.map((t) => t.term);
  const bank = server.store.bank(bankId);
  const results = list(body['results']).flatMap((entry, i): ResultExplanation[] => {
    const id = record(entry)['id'];
    if (typeof id !== 'string') return [];
    const fact = bank?.facts.get(id);
    const own = new Set(fact === undefined ? [] : analyze(searchableText(fact)));
    const matched = keywordTerms.filter((term) => own.has(term)).map((term) => ({ word: typed.get(term) ?? term, term }));
    const expanded = [
      ...facts.terms.expansion.filter((t) => own.has(t.term)).map((t) => ({ ...t, from: 'expansion' as const })),
      ...facts.terms.feedback.filter((t) => own.has(t.term)).map((t) => ({ ...t, from: 'feedback' as const })),
    ];
    const ranked = facts.final.get(id);
    const stage = ranked?.stage ?? 'keyword';
    const boosts: string[] = [];
    const stageWords = STAGE_WORDS[stage];
    if (stageWords !== undefined) boosts.push(stageWords);
    const text = fact === undefined ? '' : searchableText(fact).toLowerCase();
    const speaker = fact?.metadata?.['speaker'];
    for (const name of facts.participants) {
      if (typeof speaker === 'string' && speaker.toLowerCase() === name.toLowerCase()) boosts.push(`speaker boost: ${name}, named in the query, is the one speaking`);
      else if (text.includes(name.toLowerCase())) boosts.push(`names ${name}, a participant the query asks about`);
    }
    if (fact?.fact_type === 'observation') boosts.push('an observation consolidated from other memories');
    return [
      {
        id,
        rank: i + 1,
        stage,
        matched,
        expanded,
        missing: keywordTerms.filter((term) => !own.has(term)).map((term) => typed.get(term) ?? term),
        boosts,
        score: { keyword: ranked?.keyword ?? 0, final: ranked?.score ?? 0 },
      },
    ];
  });
  return {
    query_terms: { keyword: keywordTerms.map((term) => typed.get(term) ?? term), expansion: facts.terms.expansion, feedback: facts.terms.feedback },
    confidence: facts.confidence,
    participants: facts.participants,
    results,
  };
};
