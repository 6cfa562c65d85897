/**
 * The ranking pipeline over one bank's FieldIndex. Each stage adds candidates or score and
 * records which stage first found a document, so a person can see why a memory came back:
 *
 * 1. keyword: BM25F over the stemmed query words.
 * 2. expansion: the words WordNet and the coding thesaurus relate to each query word, at a
 *    lower weight ("bundler" also searches "rollup", "deploying" also "deployment"), and the
 *    words WordNet gives a phrasal verb of the query ("do the dishes" -> "wash"); in a
 *    conversation, a word the bank seldom says also searches its nearest words by GloVe vectors
 *    ("boss" -> "manager", "bedroom" -> "room").
 * 3. feedback (off by default): pseudo-relevance feedback (RM3-like): the terms that best
 *    characterise the first results, weighted by their score and rarity, at a low weight.
 * 4. neighbour: a memory right before or after a strong result in the same thread (session)
 *    gets a share of its score: the answer often sits in the turn next to the words asked for.
 *    On transcript lines (replies), the answer to a strong line that asks something, and the
 *    lines its speaker sends right after it, inherit the words of it they lack: "like 38 ?"
 *    answers "how many lessons have u had now", "easyjet from gatwick, 10:25 out" follows the
 *    same person's "flights done!!"; the asker's own first line back after the answer ("ok green
 *    it is") closes the exchange and inherits half of the question.
 * 5. session: a matching memory gets a share of the best score in its thread, so turns of the
 *    session that is about the question rise together (passage + document evidence).
 * 6. temporal: a matching memory dated as the query asks ("in May", "last week") gets more,
 *    and much more when dated on the day the query names ("on 13 January").
 * 7. speakers: when the query names a participant of the bank's transcript lines ("What did
 *    Priya bake?"), that participant's own matching lines get more (attribution.ts).
 * 8. answer types: when the question says what shape its answer has ("How long ...?"), the
 *    best matches that hold a value of that shape ("... after 15 minutes") get more
 *    (answerTypes.ts).
 *
 * Scores: `score` is the raw BM25F sum; `confidence` (0-1) says how much of the query the
 * bank and its best result cover (see confidenceOf), times the attribution check's factor when
 * the query names a participant (attributedShare); `final` = confidence x score / best score,
 * an absolute figure a caller can put a floor under ("inject nothing unless the best final >=
 * 0.4").
 */
import { analyze, stemWord, words } from './analyzer.js';
import { asksYesOrNo, DATE, DATE_BOOST_SHARE, LIMIT_QUESTION, LIMIT_WORDS, MONEY, questionAnswerTypes, valueAnswerTypes } from './answerTypes.js';
import { earlierQuestions, MIN_LINES, namedParticipants } from './attribution.js';
import { codingKnows, codingPhrases, codingRelated, codingRelatedToStems } from './codingTerms.js';
import { DocList } from './docList.js';
import type { FieldIndex, WeightedTerm } from './fieldIndex.js';
import { f64, i32, item } from './columns.js';
import { participantFor } from './names.js';
import { FUNCTION_WORDS, QUERY_STOP_WORDS, STOP_WORDS } from './stopwords.js';
import { isCalendarName, timeCues, type TimeCue } from './temporal.js';
import { slipSpellings } from './spellingFilter.js';
import { topK } from './topK.js';
import { hyponymWords, isLemma, phrasalVerbs, relatedWords } from './wordnet.js';
import { verbOfPast } from './irregularForms.js';
import { neighboursOf } from './wordNeighbours.js';
import { objectList } from './objectList.js';

export type Stage = 'keyword' | 'expansion' | 'feedback' | 'neighbour';

export interface RankStages {
  readonly wordnet: boolean;
  readonly coding: boolean;
  readonly feedback: boolean;
  readonly neighbours: boolean;
  /** A reply inherits the words of the question it answers, a line those of its speaker's line just before. */
  readonly replies: boolean;
  readonly session: boolean;
  readonly temporal: boolean;
  readonly speakers: boolean;
  /** The confidence checks that the participants a query names said what answers it. */
  readonly attribution: boolean;
  readonly answerTypes: boolean;
  /** A query word the bank lacks also searches the bank's nearest spelling of it. */
  readonly typos: boolean;
  /** In a conversation, a query word the bank seldom says also searches its nearest words by GloVe vectors. */
  readonly vectors: boolean;
}

export interface RankParams {
  readonly wordnetWeight: number;
  /** A WordNet-related word that is the word's opening ("doc" for "doctor", "boil" for "boiler"): the same word. */
  readonly clippedSynonymWeight: number;
  /** A phrasal verb's WordNet words ("wash up" for "do the dishes"): a phrase's sense is surer than a lone word's. */
  readonly phrasalWeight: number;
  readonly codingWeight: number;
  /**
   * What a coding-thesaurus word counts for in the confidence (how much of the query the bank
   * covers): a curated synonym ("DB" for PostgreSQL) is near-certain evidence that the concept
   * asked about is there, though it ranks below the word itself.
   */
  readonly codingCredit: number;
  readonly feedbackDocs: number;
  readonly feedbackTerms: number;
  readonly feedbackWeight: number;
  readonly neighbourWeight: number;
  /** Strong results whose neighbours are considered. */
  readonly neighbourSources: number;
  /** Turns this many before and after count as neighbours. */
  readonly neighbourSpan: number;
  /** Neighbours further apart than this (ms) are separate notes, not one conversation. */
  readonly neighbourMaxGapMs: number;
  /**
   * In a conversation, when the question asks for a value's shape ("how long", "how much"), the
   * lines after each of the `valueSources` strongest, up to `valueReach` of them, that hold such a
   * value get the neighbour share (`neighbourWeight`) of the strong line's score.
   */
  readonly valueSources: number;
  readonly valueReach: number;
  /** Share of a strong line's score that its reply, or its speaker's next lines, inherit (for the words they lack). */
  readonly replyWeight: number;
  /** How many of a speaker's lines after a strong one inherit from it, each sent within `runMaxGapMs` of the last. */
  readonly runLines: number;
  readonly runMaxGapMs: number;
  /**
   * Share of an asking line's score that the asker's own first line back after the answer
   * inherits (for the words it lacks): "paint for the hallway - grey or green?" -> "grey shows
   * every scuff" -> "ok green it is" closes the exchange with what it settled.
   */
  readonly closingWeight: number;
  /**
   * Share of a short news line's score that its speaker's next lines inherit (for the words they
   * lack) after the other's reaction to it ("ok granary money came in" -> "thank god" -> "only 450
   * tho"): ranked, not counted as covered.
   */
  readonly reactedWeight: number;
  /** A bare question ("what time", "which one") ranks at this share of its score (`isBareQuestion`). */
  readonly bareQuestionWeight: number;
  /** Share of its thread's best score a matching document gets (session-level evidence). */
  readonly threadWeight: number;
  /** A matching document dated as the query asks ("in May") gets this share more score. */
  readonly temporalBoost: number;
  /**
   * And this share more when it is dated on the day the query names ("on 13 January", "on
   * October 13, 2023"): what was said that day, of all the month's lines.
   */
  readonly dayBoost: number;
  /**
   * A matching line in which a participant the query names speaks of themselves gets this share
   * more score: a question about Priya is answered by what Priya said, not by her friend's
   * "How was the marathon, Pri?".
   */
  readonly speakerBoost: number;
  /** How many of the best results (whatever the limit) the attribution check reads. */
  readonly attributionCandidates: number;
  readonly answerTypeBoost: number;
  /** How many of the best matches the answer-type stage reads (it reads their text). */
  readonly answerTypePool: number;
  /** What the nearest spelling of a word the bank lacks counts for, in the ranking and in the confidence. */
  readonly typoWeight: number;
  readonly typoCredit: number;
  /** A word's vector neighbour ranks at this share of its cosine (never counted in the confidence). */
  readonly vectorWeight: number;
  readonly vectorMinCosine: number;
  /** At most this many of a word's vector neighbours that the bank has. */
  readonly vectorNeighbours: number;
  /** Only a query word in at most this many of the bank's memories searches its neighbours. */
  readonly vectorRareDocs: number;
  /**
   * In a conversation, a query noun the bank seldom says searches its WordNet hyponyms (its kinds,
   * `hyponymDepth` is-a steps down) that the bank has, at this weight, never counted in the
   * confidence; 0: off.
   */
  readonly hyponymWeight: number;
  readonly hyponymDepth: number;
  /** Only a query noun in at most this many of the bank's memories searches its kinds. */
  readonly hyponymRareDocs: number;
  /** A noun with more kinds than this (WordNet's "person": 550) names no kind worth searching. */
  readonly hyponymMaxWords: number;
  /** A question's limit word ("max") searches the family's others ("cap", "limit") at this weight (ranked only); 0: off. */
  readonly limitWeight: number;
}

