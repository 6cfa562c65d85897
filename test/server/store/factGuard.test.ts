import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFactRecord } from '../../../src/server/store/factGuard.js';
import { FactRecord } from '../../../src/server/store/model.js';

// Each field either absent, of its type, or of another: the written-out guard must answer as the codec.
const anyValue = fc.oneof(fc.string(), fc.constant(null), fc.constant(undefined), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.string(), { maxKeys: 2 }));
const field = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: anyValue });
const strings = fc.array(fc.oneof({ weight: 5, arbitrary: fc.string() }, { weight: 1, arbitrary: anyValue }), { maxLength: 3 });
const entity = fc.oneof(
  { weight: 4, arbitrary: fc.record({ text: field(fc.string()), type: field(fc.string()) }, { requiredKeys: ['text'] }) },
  { weight: 1, arbitrary: anyValue },
);
const fact = fc.record(
  {
    id: field(fc.string()),
    text: field(fc.string()),
    fact_type: field(fc.constantFrom('world', 'experience', 'observation', 'opinion', 'toString', '')),
    document_id: field(fc.option(fc.string(), { nil: null })),
    chunk_id: field(fc.option(fc.string(), { nil: null })),
    tags: field(strings),
    created_at: field(fc.string()),
    context: field(fc.string()),
    metadata: field(fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof({ weight: 5, arbitrary: fc.string() }, { weight: 1, arbitrary: anyValue }), { maxKeys: 3 })),
    mentioned_at: field(fc.string()),
    occurred_start: field(fc.string()),
    occurred_end: field(fc.string()),
    entities: field(fc.array(entity, { maxLength: 3 })),
    source_fact_ids: field(strings),
    state: field(fc.constantFrom('valid', 'invalidated', 'deleted', 'hasOwnProperty')),
    invalidation_reason: field(fc.string()),
    invalidated_at: field(fc.string()),
    edited_at: field(fc.string()),
  },
  { requiredKeys: [] },
);

describe('isFactRecord', () => {
  it('answers as FactRecord.is on generated records, valid and not', () => {
    fc.assert(
      fc.property(fact, (u) => {
        expect(isFactRecord(u)).toBe(FactRecord.is(u));
      }),
      { numRuns: 5000 },
    );
  });

  it('answers as FactRecord.is on values that are no record', () => {
    fc.assert(
      fc.property(fc.oneof(anyValue, fc.array(fact, { maxLength: 2 })), (u) => {
        expect(isFactRecord(u)).toBe(FactRecord.is(u));
      }),
    );
  });

  it('keeps a stored fact and refuses one with a field of the wrong type', () => {
    const stored = { id: 'f1', text: 'the deploy moved to friday', fact_type: 'world', document_id: 'd1', chunk_id: null, tags: ['a'], created_at: '2026-11-28T08:00:00.000+00:00', entities: [{ text: 'friday', type: 'DATE' }], metadata: { source: 'chat' } };
    expect(isFactRecord(stored)).toBe(true);
    expect(isFactRecord({ ...stored, tags: ['a', 1] })).toBe(false);
    expect(isFactRecord({ ...stored, entities: [{ type: 'DATE' }] })).toBe(false);
    expect(isFactRecord({ ...stored, metadata: { n: 1 } })).toBe(false);
    expect(isFactRecord({ ...stored, state: 'deleted' })).toBe(false);
    expect(isFactRecord({ ...stored, fact_type: 'opinion' })).toBe(false);
  });
});
