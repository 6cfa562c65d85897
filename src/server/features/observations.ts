/**
 * Deterministic observations: world/experience facts consolidated into `observation`
 * memories without an LLM, so `types: ["observation"]` recall answers locally.
 *
 * Facts are grouped inside each observation scope (reference 3.4: scopes never bleed into
 * each other) by a shared caller-supplied entity, or by a shared key term that at least two
 * facts of the scope carry. Each group becomes one observation whose text lists the facts'
 * sentences that mention the key, whose tags are the scope's tag set, and whose
 * `source_fact_ids`/`proof_count` name the facts. The function is pure and total: the same
 * facts give the same observations (ids included), so recomputing after every retain is a
 * diff, not a rewrite.
 */
import { createHash } from 'node:crypto';
import { spokenText } from '../../codecs/conversationText.js';
import { keyTerms, sentences } from './terms.js';
import { Interned } from './interned.js';
import { runAtOnce } from '../slices.js';
import { isLemma, mostlyVerb, onlyAVerb } from '../search/wordnet.js';
import { fullName } from '../search/names.js';

export type ObservationScopes = 'per_tag' | 'combined' | 'all_combinations' | 'shared' | readonly (readonly string[])[];

/** What consolidation reads of a fact. */
export interface ObservationSourceFact {
  readonly id: string;
  readonly text: string;
  readonly type: string;
  readonly tags: readonly string[];
  readonly entities: readonly string[];
  /** Of `entities`, those the server's extractor took for a name from a capital letter alone. */
  readonly guessedNames?: ReadonlySet<string> | undefined;
  /** Of `entities`, those the extractor took for a tool from its word alone ("go" in "deploys go out"). */
  readonly guessedTools?: ReadonlySet<string> | undefined;
  readonly observationScopes?: ObservationScopes | null | undefined;
  readonly mentionedAt?: string | null | undefined;
}

/** One consolidated observation. */
export interface Observation {
  readonly id: string;
  /** `entity:<name>` or `term:<term>`, unique within a scope. */
  readonly key: string;
  readonly text: string;
  /** The scope's tag set, sorted; `[]` for the shared scope. */
  readonly tags: readonly string[];
  readonly sourceFactIds: readonly string[];
  readonly proofCount: number;
  /** Newest `mentionedAt` of its facts. */
  readonly mentionedAt: string | null;
}

/**
 * Per-text analysis consolidation reuses: a fact's key terms and its sentences, keyed by its
 * text (the same text always gives the same terms and sentences). A caller may fill it
 * beforehand in slices; whatever is missing is computed, and kept, here.
 */
export interface TextAnalysisCache {
  readonly terms: Map<string, readonly string[]>;
  readonly sentences: Map<string, readonly string[]>;
  /**
   * One string per distinct term, shared by every text's terms: each text's tokenising made its
   * own copies, about 20 a fact, which at 100k facts were 60 MB of a pass's live heap.
   */
  readonly words: Interned<string>;
}

export const emptyTextAnalysisCache = (): TextAnalysisCache => ({ terms: new Map(), sentences: new Map(), words: new Interned((term) => term) });

/**
 * A retained conversation (pi messages as JSON) is read as what was said (`spokenText`): an
 * observation neither quotes JSON syntax (`"content": "…`) nor groups facts by its keys
 * (`role`, `content`, `text`).
 */
export const termsOfText = (cache: TextAnalysisCache, text: string): readonly string[] => {
  let terms = cache.terms.get(text);
  if (terms === undefined) {
    terms = keyTerms(spokenText(text)).map((term) => cache.words.of(term));
    cache.terms.set(text, terms);
  }
  return terms;
};

export const sentencesOfText = (cache: TextAnalysisCache, text: string): readonly string[] => {
  let split = cache.sentences.get(text);
  if (split === undefined) {
    split = sentences(spokenText(text));
    cache.sentences.set(text, split);
  }
  return split;
};

export interface ConsolidateOptions {
  readonly bankId: string;
  /** Terms and sentences already computed (a fact in many groups is split once). */
  readonly cache?: TextAnalysisCache;
  /** Most observations kept per scope (largest groups first). */
  readonly maxPerScope?: number;
  /** Most key terms one fact contributes (its rarest shared ones). */
  readonly termsPerFact?: number;
  /** Sentences quoted in an observation's text. */
  readonly maxSentences?: number;
}