export const ALL_STAGES: RankStages = { wordnet: true, coding: true, feedback: true, neighbours: true, replies: true, session: true, temporal: true, speakers: true, attribution: true, answerTypes: true, typos: true, vectors: true };

/**
 * What the server runs. Feedback is measured but off: on LoCoMo it traded R@10 for R@5 on the
 * conversations not tuned on and cost a second pass over the postings (docs/recall.md).
 */
export const DEFAULT_STAGES: RankStages = { ...ALL_STAGES, feedback: false };

/** The server's parameters (exported so tests can vary one). */
export const DEFAULT_PARAMS: RankParams = {
  wordnetWeight: 0.3,
  clippedSynonymWeight: 0.7,
  phrasalWeight: 0.5,
  codingWeight: 0.8,
  codingCredit: 0.8,
  feedbackDocs: 5,
  feedbackTerms: 10,
  feedbackWeight: 0.3,
  neighbourWeight: 0.3,
  neighbourSources: 100,
  neighbourSpan: 1,
  neighbourMaxGapMs: 30 * 60_000,
  valueSources: 10,
  valueReach: 4,
  replyWeight: 1,
  runLines: 3,
  runMaxGapMs: 5 * 60_000,
  closingWeight: 0.5,
  reactedWeight: 0.5,
  bareQuestionWeight: 0.5,
  threadWeight: 0.5,
  temporalBoost: 0.5,
  dayBoost: 3,
  speakerBoost: 0.5,
  attributionCandidates: 10,
  answerTypeBoost: 0.5,
  answerTypePool: 200,
  typoWeight: 0.7,
  typoCredit: 0,
  vectorWeight: 0.3,
  vectorMinCosine: 0.6,
  vectorNeighbours: 5,
  vectorRareDocs: 2,
  hyponymWeight: 0.15,
  hyponymDepth: 1,
  hyponymRareDocs: 2,
  hyponymMaxWords: 100,
  limitWeight: 0.5,
};

export interface RankedHit {
  readonly id: string;
  /** The memory's kind in the index (FieldIndex.kindOf: its fact type and state), 0 if the index does not know it. */
  readonly kind: number;
  readonly score: number;
  /** confidence x score / best score. */
  readonly final: number;
  readonly stage: Stage;
}

export interface Ranking {
  readonly hits: readonly RankedHit[];
  readonly confidence: number;
  /** The terms each stage searched, for the trace. */
  readonly terms: Readonly<Record<'keyword' | 'expansion' | 'feedback', readonly WeightedTerm[]>>;
  /** The dates the query named ("May 2023", "last week"). */
  readonly timeCues: readonly string[];
  /** The bank's participants (speakers of its transcript lines) the query names. */
  readonly participants: readonly string[];
  /** The attribution check's factor in the confidence (1: passed or not run; attributedShare). */
  readonly attributed: number;
  /**
   * Whether a larger limit's ranking begins with these same hits: true unless the answer-type
   * stage ran, which boosts within the best max(pool, limit), so the limit changes what it boosts.
   */
  readonly prefixOfLarger: boolean;
}

/**
 * A filter by document number. An object of one class, not a closure made per query: the call
 * runs inside topK's optimised loop, where a new closure each query is a new call target to V8.
 */
export interface DocumentFilter {
  accepts(n: number): boolean;
}

export interface RankInput {
  readonly index: FieldIndex;
  readonly query: string;
  readonly accept: (id: string) => boolean;
  /**
   * Asked instead of `accept` when given, by document number (only about live documents): a
   * filter the index can answer from its own columns (indexes.ts, by each memory's kind).
   */
  readonly acceptDocument?: DocumentFilter;
  readonly limit: number;
  /** All searchable text of a document (text, context, entities), for feedback and coverage. */
  readonly textOf: (id: string) => string;
  /**
   * The terms `analyze(textOf(id))` gives document `n` (any order, repeats or not), when the caller
   * has them without analysing its text (indexes.ts: from the index, for a memory whose text is all
   * of it); else the text is analysed.
   */
  readonly termsOf?: (n: number) => readonly string[];
  readonly stages?: RankStages;
  readonly params?: RankParams;
  /** The query's moment (epoch ms), anchor of "yesterday" or "last week". */
  readonly now?: number;
  /**
   * Whether derived documents (observations) may be returned (default true). When not, they
   * are not even scored: a world-only recall on a bank of thousands of long observations
   * otherwise scores them and asks `accept` about each strong one.
   */
  readonly derived?: boolean;
  /**
   * `accept`'s verdicts by document number (0 not asked, 1 kept, 2 not), kept by the caller
   * across queries with the same filter: a verdict cannot change while the number lives (an
   * edit re-adds the memory under a new number), so a repeated filter asks only about
   * documents it has not met. Without it, verdicts last one query.
   */
  readonly verdicts?: Uint8Array;
}

/** Stems this long may be two edits from what was meant; shorter ones one. */
const TYPO_TWO_EDITS = 8;
/** Words shorter than this are not searched for slips: too many short words are one slip apart. */
const SLIP_MIN = 5;
/** A misspelling as near to more words than this says nothing about which was meant. */
const TYPO_MAX_CANDIDATES = 3;
/** A bank word in more memories than this is a spelling of its own, not a slip. */
const MISSPELT_MAX_DOCS = 2;
/** A spelling the bank has this many times as often (and once more) is the word a rare spelling misspells. */
const COMMON_SPELLING = 2;

const STAGE_CODES: readonly Stage[] = ['keyword', 'expansion', 'feedback', 'neighbour'];

// Reused across queries (one query runs at a time: ranking is synchronous).
let stageScratch = new Uint8Array(0);
/** Every stage code is 0 (keyword): the last ranking returned, having reset those it set. */
let stagesClean = true;
let acceptScratch = new Uint8Array(0);

const refuse = (): boolean => false;

/**
 * The numbers of `a`, then those of `b`, each once in the order first met: what
 * `Int32Array.from(new Set([...a, ...b]))` gives, without the spread arrays and the typed
 * array's generic walk of a Set (a fifth of `rank`'s own time on a median query at 100k).
 */
const distinct = (a: readonly number[], b: Iterable<number>): Int32Array => {
  const seen = new Set<number>();
  const out: number[] = [];
  for (const n of a) {
    if (seen.has(n)) continue;
    seen.add(n);
    out.push(n);
  }
  for (const n of b) {
    if (seen.has(n)) continue;
    seen.add(n);
    out.push(n);
  }
  return new Int32Array(out);
};

/**
 * The query's filter, asked once per document (verdicts 1 = kept, 2 = not). One instance and one
 * `accepts` for every query: topK's call of a closure made anew per query met a new target each
 * time, and V8 threw topK's optimised code away at it ("wrong call target", seven times in a new
 * server's first 320 recalls at 100k).
 */
class Verdicts {
  index: FieldIndex | undefined = undefined;
  accepted: Uint8Array = new Uint8Array(0);
  /** The caller keeps the verdicts: none is reset, so none is listed in `asked`. */
  kept = false;
  skipDerived = false;
  accept: (id: string) => boolean = refuse;
  acceptDocument: DocumentFilter | undefined = undefined;
  readonly asked = new DocList();

