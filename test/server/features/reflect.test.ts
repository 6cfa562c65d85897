import { describe, expect, it } from 'vitest';
import { composeReflect, modelExcerpt, NOTHING_FOUND, rankModels } from '../../../src/server/features/reflect.js';
import type { ComposeReflectInput } from '../../../src/server/features/reflect.js';

const base: ComposeReflectInput = {
  query: 'How do we deploy?',
  facts: [
    { id: 'f1', text: 'Deploys run through GitHub Actions.', type: 'world', context: 'ci', mentioned_at: '2026-01-02T00:00:00Z' },
    { id: 'f2', text: 'Staging approval is required before deploy.', type: 'experience' },
  ],
  models: [{ id: 'm1', name: 'Deploy process', content: 'We deploy on Fridays. Lunch is at noon. Rollbacks use the previous tag.', tags: [] }],
  modelsSearched: true,
  directives: [{ id: 'd1', name: 'Tone', content: 'Answer briefly.' }],
  maxTokens: 4096,
  includeFacts: true,
  toolCalls: { output: true },
  recallInput: { query: 'How do we deploy?' },
  modelSearchInput: { query: 'How do we deploy?' },
  recallMs: 1.4,
  modelSearchMs: 0.2,
};

describe('composeReflect', () => {
  it('answers with a heading, directives, model excerpts and one bullet per fact in rank order', () => {
    const out = composeReflect(base);
    expect(out.text.startsWith('## How do we deploy?\n\n### Directives\n- **Tone**: Answer briefly.')).toBe(true);
    expect(out.text).toContain('### From mental models\n- **Deploy process**: We deploy on Fridays.');
    const f1 = out.text.indexOf('GitHub Actions');
    const f2 = out.text.indexOf('Staging approval');
    expect(f1).toBeGreaterThan(0);
    expect(f2).toBeGreaterThan(f1);
    expect(out.text).toContain('_(2026-01-02, ci)_');
  });

  it('based_on lists the facts, models and directives used, without nulls', () => {
    const out = composeReflect(base);
    expect(out.based_on?.memories).toEqual([
      { id: 'f1', text: 'Deploys run through GitHub Actions.', type: 'world', context: 'ci' },
      { id: 'f2', text: 'Staging approval is required before deploy.', type: 'experience' },
    ]);
    expect(out.based_on?.mental_models).toEqual([{ id: 'm1', text: base.models[0]?.content }]);
    expect(out.based_on?.directives).toEqual([{ id: 'd1', name: 'Tone', content: 'Answer briefly.' }]);
  });

  it('omits based_on without include.facts and the trace without include.tool_calls', () => {
    const out = composeReflect({ ...base, includeFacts: false, toolCalls: null });
    expect(out.based_on).toBeUndefined();
    expect(out.trace).toBeUndefined();
    expect(out.usage.total_tokens).toBe(0);
  });

  it('trace has search_mental_models then recall at iteration 1, outputs dropped with output:false', () => {
    const out = composeReflect({ ...base, toolCalls: { output: false } });
    expect(out.trace?.tool_calls.map((c) => c.tool)).toEqual(['search_mental_models', 'recall']);
    expect(out.trace?.tool_calls.every((c) => c.output === undefined && c.iteration === 1)).toBe(true);
    expect(out.trace?.llm_calls).toEqual([]);
    const withOutput = composeReflect(base);
    expect(withOutput.trace?.tool_calls[1]?.output).toEqual({ memories: [{ id: 'f1', text: 'Deploys run through GitHub Actions.', type: 'world' }, { id: 'f2', text: 'Staging approval is required before deploy.', type: 'experience' }] });
  });

  it('stops at the first line that would overflow max_tokens and cites only what was shown', () => {
    const out = composeReflect({ ...base, directives: [], models: [], maxTokens: 30 });
    expect(out.text).toContain('GitHub Actions');
    expect(out.text).not.toContain('Staging');
    expect(out.based_on?.memories.map((m) => m.id)).toEqual(['f1']);
  });

  it('says so in a fixed sentence when nothing matched', () => {
    const out = composeReflect({ ...base, facts: [], models: [], directives: [] });
    expect(out.text).toBe(`## How do we deploy?\n\n${NOTHING_FOUND}`);
    expect(out.based_on).toEqual({ memories: [], mental_models: [], directives: [] });
  });
});

describe('rankModels and modelExcerpt', () => {
  const models = [
    { id: 'a', name: 'Cooking', content: 'Pasta needs salt.', tags: [] },
    { id: 'b', name: 'Deploy', content: 'Deploy with care.', tags: [] },
    { id: 'c', name: 'Release', content: 'The deploy is weekly.', tags: [] },
  ];
  it('ranks by shared terms (name counts double) and drops models sharing none', () => {
    expect(rankModels('deploy steps', models, 10).map((m) => m.id)).toEqual(['b', 'c']);
    expect(rankModels('deploy steps', models, 1).map((m) => m.id)).toEqual(['b']);
  });
  it('excerpts the sentences that share most terms, in content order', () => {
    expect(modelExcerpt('when do we deploy', 'Intro here. We deploy weekly. Other stuff. Deploy needs approval.', 2)).toBe('We deploy weekly. Deploy needs approval.');
  });
});