const DEFAULT_MAX_PER_SCOPE = 200;
const DEFAULT_TERMS_PER_FACT = 3;
const DEFAULT_MAX_SENTENCES = 5;
const MAX_SENTENCE_CHARS = 240;
// all_combinations grows as 2^n: past this many tags a fact falls back to per_tag + combined.
const MAX_COMBINATION_TAGS = 6;

const sortedUnique = (tags: readonly string[]): string[] => [...new Set(tags)].sort();

const subsets = (tags: readonly string[]): string[][] => {
  const out: string[][] = [];
  for (let mask = 1; mask < 1 << tags.length; mask += 1) {
    out.push(tags.filter((_, i) => (mask & (1 << i)) !== 0));
  }
  return out;
};

/** The scopes (tag sets) a fact is consolidated in, per reference 3.4. */
export const scopesOf = (tags: readonly string[], scopes: ObservationScopes | null | undefined): string[][] => {
  const own = sortedUnique(tags);
  if (scopes === undefined || scopes === null || scopes === 'combined') return [own];
  if (scopes === 'shared') return [[]];
  if (scopes === 'per_tag') return own.length === 0 ? [[]] : own.map((tag) => [tag]);
  if (scopes === 'all_combinations') {
    if (own.length === 0) return [[]];
    if (own.length > MAX_COMBINATION_TAGS) return [...own.map((tag) => [tag]), own];
    return subsets(own);
  }
  // An explicit list; `[]` means zero scopes, which upstream treats as combined.
  if (scopes.length === 0) return [own];
  const seen = new Map<string, string[]>();
  for (const scope of scopes) {
    const set = sortedUnique(scope);
    seen.set(JSON.stringify(set), set);
  }
  return [...seen.values()];
};

