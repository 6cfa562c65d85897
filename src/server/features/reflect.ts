/**
 * Extractive reflect (reference 8.4): the answer is assembled from what recall and the
 * mental-model search found, in rank order, with no LLM. The text is deterministic
 * markdown: a heading with the question, the directives in force, the best mental-model
 * excerpts, then one bullet per fact, cut at `max_tokens` (stopping at the first part that
 * would overflow, like recall). `based_on`, `trace` and `usage` follow the 0.9.1 shapes.
 */
import { saidLine } from '../../codecs/conversationText.js';
import { estimateTokens, keyTerms, sentences } from './terms.js';

export interface ReflectFactInput {
  readonly id: string;
  readonly text: string;
  readonly type?: string | undefined;
  readonly context?: string | null | undefined;
  readonly occurred_start?: string | null | undefined;
  readonly occurred_end?: string | null | undefined;
  readonly mentioned_at?: string | null | undefined;
}

export interface ReflectModelInput {
  readonly id: string;
  readonly name: string;
  readonly content: string;
  readonly tags: readonly string[];
}

export interface ReflectDirectiveInput {
  readonly id: string;
  readonly name: string;
  readonly content: string;
}

export interface ToolTiming {
  readonly durationMs: number;
}

export interface ComposeReflectInput {
  readonly query: string;
  /** Recalled facts in rank order (already scoped by tags and fact types). */
  readonly facts: readonly ReflectFactInput[];
  /** Matching mental models in rank order; empty when excluded. */
  readonly models: readonly ReflectModelInput[];
  readonly modelsSearched: boolean;
  readonly directives: readonly ReflectDirectiveInput[];
  readonly maxTokens: number;
  readonly includeFacts: boolean;
  /** `include.tool_calls`: null = no trace. */
  readonly toolCalls: { readonly output: boolean } | null;
  /** Inputs and durations of the two searches, for the trace. */
  readonly recallInput: Record<string, unknown>;
  readonly modelSearchInput: Record<string, unknown>;
  readonly recallMs: number;
  readonly modelSearchMs: number;
}

export interface ReflectBody {
  text: string;
  based_on?: {
    memories: { id: string; text: string; type?: string; context?: string; occurred_start?: string; occurred_end?: string }[];
    mental_models: { id: string; text: string }[];
    directives: { id: string; name: string; content: string }[];
  };
  usage: { input_tokens: 0; output_tokens: 0; total_tokens: 0; cached_tokens: 0; thoughts_tokens: 0 };
  trace?: {
    tool_calls: { tool: string; input: Record<string, unknown>; output?: Record<string, unknown>; duration_ms: number; iteration: number }[];
    llm_calls: never[];
  };
}

/** The sentence the answer gives when nothing in the bank matched. */
export const NOTHING_FOUND = 'No relevant memories were found for this question.';

const MODEL_EXCERPT_SENTENCES = 3;

const oneLine = (text: string): string => text.replace(/\s+/gu, ' ').trim();

const factLine = (fact: ReflectFactInput): string => {
  const notes: string[] = [];
  const when = fact.occurred_start ?? fact.mentioned_at ?? null;
  if (when !== null && when.length >= 10) notes.push(when.slice(0, 10));
  if (fact.context !== undefined && fact.context !== null && fact.context.length > 0) notes.push(oneLine(fact.context));
  const suffix = notes.length > 0 ? ` _(${notes.join(', ')})_` : '';
  // A retained turn is a JSON array of messages: quoted as who said what, not as JSON.
  return `- ${oneLine(saidLine(fact.text))}${suffix}`;
};

/** The sentences of a model's content that share the most terms with the query, in content order. */
export const modelExcerpt = (query: string, content: string, limit = MODEL_EXCERPT_SENTENCES): string => {
  const wanted = new Set(keyTerms(query));
  const all = sentences(content).filter((s) => s !== '---' && !s.startsWith('#'));
  const scored = all.map((s, i) => ({ s, i, score: keyTerms(s).filter((t) => wanted.has(t)).length }));
  const best = [...scored].sort((a, b) => b.score - a.score || a.i - b.i).slice(0, limit);
  return best
    .sort((a, b) => a.i - b.i)
    .map((e) => oneLine(e.s))
    .join(' ');
};

/**
 * Ranks mental models against a query by shared key terms (name counts double), dropping
 * models that share none. Ties keep the input order.
 */
