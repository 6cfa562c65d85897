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
import { runAtOnce } from '../slices.js';
import { ObservationInput, sentencesOfText } from './observationInput.js';
import type { ObservationSourceFact } from './observationInput.js';

export { ObservationInput, scopesOf } from './observationInput.js';
export type { ObservationScopes, ObservationSourceFact } from './observationInput.js';

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

export interface ConsolidateOptions {
  readonly bankId: string;
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

/** A UUID-shaped id derived from its inputs, so the same group keeps the same id. */
export const stableUuid = (...parts: readonly string[]): string => {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  // Version 5 / RFC 4122 variant bits, so strict UUID parsers accept it.
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

interface Group {
  readonly key: string;
  readonly label: string;
  /** What a quoted sentence (lower-cased) must contain. */
  readonly needle: string;
  /** The input's numbers of its facts. */
  readonly facts: number[];
}

const clip = (sentence: string): string =>
  sentence.length <= MAX_SENTENCE_CHARS ? sentence : `${sentence.slice(0, MAX_SENTENCE_CHARS - 1).trimEnd()}…`;

const renderText = (group: Group, maxSentences: number, sentencesOf: (fact: number) => readonly string[]): string => {
  const quoted: string[] = [];
  const seen = new Set<string>();
  for (const fact of group.facts) {
    // One past the shown ones is enough to know there are more; the count says how many.
    if (quoted.length > maxSentences) break;
    const all = sentencesOf(fact);
    const chosen = all.find((s) => s.toLowerCase().includes(group.needle)) ?? all[0];
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

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// Facts handled between two steps of a scope: one scope of a 100k bank is seconds of work,
// and a step is where a sliced run may hand the event loop back.
const FACTS_PER_STEP = 2_000;
// Groups rendered between two steps: each reads its quoted facts back from the store.
const GROUPS_PER_STEP = 20;

/** Counts per term number, shared by a pass's scopes and left all zero after each. */
interface Scratch {
  readonly df: Int32Array;
  /** A term's key number in the scope being grouped, plus one (0: none yet). */
  readonly termKey: Int32Array;
}

/** A growable run of numbers. */
class IntRun {
  values = new Int32Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Int32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
}

/**
 * Groups one scope's facts (numbers into `input`, in the scope's order). Three passes keep big
 * banks cheap: count term frequencies, pick each fact's keys and count group sizes, then collect
 * facts only for the groups kept. Exported for the test that asks V8 whether its optimised code survives.
 */
export function* groupScope(
  input: ObservationInput,
  facts: readonly number[],
  scratch: Scratch,
  termsPerFact: number,
  maxGroups: number,
): Generator<undefined, Group[]> {
  const pool = input.pool();
  const { df, termKey } = scratch;
  for (const [i, n] of facts.entries()) {
    if (i % FACTS_PER_STEP === FACTS_PER_STEP - 1) yield undefined;
    for (let at = input.start(n); at < input.start(n + 1); at++) {
      const t = pool[at] ?? 0;
      const term = t < 0 ? ~t : t;
      df[term] = (df[term] ?? 0) + 1;
    }
  }
  // A term in most facts of a big scope says nothing about any of them.
  const tooCommon = facts.length >= 5 ? Math.ceil(facts.length * 0.6) : Number.POSITIVE_INFINITY;

  // Keys by number: `entity:<name>` or `term:<term>`, how many facts chose each, and its label.
  const keys: string[] = [];
  const sizes: number[] = [];
  const labels: string[] = [];
  const entityKeys = new Map<string, number>();
  const newKey = (key: string, label: string): number => {
    keys.push(key);
    sizes.push(0);
    labels.push(label);
    return keys.length - 1;
  };
  // Each fact's chosen keys: a run of `chosen` from `chosenStarts[i]`.
  const chosen = new IntRun();
  const chosenStarts = new Int32Array(facts.length + 1);
  const best: { term: number; count: number }[] = [];
  for (const [i, n] of facts.entries()) {
    if (i % FACTS_PER_STEP === FACTS_PER_STEP - 1) yield undefined;
    const entities = input.entities[n];
    if (entities !== undefined) {
      for (let e = 0; e < entities.length; e += 2) {
        const key = entities[e] ?? '';
        let k = entityKeys.get(key);
        if (k === undefined) {
          // Labelled as the first fact in the scope's order wrote it.
          k = newKey(key, entities[e + 1] ?? '');
          entityKeys.set(key, k);
        }
        chosen.push(k);
      }
    }
    // Rarest shared terms first (ties: first appearance): they name what a few facts share.
    best.length = 0;
    for (let at = input.start(n); at < input.start(n + 1); at++) {
      const term = pool[at] ?? 0;
      // Negative: a verb the fact does not use as a noun, which never keys it.
      if (term < 0) continue;
      const count = df[term] ?? 0;
      if (count < 2 || count >= tooCommon) continue;
      let place = best.length;
      while (place > 0 && (best[place - 1]?.count ?? 0) > count) place -= 1;
      if (place >= termsPerFact) continue;
      best.splice(place, 0, { term, count });
      if (best.length > termsPerFact) best.pop();
    }
    for (const { term } of best) {
      let k = (termKey[term] ?? 0) - 1;
      if (k < 0) {
        const name = input.terms[term] ?? '';
        k = newKey(`term:${name}`, name);
        termKey[term] = k + 1;
      }
      chosen.push(k);
    }
    for (let at = chosenStarts[i] ?? 0; at < chosen.length; at++) {
      const k = chosen.values[at] ?? 0;
      sizes[k] = (sizes[k] ?? 0) + 1;
    }
    chosenStarts[i + 1] = chosen.length;
  }
  for (const n of facts) {
    for (let at = input.start(n); at < input.start(n + 1); at++) {
      const t = pool[at] ?? 0;
      const term = t < 0 ? ~t : t;
      df[term] = 0;
      termKey[term] = 0;
    }
  }

  // A term group needs two facts to be a consolidation; an entity group is one by itself.
  // The arrays below are pushed into from `[]`, not made by `.map`/`.filter`/`.slice`: what those
  // return had one elements kind or another with the scope (empty, small integers), and V8 threw
  // this function's optimised code away 16-25 times in a young server's first 300 recalls ("wrong
  // map"). The order is the same: the comparison is total (keys are unique in a scope).
  const kept: number[] = [];
  for (let k = 0; k < keys.length; k++) if ((keys[k] ?? '').startsWith('entity:') || (sizes[k] ?? 0) >= 2) kept.push(k);
  kept.sort((a, b) => (sizes[b] ?? 0) - (sizes[a] ?? 0) || compareKeys(keys[a] ?? '', keys[b] ?? ''));
  const groupOf = new Int32Array(keys.length).fill(-1);
  const groups: Group[] = [];
  for (let g = 0; g < kept.length && g < maxGroups; g++) {
    const k = kept[g] ?? 0;
    groupOf[k] = g;
    const key = keys[k] ?? '';
    groups.push({ key, label: labels[k] ?? '', needle: key.slice(key.indexOf(':') + 1), facts: [] });
  }
  for (const [i, n] of facts.entries()) {
    for (let at = chosenStarts[i] ?? 0; at < (chosenStarts[i + 1] ?? 0); at++) {
      const g = groupOf[chosen.values[at] ?? 0] ?? -1;
      if (g >= 0) groups[g]?.facts.push(n);
    }
  }
  return groups;
}

/**
 * Consolidates a pass's facts into observations, one scope per step: the generator yields after
 * each scope and returns the observations, so a caller can run it in slices. `textOf` gives a
 * fact's text by its number in `input`; it is asked only for the facts the kept groups quote.
 */
export function* consolidateInput(input: ObservationInput, textOf: (fact: number) => string, options: ConsolidateOptions): Generator<undefined, Observation[]> {
  const maxPerScope = options.maxPerScope ?? DEFAULT_MAX_PER_SCOPE;
  const termsPerFact = options.termsPerFact ?? DEFAULT_TERMS_PER_FACT;
  const maxSentences = options.maxSentences ?? DEFAULT_MAX_SENTENCES;
  const scratch: Scratch = { df: new Int32Array(input.terms.length), termKey: new Int32Array(input.terms.length) };
  const { ids, mentioned } = input;
  // By mentionedAt, then id.
  const compareFacts = (a: number, b: number): number => {
    const am = mentioned[a] ?? '';
    const bm = mentioned[b] ?? '';
    if (am !== bm) return am < bm ? -1 : 1;
    const ai = ids[a] ?? '';
    const bi = ids[b] ?? '';
    return ai < bi ? -1 : ai > bi ? 1 : 0;
  };
  const newestMention = (facts: readonly number[]): string | null => {
    let newest: string | null = null;
    for (const fact of facts) {
      const m = mentioned[fact] ?? null;
      if (m !== null && (newest === null || m > newest)) newest = m;
    }
    return newest;
  };
  const out: Observation[] = [];
  for (const [scopeKey, scope] of [...input.scopes].sort(([a], [b]) => compareKeys(a, b))) {
    yield undefined;
    const ordered = [...scope.facts].sort(compareFacts);
    const groups = yield* groupScope(input, ordered, scratch, termsPerFact, maxPerScope);
    // A fact several groups quote is read and split once a scope.
    const split = new Map<number, readonly string[]>();
    const sentencesOf = (fact: number): readonly string[] => {
      let found = split.get(fact);
      if (found === undefined) {
        found = sentencesOfText(textOf(fact));
        split.set(fact, found);
      }
      return found;
    };
    for (const [g, group] of groups.entries()) {
      if (g % GROUPS_PER_STEP === GROUPS_PER_STEP - 1) yield undefined;
      out.push({
        id: stableUuid(options.bankId, scopeKey, group.key),
        key: group.key,
        text: renderText(group, maxSentences, sentencesOf),
        tags: scope.tags,
        sourceFactIds: group.facts.map((n) => ids[n] ?? ''),
        proofCount: group.facts.length,
        mentionedAt: newestMention(group.facts),
      });
    }
  }
  return out;
}

/**
 * Consolidates the facts of one bank into observations (`consolidateInput` over them), in steps:
 * a caller can run it in slices (`runSliced`) or at once (`consolidate`). Observation facts in the
 * input are ignored (observations are never built from observations).
 */
export function* consolidateSteps(facts: readonly ObservationSourceFact[], options: ConsolidateOptions): Generator<undefined, Observation[]> {
  const input = new ObservationInput();
  const texts: string[] = [];
  for (const [i, fact] of facts.entries()) {
    if (i % FACTS_PER_STEP === FACTS_PER_STEP - 1) yield undefined;
    if (input.add(fact) >= 0) texts.push(fact.text);
  }
  return yield* consolidateInput(input, (n) => texts[n] ?? '', options);
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
