/**
 * What the observation pass keeps of a bank's facts while it groups them, without their texts.
 * A pass reads every fact of the bank; holding each one's text, terms (as strings, keyed by the
 * text), entities, tags and id copy for the whole pass was about 0.9 KB a fact of live heap (1.8 GB
 * of RSS at 1M). Here a fact is added once, its text analysed then and dropped: what grouping needs
 * of the text (its key terms, which of its verb terms it uses as nouns, which of its entities may
 * key it) is worked out at once, and kept as term numbers in one pooled array, interned strings and
 * the fact's number in its scopes' lists. The text is read again (from the store) only for the few
 * facts a kept group quotes.
 */
import { spokenText } from '../../codecs/conversationText.js';
import { keyTerms, sentences } from './terms.js';
import { Interned } from './interned.js';
import { isLemma, mostlyVerb, onlyAVerb } from '../search/wordnet.js';
import { fullName } from '../search/names.js';
import { verbOfPast } from '../search/irregularForms.js';

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
/** `onlyAVerb`, remembered: a bank's facts ask about the same terms fact after fact. */
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
const nounPatterns = new Map<string, readonly [RegExp, RegExp]>();
/**
 * Whether a sentence uses the word as a noun: after a determiner, with at most one word between
 * ("the deploy pipeline", "the staging deploys"), or plural at a sentence's start ("Deploys need
 * approval": a verb in -s never opens a sentence, the imperative is bare).
 */
const usedAsNoun = (term: string, factSentences: readonly string[]): boolean => {
  const word = term.replace(/[^\p{L}\p{N}]/gu, '');
  if (word !== term) return false;
  // Made once a word: every fact with the verb asks (no `g` flag, so `test` keeps no state).
  let patterns = nounPatterns.get(word);
  if (patterns === undefined) {
    patterns = [
      new RegExp(`(?<![\\p{L}\\p{N}])(?:${DETERMINER})\\s+(?:\\p{L}+\\s+)?${word}(?:e?s)?(?![\\p{L}\\p{N}])`, 'iu'),
      new RegExp(`^${word}e?s(?![\\p{L}\\p{N}])`, 'iu'),
    ];
    if (nounPatterns.size < 10_000) nounPatterns.set(word, patterns);
  }
  const [afterDeterminer, pluralOpening] = patterns;
  return factSentences.some((sentence) => afterDeterminer.test(sentence) || pluralOpening.test(sentence));
};

/**
 * Number words: a count is not what facts share ("twelve minutes", "twelve tables" made an
 * observation headed **twelve**). Digits never were terms; "one" and "two" are stopwords.
 */
const NUMBER_WORDS: ReadonlySet<string> = new Set(
  (
    'zero three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty ' +
    'thirty forty fifty sixty seventy eighty ninety hundred thousand million billion dozen half ' +
    'first third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth once twice'
  ).split(' '),
);

/**
 * Whether a term names nothing a person would recognise as a topic: a number word, or a verb's
 * past form ("ran", "went", "took": WordNet, which `onlyAVerb` asks, lists lemmas, and these are
 * none) the fact does not use as a noun. It stays in the fact's terms, so recall is unchanged;
 * it only never keys (heads) an observation.
 */
const headless = (term: string, factSentences: () => readonly string[]): boolean =>
  NUMBER_WORDS.has(term) || ((verbTerm(term) || verbOfPast(term) !== term) && !usedAsNoun(term, factSentences()));

/**
 * Whether a conversation's spoken text names the entity, as a whole word: the extractor reads
 * the stored JSON, where a tool call's name ("memory_seed_git") gave **git**, an observation
 * over sentences that never said it (sixth pass).
 */
const saysName = (spokenLower: string, name: string): boolean => {
  const lower = name.toLowerCase();
  let at = spokenLower.indexOf(lower);
  while (at >= 0) {
    const before = spokenLower.slice(Math.max(0, at - 1), at);
    const after = spokenLower.slice(at + lower.length, at + lower.length + 1);
    if (!/[\p{L}\p{N}_]/u.test(before) && !/[\p{L}\p{N}_]/u.test(after)) return true;
    at = spokenLower.indexOf(lower, at + 1);
  }
  return false;
};

/**
 * A line an observation may quote: it has words and is not JSON syntax (a chunk of a stored
 * message array cut between messages left lines such as "} ]," or `"stopReason": "stop"`, and
 * one was quoted under **git**).
 */
const quotable = (sentence: string): boolean => /\p{L}{2}/u.test(sentence) && !/^(?:[[\]{}]|"[^"]*"\s*:)/u.test(sentence);

/** The fact's sentences as an observation quotes them (a conversation's spoken text, split; no JSON syntax). */
export const sentencesOfText = (text: string): string[] => sentences(spokenText(text)).filter(quotable);

/** A scope's tag set and the numbers of its facts, in the order they were added. */
export interface InputScope {
  readonly tags: string[];
  readonly facts: number[];
}