/** A UUID-shaped id derived from its inputs, so the same group keeps the same id. */
export const stableUuid = (...parts: readonly string[]): string => {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  // Version 5 / RFC 4122 variant bits, so strict UUID parsers accept it.
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** One capitalised word ("Noted", "Port"), the shape a sentence's first word has whatever it is. */
const CAPITALISED_WORD = /^\p{Lu}\p{Ll}+$/u;
// What may stand before a sentence's first word inside one split sentence: a speaker label
// ("Assistant: Noted: ..."), an opening quote or bracket.
const OPENING = /(?:^|[:"'“‘([])\s*$/u;

const englishWords = new Map<string, boolean>();
/** An English word, in WordNet as itself or as a regular inflection ("noted", "sounds"), and no given name. */
const englishWord = (word: string): boolean => {
  const lower = word.toLowerCase();
  let known = englishWords.get(lower);
  if (known === undefined) {
    const bases = [lower, lower.replace(/(?:e?s|e?d|ing)$/u, ''), lower.replace(/(?:s|d|ing)$/u, '')];
    known = fullName(lower, true) === lower && bases.some((base) => base.length > 1 && isLemma(base));
    englishWords.set(lower, known);
  }
  return known;
};

const wordPatterns = new Map<string, RegExp>();
/**
 * Whether a name the extractor guessed is only an English word capitalised because it opens a
 * sentence ("Port 8443, from memory.", "Noted: the API ..."): it made an observation of its own
 * (`**Noted** (1 fact)`). Written capitalised anywhere else in the fact, it is a name and stays.
 * Only consolidation leaves it out: the fact keeps it as an entity, so recall is unchanged (taking
 * it out of extraction cost the coding set a top-3 answer, tenth session).
 */
const sentenceOpenerOnly = (entity: string, factSentences: readonly string[]): boolean => {
  if (!CAPITALISED_WORD.test(entity) || !englishWord(entity)) return false;
  let pattern = wordPatterns.get(entity);
  if (pattern === undefined) {
    pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${entity}(?![\\p{L}\\p{N}_])`, 'gu');
    if (wordPatterns.size < 10_000) wordPatterns.set(entity, pattern);
  }
  for (const sentence of factSentences) {
    for (const m of sentence.matchAll(pattern)) if (!OPENING.test(sentence.slice(0, m.index))) return false;
  }
  return true;
};

const TOOL_AS_NAME = /(?<![\p{L}\p{N}_])(\p{L}+)(?![\p{L}\p{N}_])/gu;
/**
 * Whether a tool name the extractor found is only the verb it also is: "Deploys go out every
 * Tuesday" was an observation headed **go**. A tool that is above all a verb ("go", "make";
 * `mostlyVerb`) heads an observation only where the fact writes it as a name: capitalised inside
 * a sentence ("in Go or Rust") or as code (`` `go test` ``). As with sentence openers, the fact
 * keeps the entity, so recall is unchanged.
 */
const verbOnly = (tool: string, text: string, factSentences: readonly string[]): boolean => {
  if (!/^[a-z]+$/iu.test(tool) || !mostlyVerb(tool.toLowerCase())) return false;
  if (new RegExp(`\`[^\`\n]*(?<![\\p{L}\\p{N}_])${tool}(?![\\p{L}\\p{N}_])[^\`\n]*\``, 'iu').test(text)) return false;
  for (const sentence of factSentences) {
    for (const m of sentence.matchAll(TOOL_AS_NAME)) {
      const word = m[1] ?? '';
      if (word.toLowerCase() === tool.toLowerCase() && CAPITALISED_WORD.test(word) && !OPENING.test(sentence.slice(0, m.index))) return false;
    }
  }
  return true;
};

const verbTerms = new Map<string, boolean>();
/** `onlyAVerb`, remembered: a scope asks about the same shared terms fact after fact. */
const verbTerm = (term: string): boolean => {
  let known = verbTerms.get(term);
  if (known === undefined) {
    known = onlyAVerb(term);
    if (verbTerms.size >= 50_000) verbTerms.clear();
    verbTerms.set(term, known);
  }
  return known;
};

const DETERMINER = 'the|a|an|this|that|these|those|each|every|our|your|their|its|my|his|her|no|any|next|last|first|one|another';
/**
 * Whether a sentence uses the word as a noun: after a determiner, with at most one word between
 * ("the deploy pipeline", "the staging deploys"), or plural at a sentence's start ("Deploys need
 * approval": a verb in -s never opens a sentence, the imperative is bare).
 */
const usedAsNoun = (term: string, factSentences: readonly string[]): boolean => {
  const word = term.replace(/[^\p{L}\p{N}]/gu, '');
  if (word !== term) return false;
  const afterDeterminer = new RegExp(`(?<![\\p{L}\\p{N}])(?:${DETERMINER})\\s+(?:\\p{L}+\\s+)?${word}(?:e?s)?(?![\\p{L}\\p{N}])`, 'iu');
  const pluralOpening = new RegExp(`^${word}e?s(?![\\p{L}\\p{N}])`, 'iu');
  return factSentences.some((sentence) => afterDeterminer.test(sentence) || pluralOpening.test(sentence));
};

interface Group {
  readonly key: string;
  readonly label: string;
  readonly match: (sentenceLower: string) => boolean;
  readonly facts: ObservationSourceFact[];
}

const compareFacts = (a: ObservationSourceFact, b: ObservationSourceFact): number => {
  const am = a.mentionedAt ?? '';
  const bm = b.mentionedAt ?? '';
  if (am !== bm) return am < bm ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

const clip = (sentence: string): string =>
  sentence.length <= MAX_SENTENCE_CHARS ? sentence : `${sentence.slice(0, MAX_SENTENCE_CHARS - 1).trimEnd()}…`;

const renderText = (group: Group, maxSentences: number, sentencesOf: (text: string) => readonly string[]): string => {
  const quoted: string[] = [];
  const seen = new Set<string>();
  for (const fact of group.facts) {
    // One past the shown ones is enough to know there are more; the count says how many.
    if (quoted.length > maxSentences) break;
    const all = sentencesOf(fact.text);
    const chosen = all.find((s) => group.match(s.toLowerCase())) ?? all[0];
    if (chosen === undefined) continue;
    const norm = chosen.toLowerCase();
    if (seen.has(norm)) continue;
    seen.add(norm);
    quoted.push(clip(chosen));
  }
  const shown = quoted.slice(0, maxSentences);
  const count = group.facts.length;
  const more = quoted.length > shown.length ? count - shown.length : 0;
  const header = `**${group.label}** (${count} ${count === 1 ? 'fact' : 'facts'})`;
  const lines = shown.map((s) => `- ${s}`);
  if (more > 0) lines.push(`- …and ${more} more`);
  return [header, ...lines].join('\n');
};

const newestMention = (facts: readonly ObservationSourceFact[]): string | null => {
  let newest: string | null = null;
  for (const fact of facts) {
    const m = fact.mentionedAt ?? null;
    if (m !== null && (newest === null || m > newest)) newest = m;
  }
  return newest;
};

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// Facts handled between two steps of a scope: one scope of a 100k bank is seconds of work,
// and a step is where a sliced run may hand the event loop back.
const FACTS_PER_STEP = 2_000;

/**
 * Groups one scope's facts. Three passes keep big banks cheap: count term frequencies, pick
 * each fact's keys and count group sizes, then collect facts only for the groups kept.
 */
function* groupScope(
  facts: readonly ObservationSourceFact[],
  termsOf: (fact: ObservationSourceFact) => readonly string[],
  sentencesOf: (text: string) => readonly string[],
  termsPerFact: number,
  maxGroups: number,
): Generator<undefined, Group[]> {
  const df = new Map<string, number>();
  for (const [i, fact] of facts.entries()) {
    if (i % FACTS_PER_STEP === FACTS_PER_STEP - 1) yield undefined;
    for (const term of termsOf(fact)) df.set(term, (df.get(term) ?? 0) + 1);
  }
  // A term in most facts of a big scope says nothing about any of them.
  const tooCommon = facts.length >= 5 ? Math.ceil(facts.length * 0.6) : Number.POSITIVE_INFINITY;

  const chosen: string[][] = [];
  const termKeys = new Map<string, string>();
  const size = new Map<string, number>();
  const labels = new Map<string, string>();
  for (const [i, fact] of facts.entries()) {
    if (i % FACTS_PER_STEP === FACTS_PER_STEP - 1) yield undefined;
    const keys: string[] = [];
    // A set, not `keys.includes`: a fact carries up to 256 entities, and a scope of 700
    // facts of one big item made that check 46 million comparisons in one step.
    const seenKeys = new Set<string>();
    for (const entity of fact.entities) {
      const name = entity.trim();
      if (name.length === 0) continue;
      const key = `entity:${name.toLowerCase()}`;
      if (seenKeys.has(key) || (fact.guessedNames?.has(name) === true && sentenceOpenerOnly(name, sentencesOf(fact.text)))) continue;
      if (fact.guessedTools?.has(name) === true && verbOnly(name, fact.text, sentencesOf(fact.text))) continue;
      seenKeys.add(key);
      keys.push(key);
      if (!labels.has(key)) labels.set(key, name);
    }
    // Rarest shared terms first (ties: first appearance): they name what a few facts share.
    const best: { term: string; count: number }[] = [];
    for (const term of termsOf(fact)) {
      const count = df.get(term) ?? 0;
      // A word WordNet knows only as a verb ("deploy") is what the facts do, not what they share:
      // it keys a fact only where the fact uses it as a noun ("the deploy pipeline").
      if (count < 2 || count >= tooCommon || (verbTerm(term) && !usedAsNoun(term, sentencesOf(fact.text)))) continue;
      let at = best.length;
      while (at > 0 && (best[at - 1]?.count ?? 0) > count) at -= 1;
      if (at >= termsPerFact) continue;
      best.splice(at, 0, { term, count });
      if (best.length > termsPerFact) best.pop();
    }
    for (const { term } of best) {
      // One key string per term, not one per fact that picks it.
      let key = termKeys.get(term);
      if (key === undefined) {
        key = `term:${term}`;
        termKeys.set(term, key);
      }
      keys.push(key);
    }
    for (const key of keys) size.set(key, (size.get(key) ?? 0) + 1);
    chosen.push(keys);
  }

  // A term group needs two facts to be a consolidation; an entity group is one by itself.
  const kept = [...size]
    .filter(([key, n]) => key.startsWith('entity:') || n >= 2)
    .sort(([a, n], [b, m]) => m - n || compareKeys(a, b))
    .slice(0, maxGroups);
  const groups = new Map<string, Group>();
  for (const [key] of kept) {
    const isEntity = key.startsWith('entity:');
    const needle = key.slice(key.indexOf(':') + 1);
    groups.set(key, { key, label: isEntity ? (labels.get(key) ?? needle) : needle, match: (s) => s.includes(needle), facts: [] });
  }
  facts.forEach((fact, i) => {
    for (const key of chosen[i] ?? []) groups.get(key)?.facts.push(fact);
  });
  return [...groups.values()];
}

/**
 * Consolidates the facts of one bank into observations, one scope per step: the generator
 * yields after each scope and returns the observations, so a caller can run it in slices
 * (`consolidateSliced`) or at once (`consolidate`). Observation facts in the input are
 * ignored (observations are never built from observations).
 */
export function* consolidateSteps(facts: readonly ObservationSourceFact[], options: ConsolidateOptions): Generator<undefined, Observation[]> {
  const maxPerScope = options.maxPerScope ?? DEFAULT_MAX_PER_SCOPE;
  const termsPerFact = options.termsPerFact ?? DEFAULT_TERMS_PER_FACT;
  const maxSentences = options.maxSentences ?? DEFAULT_MAX_SENTENCES;
  const byScope = new Map<string, { tags: string[]; facts: ObservationSourceFact[] }>();
  for (const [i, fact] of facts.entries()) {
    if (i % FACTS_PER_STEP === FACTS_PER_STEP - 1) yield undefined;
    if (fact.type === 'observation') continue;
    for (const scope of scopesOf(fact.tags, fact.observationScopes)) {
      const scopeKey = JSON.stringify(scope);
      const entry = byScope.get(scopeKey) ?? { tags: scope, facts: [] };
      entry.facts.push(fact);
      byScope.set(scopeKey, entry);
    }
  }
  // A fact in several scopes (per_tag, all_combinations) or groups is tokenised and split once.
  const cache = options.cache ?? emptyTextAnalysisCache();
  const termsOf = (fact: ObservationSourceFact): readonly string[] => termsOfText(cache, fact.text);
  const sentencesOf = (text: string): readonly string[] => sentencesOfText(cache, text);
  const out: Observation[] = [];
  for (const [scopeKey, scope] of [...byScope].sort(([a], [b]) => compareKeys(a, b))) {
    yield undefined;
    const ordered = [...scope.facts].sort(compareFacts);
    const groups = yield* groupScope(ordered, termsOf, sentencesOf, termsPerFact, maxPerScope);
    for (const group of groups) {
      out.push({
        id: stableUuid(options.bankId, scopeKey, group.key),
        key: group.key,
        text: renderText(group, maxSentences, sentencesOf),
        tags: scope.tags,
        sourceFactIds: group.facts.map((f) => f.id),
        proofCount: group.facts.length,
        mentionedAt: newestMention(group.facts),
      });
    }
  }
  return out;
}

/** `consolidateSteps` run to the end at once. */
export const consolidate = (facts: readonly ObservationSourceFact[], options: ConsolidateOptions): Observation[] => runAtOnce(consolidateSteps(facts, options));

/** What changed between two consolidations of one bank. */
export interface ObservationDiff {
  readonly upserts: readonly Observation[];
  readonly deletes: readonly string[];
}

const sameObservation = (a: Observation, b: Observation): boolean =>
  a.text === b.text &&
  a.proofCount === b.proofCount &&
  a.mentionedAt === b.mentionedAt &&
  a.sourceFactIds.join('\u0000') === b.sourceFactIds.join('\u0000') &&
  a.tags.join('\u0000') === b.tags.join('\u0000');

/** Observations to write and ids to remove to go from `previous` to `next`. */
export const diffObservations = (previous: readonly Observation[], next: readonly Observation[]): ObservationDiff => {
  const before = new Map(previous.map((o) => [o.id, o]));
  const after = new Set(next.map((o) => o.id));
  return {
    upserts: next.filter((o) => {
      const old = before.get(o.id);
      return old === undefined || !sameObservation(old, o);
    }),
    deletes: previous.filter((o) => !after.has(o.id)).map((o) => o.id),
  };
};