  readonly accepts = (n: number): boolean => {
    const known = this.accepted[n] ?? 0;
    if (known !== 0) return known === 1;
    const { index } = this;
    if (index === undefined) return false;
    const id = index.idOf(n);
    const ok = id !== undefined && !(this.skipDerived && index.isDerived(n)) && (this.acceptDocument === undefined ? this.accept(id) : this.acceptDocument.accepts(n));
    this.accepted[n] = ok ? 1 : 2;
    if (!this.kept) this.asked.push(n);
    return ok;
  };

  /** Forgets the query's verdicts (unless kept) and lets go of its index and filter. */
  reset(): void {
    const askedView = this.asked.view();
    for (let i = 0; i < askedView.length; i += 1) this.accepted[i32(askedView, i)] = 0;
    this.asked.clear();
    this.index = undefined;
    this.accept = refuse;
    this.acceptDocument = undefined;
  }
}
const verdicts = new Verdicts();

interface Expansion {
  readonly terms: WeightedTerm[];
  /** Expansion stem -> the query stems it stands for, with what it counts for in the confidence. */
  readonly origin: Map<string, { readonly of: string; readonly weight: number }[]>;
}

/**
 * Clippings: a query word of at least CLIP_MIN_WORD letters also searches the bank's words that
 * are its first CLIP_MIN letters or more, up to CLIP_MAX_SHARE of it. A longer opening is most
 * often a stem of the same family ("defin" of "definition") or a compound's first word, which
 * the other stages read; a short one is a clipping. Ranked at CLIP_WEIGHT, never counted in the
 * confidence (as a typo's nearest spelling is not).
 */
const CLIP_MIN_WORD = 9;
const CLIP_MIN = 5;
const CLIP_MAX_SHARE = 0.45;
const CLIP_WEIGHT = 0.5;

/**
 * A word WordNet relates that is the word's own opening, at least 3 letters and 2 short of it:
 * the word written short, a synonym ("doc" for "doctor", "lab", "vet", "info"), as chat writes
 * it, or the word it was formed from, a derived form ("boil" for "boiler", "teach" for
 * "teacher"), which the stemmer leaves apart. Either is the same word, where the sense's other
 * words are only related. (Synonyms alone, without the derived forms: coding set 5 and LoCoMo
 * R@5 each a question fewer.)
 */
const isClipping = (synonym: string, word: string): boolean => synonym.length >= 3 && synonym.length <= word.length - 2 && word.startsWith(synonym);

/** Whether the query writes the (letters-only) word in capitals, as an abbreviation: "US", "OH". */
const inCapitals = (word: string, query: string): boolean => new RegExp(`\\b${word.toUpperCase()}\\b`).test(query);
/** A function word as the query writes it: lower case or capitalised ("Oh"), not an abbreviation in capitals. */
const isFunctionWord = (word: string, query: string): boolean => FUNCTION_WORDS.has(word) && !inCapitals(word, query);

/**
 * A term with a fractional weight, made once before any list of terms: the keyword terms weigh 1,
 * the expansion's fractions, and V8 first lays a field out as small integers, then moves it to
 * doubles at the first fraction, which threw away `score`'s optimised code (its loop over the
 * terms) at the first query with an expansion. Made first, every term's weight is a double.
 */
const FRACTIONAL_TERM: WeightedTerm = { term: '', weight: 0.5 };

const expand = (index: FieldIndex, query: string, queryWords: readonly string[], original: ReadonlySet<string>, stages: RankStages, params: RankParams): Expansion => {
  const weights = new Map<string, number>();
  const origin = new Map<string, { of: string; weight: number }[]>();
  const addTerm = (term: string, of: string, weight: number, credit: number): void => {
    if (original.has(term)) return;
    weights.set(term, Math.max(weights.get(term) ?? 0, weight));
    const list = origin.get(term) ?? [];
    list.push({ of, weight: credit });
    origin.set(term, list);
  };
  const add = (related: string, of: string, weight: number, credit = weight): void => {
    for (const term of analyze(related)) addTerm(term, of, weight, credit);
  };
  if (stages.typos) {
    // A word the bank never had, one or two edits from one it has (two for long words): a typo.
    for (const word of queryWords) {
      const of = stemWord(word);
      if (/\d/.test(of) || index.documentFrequency(of) > 0) continue;
      const near = index.nearestSpellings(of, of.length >= TYPO_TWO_EDITS ? 2 : 1);
      // The stem of a misspelling can be far from the stem of the word meant ("translatoin"
      // keeps its ending, "translation" becomes "translat"): then the word's own slips (two
      // letters swapped, one letter too many) are stemmed and looked up.
      const terms = near.terms.length > 0 ? near.terms : slipsOf(word).filter((t) => t !== of && index.documentFrequency(t) > 0);
      if (terms.length <= TYPO_MAX_CANDIDATES) for (const term of terms) addTerm(term, of, params.typoWeight, params.typoCredit);
    }
  }
  if (stages.typos) {
    // The other way round: the question spells a word right and the bank has it, but one of the
    // bank's lines misspelt it ("hosue", "brudnell", "rasberries"), as chat does: a word of the bank
    // one slip from the query word (two letters swapped, one left out or one too many; a letter
    // changed most often makes another word), in at most 2 memories, fewer than the word itself,
    // and not a word of its own ("lean" for "learn", "county" for "country").
    for (const word of queryWords) {
      const of = stemWord(word);
      if (word.length < SLIP_MIN || /\d/.test(of) || index.documentFrequency(of) === 0) continue;
      const known = index.documentFrequency(of);
      const terms: string[] = [];
      for (const t of slipSpellings(of, (hash) => index.mayHaveTerm(hash))) {
        const docs = index.documentFrequency(t);
        if (docs > 0 && docs <= MISSPELT_MAX_DOCS && docs < known && !isWordStem(t)) terms.push(t);
      }
      if (terms.length <= TYPO_MAX_CANDIDATES) for (const term of terms) addTerm(term, of, params.typoWeight, params.typoCredit);
    }
  }
  if (stages.typos) {
    // The question misspells a word as one line of the bank did ("granery" once, "granary" in six
    // lines): a query word in at most 2 memories that no dictionary knows also searches its
    // spellings one edit away that the bank has far more often.
    for (const word of queryWords) {
      const of = stemWord(word);
      const rare = index.documentFrequency(of);
      if (word.length < SLIP_MIN || /\d/.test(of) || rare === 0 || rare > MISSPELT_MAX_DOCS || isWordStem(of) || isLemma(word) || (word.endsWith('s') && isLemma(word.slice(0, -1)))) continue;
      const terms: string[] = [];
      for (const t of editSpellings(of)) if (index.documentFrequency(t) >= COMMON_SPELLING * rare + 1) terms.push(t);
      if (terms.length <= TYPO_MAX_CANDIDATES) for (const term of terms) addTerm(term, of, params.typoWeight, params.typoCredit);
    }
  }
  if (stages.typos) {
    // A long word is often written clipped ("micro" for "microeconomics", "physio" for
    // "physiotherapist"): its opening letters, if the bank has them as a word, are searched too.
    for (const word of queryWords) {
      if (word.length < CLIP_MIN_WORD || /\d/.test(word)) continue;
      const of = stemWord(word);
      for (let end = CLIP_MIN; end <= word.length * CLIP_MAX_SHARE; end += 1) {
        const clip = word.slice(0, end);
        if (STOP_WORDS.has(clip)) continue;
        const term = stemWord(clip);
        if (term !== of && index.documentFrequency(term) > 0) addTerm(term, of, CLIP_WEIGHT, 0);
      }
    }
  }
  if (stages.coding) {
    const stems = ` ${analyze(query).join(' ')} `;
    for (const phrase of codingPhrases) {
      if (!stems.includes(` ${phrase} `)) continue;
      const of = phrase.split(' ')[0];
      if (of !== undefined) for (const r of codingRelatedToStems(phrase)) add(r, of, params.codingWeight, params.codingCredit);
    }
  }
  for (const word of queryWords) {
    const of = stemWord(word);
    const known = stages.coding && codingKnows(word);
    if (known) for (const r of codingRelated(word)) add(r, of, params.codingWeight, params.codingCredit);
    // A word the coding thesaurus knows has its domain sense: WordNet's ("git": a person) is noise.
    if (stages.wordnet && !known && !isFunctionWord(word, query)) for (const r of relatedWords(word)) add(r, of, isClipping(r, word) ? params.clippedSynonymWeight : params.wordnetWeight);
  }
  // A price per person is said "a head" as often ("38 a head"): the question's "per person"
  // searches "head" (ranked, not counted: "head" alone is mostly something else).
  if (stages.wordnet && /\bper (?:person|guest|head)\b/i.test(query)) addTerm(stemWord('head'), stemWord('person'), params.wordnetWeight, 0);
  // A phrasal verb says what its verb alone does not ("do the dishes": wash; "went up": rise):
  // its WordNet sense's words search at their own weight, counted for the verb in the confidence.
  if (stages.wordnet) {
    for (const phrasal of phrasalVerbs(query.toLowerCase().match(/[a-z]+/g) ?? [], verbOfPast)) {
      if (stages.coding && codingKnows(phrasal.verb)) continue;
      const of = stemWord(phrasal.verb);
      for (const r of phrasal.words) add(r, of, params.phrasalWeight);
    }
  }
  // GloVe learnt general English (news, Wikipedia): a conversation speaks it, while a project's
  // notes give words their domain sense ("deploy" -> "troops" cost coding set 2 questions). A
  // word the bank says often finds its lines by itself; one it says seldom may be said otherwise.
  // A month or weekday name is a date (the temporal stage), and its neighbours are the others.
  if (stages.vectors && participantsOf(index).length >= 2) {
    for (const word of queryWords) {
      const of = stemWord(word);
      if (word.length < 3 || /\d/.test(word) || (stages.coding && codingKnows(word)) || index.documentFrequency(of) > params.vectorRareDocs) continue;
      if (isCalendarName(word)) continue;
      let taken = 0;
      for (const { word: near, cosine } of neighboursOf(word)) {
        if (taken >= params.vectorNeighbours || cosine < params.vectorMinCosine) break;
        const term = stemWord(near);
        if (original.has(term) || index.documentFrequency(term) === 0) continue;
        // Ranked only: no origin, so the confidence never counts it (off-topic prompts find
        // related words in every bank).
        weights.set(term, Math.max(weights.get(term) ?? 0, params.vectorWeight * cosine));
        taken += 1;
      }
    }
  }
  // A question names the general thing ("what dessert did we settle on") where chat names the
  // kind ("i'll bring a tiramisu"). As with the vectors, only in a conversation and only for a
  // word the bank seldom says; ranked, not counted (off-topic prompts find kinds in every bank).
  if (stages.wordnet && params.hyponymWeight > 0 && participantsOf(index).length >= 2) {
    for (const word of queryWords) {
      if (word.length < 3 || /\d/.test(word) || isFunctionWord(word, query) || (stages.coding && codingKnows(word))) continue;
      if (index.documentFrequency(stemWord(word)) > params.hyponymRareDocs) continue;
      const kinds = hyponymWords(word, params.hyponymDepth);
      if (kinds.length > params.hyponymMaxWords) continue;
      for (const kind of kinds) {
        const term = stemWord(kind);
        if (original.has(term) || index.documentFrequency(term) === 0) continue;
        weights.set(term, Math.max(weights.get(term) ?? 0, params.hyponymWeight));
      }
    }
  }
  // "what max number of guests": chat bounds the number with another word of the family ("hard
  // cap of 55"); ranked only, the answer-type stage then prefers the line that bounds a number.
  if (params.limitWeight > 0 && stages.answerTypes && LIMIT_QUESTION.test(query)) {
    for (const w of LIMIT_WORDS) {
      const term = stemWord(w);
      if (!original.has(term) && index.documentFrequency(term) > 0) weights.set(term, Math.max(weights.get(term) ?? 0, params.limitWeight));
    }
  }
  const terms = objectList<WeightedTerm>(FRACTIONAL_TERM);
  for (const [term, weight] of weights) terms.push({ term, weight });
  return { terms, origin };
};

