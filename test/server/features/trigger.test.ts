import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { cronProblem } from '../../../src/server/features/cron.js';
import { responseSchemaProblem } from '../../../src/server/features/responseSchema.js';
import { normaliseTrigger, PAGE_DEFAULT_TRIGGER, refreshScope, Trigger, TriggerInput, triggerProblem } from '../../../src/server/features/trigger.js';

describe('cron validation', () => {
  it('accepts standard 5-field expressions with ranges, steps, lists and names', () => {
    for (const ok of ['0 3 * * *', '*/15 * * * *', '0 9-17 * * mon-fri', '5,35 0 1 jan,jul *', '0 0 * * 7']) expect(cronProblem(ok)).toBeUndefined();
  });
  it('names the problem of a bad expression', () => {
    expect(cronProblem('0 3 * *')).toContain('expected 5 fields');
    expect(cronProblem('60 * * * *')).toContain('minute');
    expect(cronProblem('0 0 * * */0')).toContain('step');
    expect(cronProblem('0 5-1 * * *')).toContain('backwards');
  });
});

describe('response_schema shape', () => {
  it('accepts an object schema with typed properties and known required names', () => {
    expect(responseSchemaProblem({ type: 'object', properties: { a: { type: 'string' }, b: { type: ['integer', 'null'] } }, required: ['a'] })).toBeUndefined();
  });
  it('refuses empty properties, untyped properties and unknown required names', () => {
    expect(responseSchemaProblem({ type: 'object', properties: {} })).toContain('non-empty');
    expect(responseSchemaProblem({ properties: { a: { description: 'x' } } })).toContain("'a'");
    expect(responseSchemaProblem({ properties: { a: { type: 'string' } }, required: ['b'] })).toContain('b');
    expect(responseSchemaProblem({ type: 'array', properties: { a: { type: 'string' } } })).toContain("'object'");
  });
});

describe('trigger', () => {
  it('fills every default and drops a blank cron', () => {
    expect(normaliseTrigger({ refresh_cron: '  ' })).toEqual({ mode: 'full', refresh_after_consolidation: false, exclude_mental_models: false, keep_trace: false });
    expect(normaliseTrigger(PAGE_DEFAULT_TRIGGER)).toMatchObject({ mode: 'delta', fact_types: ['observation'], exclude_mental_models: true, refresh_after_consolidation: true });
  });
  it('runs the model validators: cron syntax, cron vs refresh_after_consolidation, empty fact_types, response_schema', () => {
    expect(triggerProblem({ refresh_cron: 'nope' })?.loc).toEqual(['refresh_cron']);
    expect(triggerProblem({ refresh_cron: '0 3 * * *', refresh_after_consolidation: true })?.message).toContain('mutually exclusive');
    expect(triggerProblem({ fact_types: [] })?.loc).toEqual(['fact_types']);
    expect(triggerProblem({ response_schema: { properties: {} } })?.loc).toEqual(['response_schema']);
    expect(triggerProblem({ refresh_cron: '0 3 * * *', fact_types: ['world'] })).toBeUndefined();
  });
  it('refresh scope: groups replace the tags; tagged models default to all_strict, untagged to any', () => {
    const base = normaliseTrigger({});
    expect(refreshScope(['a'], base)).toEqual({ tags: ['a'], tagsMatch: 'all_strict' });
    expect(refreshScope([], base)).toEqual({ tagsMatch: 'any' });
    expect(refreshScope(['a'], normaliseTrigger({ tags_match: 'any' }))).toEqual({ tags: ['a'], tagsMatch: 'any' });
    expect(refreshScope(['a'], normaliseTrigger({ tag_groups: [{ tags: ['b'] }] }))).toEqual({ tagGroups: [{ tags: ['b'] }], tagsMatch: 'any' });
  });
  it('decoding never throws, and whatever decodes normalises into a valid stored trigger', () => {
    const anyValue = fc.oneof(fc.constant(null), fc.boolean(), fc.string(), fc.integer(), fc.array(fc.constantFrom('world', 'experience', 'observation', 'bogus')));
    const input = fc.dictionary(
      fc.constantFrom('mode', 'refresh_after_consolidation', 'refresh_cron', 'fact_types', 'exclude_mental_models', 'tags_match', 'keep_trace', 'include_chunks', 'other'),
      fc.oneof(anyValue, fc.constantFrom('full', 'delta', 'any', 'exact', '0 3 * * *')),
    );
    fc.assert(
      fc.property(input, (raw) => {
        const decoded = TriggerInput.decode(raw);
        if (E.isRight(decoded)) expect(E.isRight(Trigger.decode(normaliseTrigger(decoded.right)))).toBe(true);
      }),
    );
  });
});