/**
 * The facts of one pass, numbered in the order added. A term is kept as its number in `terms`;
 * a fact's terms are a run of `termPool`, in `keyTerms` order, a term the fact may not be keyed by
 * (a verb it does not use as a noun) stored as `~number`.
 */
export class ObservationInput {
  /** Each fact's id. */
  readonly ids: string[] = [];
  /** Each fact's `mentionedAt` (a bank has few distinct ones: each is kept once). */
  readonly mentioned: (string | null)[] = [];
  /** Each fact's entity keys (`entity:<lower>`) and the names they were written as, alternating; undefined for none. */
  readonly entities: (readonly string[] | undefined)[] = [];
  /** The scopes by their key (the tag set as JSON). */
  readonly scopes = new Map<string, InputScope>();
  /** Term number -> term. */
  readonly terms: string[] = [];
  private readonly termNumbers = new Map<string, number>();
  private termPool = new Int32Array(1 << 16);
  private termEnd = 0;
  private termStarts = new Int32Array(1 << 12);
  private readonly strings = new Interned<string>((s) => s);

  get size(): number {
    return this.ids.length;
  }

  /** The start of fact `n`'s run in `termPool`; its end is `start(n + 1)`. */
  start(n: number): number {
    return this.termStarts[n] ?? 0;
  }

  /** The pool of every fact's term numbers (read between `start(n)` and `start(n + 1)`). */
  pool(): Int32Array {
    return this.termPool;
  }

  /** Fact `n`'s key terms, as `keyTerms` gives them. */
  termsOf(n: number): string[] {
    const out: string[] = [];
    for (let at = this.start(n); at < this.start(n + 1); at++) {
      const t = this.termPool[at] ?? 0;
      out.push(this.terms[t < 0 ? ~t : t] ?? '');
    }
    return out;
  }

  private termNumber(term: string): number {
    let n = this.termNumbers.get(term);
    if (n === undefined) {
      n = this.terms.length;
      this.terms.push(term);
      this.termNumbers.set(term, n);
    }
    return n;
  }

  private pushTerm(value: number): void {
    if (this.termEnd === this.termPool.length) {
      const grown = new Int32Array(this.termPool.length * 2);
      grown.set(this.termPool);
      this.termPool = grown;
    }
    this.termPool[this.termEnd++] = value;
  }

  /**
   * Adds a fact (its text is analysed now and not kept; `id` may be a string held elsewhere, such
   * as the fact table's key). Returns its number, or -1 for an observation, which is never a source.
   */
  add(fact: ObservationSourceFact): number {
    if (fact.type === 'observation') return -1;
    const n = this.ids.length;
    const spoken = spokenText(fact.text);
    // A conversation (stored as JSON): only what was said may name its groups.
    const spokenLower = spoken === fact.text ? undefined : spoken.toLowerCase();
    let split: string[] | undefined;
    const sentencesNow = (): string[] => (split ??= sentences(spoken));

    // A set, not `includes`: a fact carries up to 256 entities.
    let entities: string[] | undefined;
    const seenKeys = new Set<string>();
    for (const entity of fact.entities) {
      const name = entity.trim();
      if (name.length === 0) continue;
      const key = `entity:${name.toLowerCase()}`;
      if (seenKeys.has(key) || (fact.guessedNames?.has(name) === true && sentenceOpenerOnly(name, sentencesNow()))) continue;
      if (fact.guessedTools?.has(name) === true && verbOnly(name, fact.text, sentencesNow())) continue;
      if (spokenLower !== undefined && !saysName(spokenLower, name)) continue;
      seenKeys.add(key);
      (entities ??= []).push(this.strings.of(key), this.strings.of(name));
    }

    if (n + 1 >= this.termStarts.length) {
      const grown = new Int32Array(this.termStarts.length * 2);
      grown.set(this.termStarts);
      this.termStarts = grown;
    }
    for (const term of keyTerms(spoken)) {
      const t = this.termNumber(term);
      // A word WordNet knows only as a verb ("deploy") is what the facts do, not what they share:
      // it keys a fact only where the fact uses it as a noun ("the deploy pipeline").
      // So does a number word or a past form ("ran"): `headless`.
      this.pushTerm(headless(term, sentencesNow) ? ~t : t);
    }
    this.termStarts[n + 1] = this.termEnd;

    this.ids.push(fact.id);
    this.mentioned.push(fact.mentionedAt === undefined || fact.mentionedAt === null ? null : this.strings.of(fact.mentionedAt));
    this.entities.push(entities);
    for (const scope of scopesOf(fact.tags, fact.observationScopes)) {
      const scopeKey = JSON.stringify(scope);
      let entry = this.scopes.get(scopeKey);
      if (entry === undefined) {
        entry = { tags: scope, facts: [] };
        this.scopes.set(scopeKey, entry);
      }
      entry.facts.push(n);
    }
    return n;
  }
}