/**
 * Whether a stem is a word's: WordNet has it, or it with the "e" or the "y" stemming took off
 * ("lean", "fond", "county" from "counti").
 */
const isWordStem = (t: string): boolean => isLemma(t) || isLemma(`${t}e`) || (t.endsWith('i') && isLemma(`${t.slice(0, -1)}y`));

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The spellings one edit from a stem: its slips, and one letter changed (past the first two). */
const editSpellings = (stem: string): Set<string> => {
  const out = slipSpellings(stem);
  for (let i = 2; i < stem.length; i += 1) for (const letter of LETTERS) if (letter !== stem[i]) out.add(stem.slice(0, i) + letter + stem.slice(i + 1));
  return out;
};

/**
 * The stems of a word with two neighbouring letters swapped or one letter left out, each once.
 * The last letter is never left out: that would read a suffix as a slip ("bundler" as "bundle").
 */
const slipsOf = (word: string): string[] => {
  if (word.length < SLIP_MIN || word.length > 30) return [];
  const out = new Set<string>();
  for (let i = 0; i + 1 < word.length; i += 1) {
    out.add(stemWord(word.slice(0, i) + word.slice(i + 1)));
    if (word[i] !== word[i + 1]) out.add(stemWord(word.slice(0, i) + (word[i + 1] ?? '') + (word[i] ?? '') + word.slice(i + 2)));
  }
  return [...out];
};

/** RM3-like feedback terms from the best `docs` documents: tf/len x doc weight x idf. */
const feedbackTerms = (input: RankInput, top: readonly { id: string; score: number }[], exclude: ReadonlySet<string>, params: RankParams): WeightedTerm[] => {
  const best = top[0]?.score ?? 0;
  if (best <= 0) return [];
  const mass = new Map<string, number>();
  const seenIn = new Map<string, number>();
  for (const { id, score } of top) {
    const terms = analyze(input.textOf(id));
    if (terms.length === 0) continue;
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [t, c] of counts) {
      mass.set(t, (mass.get(t) ?? 0) + (c / terms.length) * (score / best));
      seenIn.set(t, (seenIn.get(t) ?? 0) + 1);
    }
  }
  const scored = [...mass]
    // A term from one document only, or in no other document of the bank, adds nothing new.
    .filter(([t]) => !exclude.has(t) && (seenIn.get(t) ?? 0) >= 2 && input.index.documentFrequency(t) >= 2)
    .map(([t, m]) => ({ term: t, weight: m * input.index.idf(t) }))
    .sort((a, b) => b.weight - a.weight)
    .slice(0, params.feedbackTerms);
  const max = scored[0]?.weight ?? 0;
  return max <= 0 ? [] : scored.map((s) => ({ term: s.term, weight: (params.feedbackWeight * s.weight) / max }));
};

/**
 * The query's words less "much" of a "how much" that asks for money: the answer-type stage reads
 * that form, and as a word it finds the chat's other questions ("how much is that") rather than
 * the amounts that answer ("£85 which is basically mates rates"). (Dropped for every "how much"
 * before money was an answer type: it cost chat-5 a question, thirteenth round.)
 */
const withoutFormWords = (queryWords: readonly string[], query: string): string[] => {
  if (!/\bhow much\b/i.test(query) || (questionAnswerTypes(query) & MONEY) === 0) return [...queryWords];
  const rest = queryWords.filter((w) => w !== 'much');
  return rest.length > 0 ? rest : [...queryWords];
};