export const rankModels = <M extends ReflectModelInput>(query: string, models: readonly M[], limit: number): M[] => {
  const wanted = new Set(keyTerms(query));
  return models
    .map((model, index) => {
      const inName = keyTerms(model.name).filter((t) => wanted.has(t)).length;
      const inContent = keyTerms(model.content).filter((t) => wanted.has(t)).length;
      return { model, index, score: inName * 2 + inContent };
    })
    .filter((e) => e.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((e) => e.model);
};

interface Section {
  readonly heading: string;
  readonly lines: readonly string[];
}

/** Joins sections under `max_tokens`, stopping at the first line that would overflow. */
const renderWithin = (title: string, sections: readonly Section[], maxTokens: number): { text: string; shown: Set<string> } => {
  const shown = new Set<string>();
  const parts: string[] = [title];
  let used = estimateTokens(title);
  outer: for (const section of sections) {
    if (section.lines.length === 0) continue;
    const headingCost = estimateTokens(`\n\n${section.heading}\n`);
    let headed = false;
    for (const line of section.lines) {
      const cost = estimateTokens(`${line}\n`) + (headed ? 0 : headingCost);
      if (used + cost > maxTokens) break outer;
      if (!headed) parts.push(`\n\n${section.heading}\n`);
      else parts.push('\n');
      parts.push(line);
      headed = true;
      used += cost;
      shown.add(line);
    }
  }
  return { text: parts.join(''), shown };
};

const compact = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T;

type BasedOnFact = NonNullable<ReflectBody['based_on']>['memories'][number];

const basedOnFact = (f: ReflectFactInput): BasedOnFact => {
  const out: BasedOnFact = { id: f.id, text: f.text };
  if (f.type !== undefined) out.type = f.type;
  if (f.context !== undefined && f.context !== null) out.context = f.context;
  if (f.occurred_start !== undefined && f.occurred_start !== null) out.occurred_start = f.occurred_start;
  if (f.occurred_end !== undefined && f.occurred_end !== null) out.occurred_end = f.occurred_end;
  return out;
};

/** Builds the ReflectResponse body. */
export const composeReflect = (input: ComposeReflectInput): ReflectBody => {
  const title = `## ${oneLine(input.query)}`;
  const directiveLines = input.directives.map((d) => `- **${oneLine(d.name)}**: ${oneLine(d.content)}`);
  const modelLines = input.models.map((m) => `- **${oneLine(m.name)}**: ${modelExcerpt(input.query, m.content)}`);
  const factLines = input.facts.map(factLine);
  const nothing = input.models.length === 0 && input.facts.length === 0;
  const sections: Section[] = [
    { heading: '### Directives', lines: directiveLines },
    { heading: '### From mental models', lines: modelLines },
    { heading: '### From memories', lines: factLines },
  ];
  const rendered = nothing
    ? renderWithin(title, [...sections.slice(0, 1), { heading: '', lines: [NOTHING_FOUND] }], Math.max(input.maxTokens, 0))
    : renderWithin(title, sections, Math.max(input.maxTokens, 0));
  // `based_on` lists only what made it into the answer, as upstream validates citations.
  const usedModels = input.models.filter((_, i) => rendered.shown.has(modelLines[i] ?? ''));
  const usedFacts = input.facts.filter((_, i) => rendered.shown.has(factLines[i] ?? ''));
  const body: ReflectBody = {
    text: rendered.text.replace(/\n\n\n/gu, '\n\n'),
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0, cached_tokens: 0, thoughts_tokens: 0 },
  };
  if (input.includeFacts) {
    body.based_on = {
      memories: usedFacts.map(basedOnFact),
      mental_models: usedModels.map((m) => ({ id: m.id, text: m.content })),
      directives: input.directives.map((d) => ({ id: d.id, name: d.name, content: d.content })),
    };
  }
  if (input.toolCalls !== null) {
    const withOutput = input.toolCalls.output;
    const calls: NonNullable<ReflectBody['trace']>['tool_calls'] = [];
    if (input.modelSearchInput !== undefined && input.modelsSearched) {
      calls.push({
        tool: 'search_mental_models',
        input: input.modelSearchInput,
        ...(withOutput ? { output: { mental_models: input.models.map((m) => ({ id: m.id, name: m.name })) } } : {}),
        duration_ms: Math.round(input.modelSearchMs),
        iteration: 1,
      });
    }
    calls.push({
      tool: 'recall',
      input: input.recallInput,
      ...(withOutput ? { output: { memories: input.facts.map((f) => compact({ id: f.id, text: f.text, type: f.type })) } } : {}),
      duration_ms: Math.round(input.recallMs),
      iteration: 1,
    });
    body.trace = { tool_calls: calls, llm_calls: [] };
  }
  return body;
};