export const rank = (input: RankInput): Ranking => {
  const stages = input.stages ?? DEFAULT_STAGES;
  const params = input.params ?? DEFAULT_PARAMS;
  const { index } = input;
  const skipDerived = input.derived === false;
  const query = stages.speakers ? withParticipantNames(input.query, index) : input.query;
  const queryWords = withoutFormWords([...new Set(words(query))].filter((w) => !(QUERY_STOP_WORDS.has(w) && !inCapitals(w, query))), query);
  const original = new Set(queryWords.map(stemWord));
  // One kind of array with the expansion's terms (`.map` makes a holey one): `score`'s optimised
  // loop over the terms met both, and was thrown away at the first of the other kind.
  const keywordTerms = objectList<WeightedTerm>(FRACTIONAL_TERM);
  for (const term of original) keywordTerms.push({ term, weight: 1 });
  // The participants the query names, when the bank's memories are transcript lines.
  const named = (stages.speakers || stages.attribution || stages.replies) && index.participants.size > 0 ? new Set(namedParticipants(query, participantsOf(index))) : new Set<string>();
  const empty: Ranking = { hits: objectList(), confidence: 0, terms: { keyword: keywordTerms, expansion: [], feedback: [] }, timeCues: [], participants: [], attributed: 1, prefixOfLarger: true };
  if (original.size === 0 || index.size === 0 || input.limit <= 0) return empty;

  // The filter is asked once per document and query: 1 = kept, 2 = not (reset before returning
  // unless the caller keeps the verdicts).
  if (acceptScratch.length < index.capacity) acceptScratch = new Uint8Array(Math.max(index.capacity, acceptScratch.length * 2));
  const kept = input.verdicts !== undefined && input.verdicts.length >= index.capacity ? input.verdicts : undefined;
  verdicts.reset();
  verdicts.index = index;
  verdicts.accepted = kept ?? acceptScratch;
  verdicts.kept = kept !== undefined;
  verdicts.skipDerived = skipDerived;
  verdicts.accept = input.accept;
  verdicts.acceptDocument = input.acceptDocument;
  const acceptN = verdicts.accepts;
  // Stage codes by document number; a touched document's slot is reset before returning.
  if (stageScratch.length < index.capacity) stageScratch = new Uint8Array(Math.max(index.capacity, stageScratch.length * 2));
  // A ranking that threw left its codes: cleared whole (rare), so none carries into this one.
  else if (!stagesClean) stageScratch.fill(0);
  stagesClean = false;
  const stageOf = stageScratch;
  const mark = (touched: Int32Array, from: number, code: number): void => {
    for (let i = from; i < touched.length; i += 1) stageOf[i32(touched, i)] = code;
  };

  // The keyword pass's documents keep code 0, what every slot holds now: not written again (a
  // random write per touched document, thousands a query, with the CPU's caches cold).
  let pass = index.score(keywordTerms, undefined, skipDerived);
  const expansion = expand(index, query, queryWords, original, stages, params);
  // Run for every query, with no terms too (it then scores nothing and marks nothing): most
  // queries have no expansion, and code V8 optimised before the first that had one was thrown
  // away there (`rank` and `score` both, at an access they had never run), then compiled again.
  {
    const before = pass.touched.length;
    pass = index.score(expansion.terms, pass, skipDerived);
    mark(pass.touched.view(), before, 1);
  }
  let feedback: WeightedTerm[] = [];
  if (stages.feedback) {
    const top = topK(pass.touched.view(), pass.scores, acceptN, params.feedbackDocs).map((n) => ({ id: index.liveIdOf(n), score: f64(pass.scores, n) }));
    const exclude = new Set([...original, ...expansion.terms.map((t) => t.term)]);
    feedback = feedbackTerms(input, top, exclude, params);
    if (feedback.length > 0) {
      const before = pass.touched.length;
      pass = index.score(feedback, pass, skipDerived);
      mark(pass.touched.view(), before, 2);
    }
  }
  const { scores } = pass;
  const touched = pass.touched;
  // The strongest documents, found once: only a neighbour boost can lift another among them. As
  // many are found as the last ranking keeps: the stages below only raise scores, and while those
  // they raise are listed (`raised`), the best in the end are among these and those (any other
  // still ranks below all of these), so the last ranking reads them instead of every touched
  // document again (a pass over thousands of scores, with the CPU's caches cold).
  const first = stages.neighbours || stages.session || stages.replies ? topK(touched.view(), scores, acceptN, Math.max(params.neighbourSources, input.limit)) : undefined;
  let strong = first === undefined ? [] : first.slice(0, params.neighbourSources);
  const raised: number[] = [];
  /** A stage raised documents it did not list: the last ranking reads every touched one. */
  let unlisted = false;
  const inherited = stages.replies && params.replyWeight > 0 && index.participants.size > 0 ? inherit(index, strong, scores, [...keywordTerms, ...expansion.terms], namesOf(named), params, (n) => input.textOf(index.liveIdOf(n))) : new Map<number, Inherited>();
  if ((stages.neighbours && params.neighbourWeight > 0) || inherited.size > 0) {
    const boosts = new Map<number, number>();
    if (stages.neighbours) {
      for (const n of strong) {
        const share = params.neighbourWeight * f64(scores, n);
        for (const m of index.neighbours(n, params.neighbourSpan, params.neighbourMaxGapMs)) if (share > (boosts.get(m) ?? 0)) boosts.set(m, share);
      }
    }
    for (const [m, { share }] of inherited) if (share > (boosts.get(m) ?? 0)) boosts.set(m, share);
    if (stages.neighbours && stages.answerTypes && index.participants.size > 0) valueLines(index, strong, scores, questionAnswerTypes(input.query) & ~DATE, asksYesOrNo(input.query), params, (n) => input.textOf(index.liveIdOf(n)), boosts);
    for (const [m, boost] of boosts) {
      if (scores[m] === 0) {
        touched.push(m);
        stageOf[m] = 3;
      } else if (boost > f64(scores, m)) stageOf[m] = 3;
      scores[m] = f64(scores, m) + boost;
      raised.push(m);
    }
    strong = topK(distinct(strong, boosts.keys()), scores, acceptN, params.neighbourSources);
  }

  if (stages.session && params.threadWeight > 0) {
    // Session-level evidence: a matching turn in a session that matches strongly elsewhere.
    // Only the threads of the strongest documents are visited, so the cost is their size.
    const threadBest = new Map<number, number>();
    for (const n of strong) {
      const thread = index.threadNumberOf(n);
      if (thread >= 0 && f64(scores, n) > (threadBest.get(thread) ?? 0)) threadBest.set(thread, f64(scores, n));
    }
    // A document is in one thread, so adding as the threads are walked reads no bonus twice.
    for (const [thread, best] of threadBest) {
      const bonus = params.threadWeight * best;
      for (const m of index.threadMembers(thread)) {
        if (f64(scores, m) <= 0) continue;
        scores[m] = f64(scores, m) + bonus;
        raised.push(m);
      }
    }
  }

  if (stages.speakers && named.size > 0 && params.speakerBoost > 0) {
    unlisted = true;
    const view = touched.view();
    for (let i = 0; i < view.length; i += 1) {
      const n = i32(view, i);
      if (speaksOfSelf(index, n, named) || answers(index, n, named, inherited)) scores[n] = f64(scores, n) * (1 + params.speakerBoost);
    }
  }

  const cues = stages.temporal && params.temporalBoost > 0 ? timeCues(input.query, input.now ?? Date.now()) : [];
  // Cues some matching document is dated in: the bank knows those dates.
  const known = cues.map(() => false);
  if (cues.length > 0) {
    unlisted = true;
    // Only documents that already match get the boost: a date alone is no answer.
    const view = touched.view();
    for (let i = 0; i < view.length; i += 1) {
      const n = i32(view, i);
      const at = index.orderOf(n);
      if (at === undefined) continue;
      let dated = false;
      let onDay = false;
      cues.forEach((c, i) => {
        if (!c.matches(at)) return;
        dated = true;
        known[i] = true;
        if (c.onDay?.(at) === true) onDay = true;
      });
      if (dated) scores[n] = f64(scores, n) * (1 + params.temporalBoost + (onDay ? params.dayBoost : 0));
    }
  }

  // The best matches the answer-type stage read, in their order before its boost. The boost only
  // raises them, so the final best are among them. The confidence (its attribution check too) is
  // judged on this lexical order: a value of the asked shape is no evidence that the bank
  // answers the question.
  let pool: readonly number[] | undefined;
  const wanted = stages.answerTypes && params.answerTypeBoost > 0 ? questionAnswerTypes(input.query) : 0;
  if (wanted !== 0) {
    pool = topK(touched.view(), scores, acceptN, Math.max(params.answerTypePool, input.limit));
    for (const n of pool) {
      const shown = valueAnswerTypes(input.textOf(input.index.liveIdOf(n)), wanted);
      if (shown !== 0) scores[n] = f64(scores, n) * (1 + params.answerTypeBoost * (shown === DATE ? DATE_BOOST_SHARE : 1));
    }
  }

  const last = pool !== undefined ? new Int32Array(pool) : first !== undefined && !unlisted ? distinct(first, raised) : touched.view();
  const judgedBest = topK(last, scores, acceptN, input.limit);
  const top = judgedBest[0];
  const dates = datedWords(cues, known, original);
  let lines: Lines | undefined;
  if (top !== undefined && stages.attribution && named.size > 0) {
    const candidates = pool?.slice(0, params.attributionCandidates) ?? (input.limit >= params.attributionCandidates ? judgedBest.slice(0, params.attributionCandidates) : topK(touched.view(), scores, acceptN, params.attributionCandidates));
    const spoken = candidates.flatMap((n) => {
      const speaker = index.speakerOf(n);
      return speaker === undefined ? [] : [{ n, speaker }];
    });
    lines = { named, mine: spoken.filter((l) => named.has(l.speaker)).map((l) => l.n), others: spoken.filter((l) => !named.has(l.speaker)).map((l) => l.n) };
  }
  const judged = top === undefined ? { confidence: 0, attributed: 1 } : confidenceOf(input, pool?.[0] ?? top, original, expansion, dates, lines, inherited);
  const { confidence } = judged;
  // "what time", "which one", "how much is that": a bare question matches a question's form word
  // with a line of one or two words, which length normalisation ranks first; it asks, it does not
  // answer. It ranks at `bareQuestionWeight` of its score, after its reply inherited from the full
  // score and after the confidence was judged (a reordering, as the answer types are, no evidence).
  const bare = stages.replies && params.bareQuestionWeight < 1 && index.participants.size > 0 && first !== undefined ? first.filter((n) => isBareQuestion(index, n)) : [];
  for (const n of bare) scores[n] = f64(scores, n) * params.bareQuestionWeight;
  // A lowered score: a document the first ranking left out may now pass it, so all are read again.
  const best = bare.length > 0 ? topK(pool !== undefined ? last : touched.view(), scores, acceptN, input.limit) : judgedBest;
  const bestTop = best[0];
  const topScore = bestTop === undefined ? 1 : f64(scores, bestTop);
  const hits = objectList<RankedHit>();
  for (const n of best) {
    const score = f64(scores, n);
    hits.push({ id: index.liveIdOf(n), kind: index.kindOf(n), score, final: topScore > 0 ? (confidence * score) / topScore : 0, stage: item(STAGE_CODES, stageOf[n] ?? 0) });
  }
  const view = touched.view();
  for (let i = 0; i < view.length; i += 1) {
    const n = i32(view, i);
    scores[n] = 0;
    stageOf[n] = 0;
  }
  // Scores and codes are all 0 again: the next pass need not clear these documents' scores again
  // (FieldIndex.score clears the touched list it is given back).
  touched.clear();
  stagesClean = true;
  verdicts.reset();
  return {
    hits,
    confidence,
    terms: { keyword: keywordTerms, expansion: expansion.terms, feedback },
    timeCues: cues.map((c) => c.cue),
    participants: [...named],
    attributed: judged.attributed,
    prefixOfLarger: pool === undefined,
  };
};

/** The fewest letters of a lower-case short form read as a name ("cal" for Callum). */
const SHORT_NAME = 3;

/**
 * A participant's name begins with the word, and is longer: chat calls people by the first
 * letters of their name ("cal" for Callum, "caro"), and the bank has the word because that is
 * how they are spoken to ("cal", "CAL" in a line of their own), not because it means something
 * else.
 */
const isShortForm = (lower: string, participants: readonly string[]): boolean =>
  lower.length >= SHORT_NAME && participants.some((p) => {
    const first = p.toLowerCase().split(' ')[0] ?? '';
    return first.length > lower.length && first.startsWith(lower);
  });

/**
 * The query with each word written as a name the bank lacks ("Jon", "Caro") replaced by the
 * participant it stands for (names.ts participantFor), so every stage reads the name as the
 * bank writes it. A capitalised word counts, and a lower-case one of three letters or more that
 * is no English word ("caro", "cal", not "mark"); words the bank has stay as written, but for a
 * short form of a participant's name ("cal": the bank has it from the lines that call him so,
 * whose words are no answer about him).
 */
const withParticipantNames = (query: string, index: FieldIndex): string => {
  const participants = participantsOf(index);
  if (participants.length === 0) return query;
  return query.replace(/[\p{L}]+/gu, (word) => {
    const capitalised = /^\p{Lu}/u.test(word);
    if (!capitalised && (word.length < SHORT_NAME || isLemma(word))) return word;
    const lower = word.toLowerCase();
    if (participants.includes(word) || (index.documentFrequency(stemWord(lower)) > 0 && !isShortForm(lower, participants))) return word;
    return participantFor(word, participants) ?? word;
  });
};

/** The index terms of the questions a line asks before its last sentence (attribution.ts `earlierQuestions`), or undefined. */
const earlierQuestionWords = (line: string): Set<string> | undefined => {
  const questions = earlierQuestions(line);
  return questions.length === 0 ? undefined : new Set(questions.flatMap((q) => analyze(q)));
};

/** What a line inherits from the strong line before it (`inherit`). */
interface Inherited {
  /** Score added: the share of the earlier line's score that its words the line lacks carry. */
  readonly share: number;
  readonly from: number;
  /** The earlier line is another speaker's question (else the same speaker's line). */
  readonly reply: boolean;
  /**
   * Reached over another speaker's line (a question that says none of its words, or the answer
   * the asker closes): ranked, not counted as covered.
   */
  readonly prompted?: boolean;
}

/** The index terms of the participants' names (who said a line is not what it is about). */
const namesOf = (participants: ReadonlySet<string>): Set<string> => new Set([...participants].flatMap((p) => analyze(p)));

/**
 * The replies part of the neighbour stage. People split what they say over several short
 * lines and answer a question without repeating it: "how many lessons have u had now" ->
 * "like 38 ?"; "flights done!!" -> "easyjet from gatwick fri 4th, 10:25 out" -> "£87 each".
 * So among the strong lines, one that asks something (attribution.ts `asksQuestion`) passes
 * its words to the other speaker's line right after it, and any passes them to the next
 * `runLines` lines its own speaker sends without a pause (`runMaxGapMs`) and without anyone
 * in between. A line inherits only the words it lacks: the share of the earlier line's score
 * that the earlier line's matching words, names aside and weighted by idf, carry when missing
 * from it. A reply that repeats the question ("I baked a loaf at the baking class" after "Did
 * you bake a loaf at the baking class?") gains nothing, while a statement followed by another
 * speaker's remark (Priya's kitten, Tom's "So cute! I love grey cats.") passes nothing.
 */
const inherit = (index: FieldIndex, strong: readonly number[], scores: Float64Array, terms: readonly WeightedTerm[], names: ReadonlySet<string>, params: RankParams, lineOf: (n: number) => string): Map<number, Inherited> => {
  const out = new Map<number, Inherited>();
  for (const n of strong) {
    const speaker = index.speakerOf(n);
    if (speaker === undefined) continue;
    const next = index.following(n, params.neighbourMaxGapMs);
    if (next < 0) continue;
    const nextSpeaker = index.speakerOf(next);
    if (nextSpeaker === undefined) continue;
    // Chat drops the question mark, and a yes or a no back says the line was a question all the same.
    // A question inside a longer line ("What concert was it? The advocacy event was a cool
    // experience") is answered too, in the words of that question only.
    const asked = nextSpeaker !== speaker && index.asksEarlier(n) && !index.opensWithYesOrNo(next) ? earlierQuestionWords(lineOf(n)) : undefined;
    const reply = nextSpeaker !== speaker && (index.asks(n) || index.opensWithYesOrNo(next) || asked !== undefined);
    // "exam done" -> "how was it!!!" -> "ok i think" -> "question 3 was evil": a question that asks
    // after a short news line, in none of its words, is answered by the one who sent it.
    // A bare prompt ("and???", "so??") asks for more of what was just said, however long that was:
    // "mum brought graham round for tea tonight" -> "and???" -> "hes... fine? retired postman".
    const prompted = nextSpeaker !== speaker && !reply && index.asks(next) && (index.textLengthOf(n) <= analyze(speaker).length + PROMPTED_WORDS || isBarePrompt(lineOf(next)));
    // "ok granary money came in" -> "thank god" -> "only 450 tho": the other's reaction to a short
    // news line takes no turn, and its sender goes on with the detail.
    const reacted = nextSpeaker !== speaker && !reply && !prompted && index.textLengthOf(n) <= analyze(speaker).length + PROMPTED_WORDS && isReaction(index, next, nextSpeaker, 2);
    if (nextSpeaker !== speaker && !reply && !prompted && !reacted) continue;
    const topic: { term: string; weight: number }[] = [];
    let total = 0;
    for (const t of terms) {
      if (names.has(t.term) || !index.hasTextTerm(n, t.term) || (asked !== undefined && !asked.has(t.term))) continue;
      const weight = t.weight * index.idf(t.term);
      topic.push({ term: t.term, weight });
      total += weight;
    }
    if (total <= 0) continue;
    const share = params.replyWeight * f64(scores, n);
    /** The share of the strong line's score that its words line `m` lacks carry. */
    const carriedTo = (m: number): number => {
      let lacking = 0;
      for (const t of topic) if (!index.hasTextTerm(m, t.term)) lacking += t.weight;
      return (share * lacking) / total;
    };
    const give = (m: number): void => {
      const carried = carriedTo(m);
      if (carried > (out.get(m)?.share ?? 0)) out.set(m, prompted ? { share: carried, from: n, reply, prompted } : { share: carried, from: n, reply });
    };
    /** A share (times `weight`) that ranks line `m` but does not count it as covered. */
    const giveRanked = (m: number, weight = 1): void => {
      const carried = weight * carriedTo(m);
      if (carried > (out.get(m)?.share ?? 0)) out.set(m, { share: carried, from: n, reply: false, prompted: true });
    };
    /** The asker's line that closes the exchange: a lesser share (`closingWeight`), ranked but not counted as covered. */
    const giveClosing = (m: number): void => giveRanked(m, params.closingWeight);
    /** The run of lines `who` sends from `first` on: at most `runLines`, each within `runMaxGapMs` of the one before, each given by `each`. */
    const giveRun = (first: number, who: string, each: (m: number) => void = give): void => {
      for (let m = first, k = 0; m >= 0 && k < params.runLines && index.speakerOf(m) === who; m = index.following(m, params.runMaxGapMs), k += 1) each(m);
    };
    if (reacted) {
      giveRun(index.following(next, params.runMaxGapMs), speaker, (m) => giveRanked(m, params.reactedWeight));
      continue;
    }
    if (prompted) {
      if (topic.some((t) => index.hasTextTerm(next, t.term))) continue;
      giveRun(index.following(next, params.runMaxGapMs), speaker);
      continue;
    }
    if (reply) {
      give(next);
      // A reply that only reacts ("...", "hmm", "wait") leaves the answer to its speaker's next lines.
      if (isReaction(index, next, nextSpeaker)) giveRun(index.following(next, params.runMaxGapMs), nextSpeaker);
      else {
        // The asker's reaction to the answer ("NOO", "phew", "wait") is a backchannel, not a turn:
        // the one answering goes on ("urs is the wrong size" -> "NOO" -> "they're fixing it, ready
        // next weds"), and those lines rank as the answer's, not counted as covered.
        const back = index.following(next, params.runMaxGapMs);
        if (back >= 0 && index.speakerOf(back) === speaker && isReaction(index, back, speaker)) giveRun(index.following(back, params.runMaxGapMs), nextSpeaker, (m) => giveRanked(m));
      }
      const closing = closingLine(index, next, speaker, params);
      if (closing >= 0) giveClosing(closing);
      continue;
    }
    // The speaker's own next lines, the first of them within `runMaxGapMs` too.
    giveRun(index.following(n, params.runMaxGapMs), speaker);
  }
  return out;
};

/**
 * Chat names the thing and gives its value a few lines on, in no word of the question: "ok so
 * cricket club verdict" ... "£450 for the day"; "these shoes are going back" -> "u still in the
 * return window?" -> "30 days so yes". When the question asks for a value's shape (`wanted`: not
 * a day, which a memory's own date answers and most lines name about another one), the lines
 * after each of the strongest, that hold such a value, get the neighbour share of its score; the
 * answer-type stage then reads them with the rest. A polar question (`polar`) asks for a yes or a
 * no: a line that opens with one is such a value.
 */
const valueLines = (index: FieldIndex, strong: readonly number[], scores: Float64Array, wanted: number, polar: boolean, params: RankParams, lineOf: (n: number) => string, boosts: Map<number, number>): void => {
  if (wanted === 0 && !polar) return;
  for (const n of strong.slice(0, params.valueSources)) {
    const share = params.neighbourWeight * f64(scores, n);
    for (let m = index.following(n, params.neighbourMaxGapMs), k = 0; m >= 0 && k < params.valueReach; m = index.following(m, params.neighbourMaxGapMs), k += 1) {
      if (share > (boosts.get(m) ?? 0) && ((polar && index.opensWithYesOrNo(m)) || (wanted !== 0 && valueAnswerTypes(lineOf(m), wanted) !== 0))) boosts.set(m, share);
    }
  }
};

/**
 * The asker's first line after the answer to their question, within the `runLines` lines that
 * follow the reply (each within `runMaxGapMs` of the last), or -1. Conversation closes a
 * question's exchange with a third turn by the asker, a decision or an acknowledgement ("ok
 * green it is"), that often holds what the exchange settled; a new question
 * ("and the skirting?") opens another exchange instead.
 */
const closingLine = (index: FieldIndex, reply: number, asker: string, params: RankParams): number => {
  for (let m = index.following(reply, params.runMaxGapMs), k = 0; m >= 0 && k < params.runLines; m = index.following(m, params.runMaxGapMs), k += 1) {
    if (index.speakerOf(m) === asker) return index.asks(m) ? -1 : m;
  }
  return -1;
};

/**
 * A transcript line that only prompts for more: a question mark after at most a conjunction ("and???",
 * "so??", "and then?", "well?"), as chat says "go on". "how is it" asks how something is, and after a
 * long line it is about what it asks.
 */
const isBarePrompt = (text: string): boolean => /^[^:\n]*:\s*(?:(?:and|so|well|then|and then|annd+|aand+)\s*)?\?+[\s!?.]*(?:\n|$)/i.test(text);

/** The most words a news line has besides its speaker's name for a question after it to ask about it ("exam done"). */
const PROMPTED_WORDS = 5;

/**
 * Line `n` of `speaker` only reacts: it asks nothing, holds no number and says at most `words`
 * words besides its speaker's name, one by default ("...", "hmm", "wait", "ugh"). A bare number
 * ("£650", "like 38") is an answer, and a reply of two words ("oh yeah", "ok i think") often
 * starts one after a question; after news, two ("thank god", "oh no", "cheap tho") still only
 * react, and the one who sent it goes on (`inherit`'s `reacted`).
 */
const isReaction = (index: FieldIndex, n: number, speaker: string, words = 1): boolean => !index.asks(n) && !index.hasNumber(n) && index.textLengthOf(n) <= analyze(speaker).length + words;

/**
 * Line `n` is a bare question: a transcript line that asks, holds no number ("like 38 ?", "40??"
 * answer) and says at most two words besides its speaker's name ("what time", "which one", "how
 * much is that", "where??").
 */
const isBareQuestion = (index: FieldIndex, n: number): boolean => {
  const speaker = index.speakerOf(n);
  return speaker !== undefined && index.asks(n) && !index.hasNumber(n) && index.textLengthOf(n) <= analyze(speaker).length + 2;
};

/**
 * Line `n` answers a question that one of `speakers` was asked: a named participant's reply to
 * a line that spoke to them ("how many lessons have u had now" -> "like 38 ?"). It speaks of its
 * speaker as their own words do, though a bare answer says no "I".
 */
const answers = (index: FieldIndex, n: number, speakers: ReadonlySet<string>, inherited: ReadonlyMap<number, Inherited>): boolean => {
  const from = inherited.get(n);
  return from !== undefined && from.reply && speakers.has(index.speakerOf(n) ?? '') && index.speaksToListener(from.from);
};

/**
 * The words a line counts as covering through the line it inherits from: the words a question
 * addressed to its speaker (what the asker says of the one asked), or its speaker's own words in
 * the line before. Another speaker's story ("We're going camping next month. Any fun plans?")
 * stays theirs.
 */
const inheritedTerms = (index: FieldIndex, from: Inherited | undefined): Iterable<string> => {
  // Over another's question the line is ranked as an answer, but is no evidence of coverage: counted,
  // it let off-topic prompts through (docs/recall.md, thirteenth round).
  if (from === undefined || from.prompted === true) return [];
  return (from.reply ? index.addressedTermsOf(from.from) : index.ownTermsOf(from.from)) ?? [];
};

/** Speakers of enough lines to be participants rather than labels. */
const participantsOf = (index: FieldIndex): string[] => [...index.participants].flatMap(([p, lines]) => (lines >= MIN_LINES ? [p] : []));

/** Line `n` is one of `speakers` speaking of themselves (it has own words). */
const speaksOfSelf = (index: FieldIndex, n: number, speakers: ReadonlySet<string>): boolean => {
  const speaker = index.speakerOf(n);
  return speaker !== undefined && speakers.has(speaker) && index.hasOwnWords(n);
};

interface DatedWords {
  readonly cues: readonly TimeCue[];
  /** Query stem -> indexes of its cues. */
  readonly words: ReadonlyMap<string, readonly number[]>;
  /** Per cue: some matching memory is dated in it. */
  readonly known: readonly boolean[];
}

/**
 * The query words that name a time ("October", "13", "2023" in "on October 13, 2023"), with
 * the cues they belong to and whether a matching memory is dated in it. A memory's date answers
 * them though its text seldom holds them ("I had a setback" said in October 2023).
 */
const datedWords = (cues: readonly TimeCue[], known: readonly boolean[], original: ReadonlySet<string>): DatedWords => {
  const words = new Map<string, number[]>();
  cues.forEach((c, i) => {
    for (const w of c.words) {
      const stem = stemWord(w);
      if (original.has(stem)) words.set(stem, [...(words.get(stem) ?? []), i]);
    }
  });
  return { cues, words, known };
};

/** The candidate lines spoken by the participants a query names, and by others. */
interface Lines {
  readonly named: ReadonlySet<string>;
  readonly mine: readonly number[];
  readonly others: readonly number[];
}

/**
 * How sure the ranking is that the bank answers the query, 0-1: the mean of two shares of the
 * query's information (idf mass of its words), the share the bank's vocabulary has at all and
 * the share the best result covers (an expansion counting at its weight). A prompt about
 * something never discussed ("a haiku about autumn") has words the bank lacks and a best match
 * on one common word; the mean was chosen over either share alone on LoCoMo conversations 0-1
 * (docs/recall.md). A word that names a time counts as known when a matching memory is dated
 * then, and as covered when the best result is. When the query names participants of the
 * bank's transcript lines, the result is multiplied by attributedShare.
 */
const confidenceOf = (input: RankInput, n: number, original: ReadonlySet<string>, expansion: Expansion, dates: DatedWords, lines: Lines | undefined, inherited: ReadonlyMap<number, Inherited>): { confidence: number; attributed: number } => {
  // A query word the bank lacks still counts as known, at its weight, through an expansion it has.
  const vocabulary = new Map<string, number>();
  for (const q of original) if (input.index.documentFrequency(q) > 0) vocabulary.set(q, 1);
  for (const [q, of] of dates.words) if (of.some((i) => dates.known[i] === true)) vocabulary.set(q, 1);
  for (const [term, origins] of expansion.origin) {
    if (input.index.documentFrequency(term) === 0) continue;
    for (const { of, weight } of origins) vocabulary.set(of, Math.max(vocabulary.get(of) ?? 0, weight));
  }
  const weights = new Map([...original].map((q) => [q, queryWordWeight(input.index, q, vocabulary.has(q))]));
  let total = 0;
  let known = 0;
  for (const q of original) {
    const w = weights.get(q) ?? 0;
    total += w;
    known += w * (vocabulary.get(q) ?? 0);
  }
  const at = input.index.orderOf(n);
  const dated = new Set<string>();
  if (at !== undefined) for (const [q, of] of dates.words) if (of.some((i) => dates.cues[i]?.matches(at) === true)) dated.add(q);
  const present = new Set([...(input.termsOf?.(n) ?? analyze(input.textOf(input.index.liveIdOf(n)))), ...dated, ...inheritedTerms(input.index, inherited.get(n))]);
  const share = total > 0 ? (known / total + coverage(present, original, expansion, weights)) / 2 : 0;
  const attributed = lines === undefined ? 1 : attributedShare(input.index, n, lines, original, expansion, weights);
  return { confidence: share * attributed, attributed };
};

/**
 * Whether the participants a query names said what answers it: 1 when, among the best
 * results, their own words (attribution.ts) cover at least as much of the query, names aside,
 * as another participant's own words do; else the ratio of the two. What a line says to the
 * one spoken to (its addressed words, "What made you pick the violin?") counts as theirs: in a
 * conversation of two, the other participant's. "What did Tom learn from
 * his marathon?" finds Tom's "A marathon! I am impressed." and Priya's "After the marathon I
 * learned that pacing matters": the question gives Priya's marathon to Tom, and the
 * confidence falls with the ratio. When, on top of that, the best result (`top`) is another
 * participant's line, the ranking agrees despite the speakers stage's boost of the named
 * participants' lines: the factor is 0.
 */
const attributedShare = (index: FieldIndex, top: number, lines: Lines, original: ReadonlySet<string>, expansion: Expansion, weights: ReadonlyMap<string, number>): number => {
  const names = new Set([...lines.named].flatMap((p) => analyze(p)));
  const content = new Map([...weights].map(([q, w]) => [q, names.has(q) ? 0 : w]));
  const said = (n: number): number => coverage(index.ownTermsOf(n) ?? new Set(), original, expansion, content);
  const told = (n: number): number => coverage(index.addressedTermsOf(n) ?? new Set(), original, expansion, content);
  // What a line says to the one spoken to is about them: the named participants' remarks count
  // for the others, the others' for the named ones.
  const mine = Math.max(0, ...lines.mine.map(said), ...lines.others.map(told));
  const others = Math.max(0, ...lines.others.map(said), ...lines.mine.map(told));
  if (others <= mine) return 1;
  const topSpeaker = index.speakerOf(top);
  return topSpeaker !== undefined && !lines.named.has(topSpeaker) ? 0 : mine / others;
};

/** Banks smaller than this many memories discount the query words they lack (queryWordWeight). */
const SMALL_BANK = 50;

/**
 * A query word's share of the query's information: its idf, but a word the bank lacks (neither
 * it nor an expansion of it occurs) counts at min(1, memories / SMALL_BANK) of it. In a bank of
 * three memories nearly every word of a question is absent and has the highest idf, so a real
 * match ("bundler" through "rollup") could never clear the floor; in a large bank an absent
 * word is real evidence that the prompt is about something never discussed.
 */
const queryWordWeight = (index: FieldIndex, q: string, inBank: boolean): number => index.idf(q) * (inBank ? 1 : Math.min(1, index.size / SMALL_BANK));

/** Share of the query's information that a document's terms cover (an expansion counts at its weight). */
const coverage = (present: ReadonlySet<string>, original: ReadonlySet<string>, expansion: Expansion, weights: ReadonlyMap<string, number>): number => {
  const credit = new Map<string, number>();
  for (const q of original) if (present.has(q)) credit.set(q, 1);
  for (const [term, origins] of expansion.origin) {
    if (!present.has(term)) continue;
    for (const { of, weight } of origins) credit.set(of, Math.max(credit.get(of) ?? 0, weight));
  }
  let total = 0;
  let covered = 0;
  for (const q of original) {
    const w = weights.get(q) ?? 0;
    total += w;
    covered += w * (credit.get(q) ?? 0);
  }
  return total > 0 ? covered / total : 0;
};
