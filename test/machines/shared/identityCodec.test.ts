import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';
import { decodesToItself, registerIdentityCodec } from '../../../src/codecs/identityCodec.js';
import { decodeWith } from '../../../src/codecs/decode.js';
import { JournalRecord, JsonValue, nullable } from '../../../src/codecs/codecs.js';
import { KnowledgeNode, RecallResult, RetainRequest, VersionInfo } from '../../../src/wire/hindsight.js';
import { TagGroup } from '../../../src/config/tagFilter.js';
import { SessionEvent } from '../../../src/machines/session/events.js';
import { RetainTimestamp } from '../../../src/server/retain/codecs.js';

const Trimmed = new t.Type<string, string, unknown>(
  'Trimmed',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' ? t.success(u.trim()) : t.failure(u, c)),
  t.identity,
);

describe('decodesToItself', () => {
  it('accepts the wire schema, the gate events and recursive codecs built from io-ts combinators', () => {
    for (const codec of [RecallResult, RetainRequest, VersionInfo, KnowledgeNode, TagGroup, SessionEvent, JournalRecord, JsonValue]) {
      expect(decodesToItself(codec as t.Mixed), codec.name).toBe(true);
    }
  });

  it('refuses anything that may transform: custom types, exact, readonly, and what contains them', () => {
    expect(decodesToItself(Trimmed)).toBe(false);
    expect(decodesToItself(RetainTimestamp)).toBe(false);
    expect(decodesToItself(t.exact(t.type({ a: t.string })))).toBe(false);
    expect(decodesToItself(t.readonly(t.type({ a: t.string })))).toBe(false);
    expect(decodesToItself(t.type({ a: t.array(nullable(Trimmed)) }))).toBe(false);
    expect(decodesToItself(t.union([t.string, t.exact(t.type({}))]))).toBe(false);
  });

  it('accepts a custom type once its module registers it', () => {
    const Opaque = new t.Type<string, string, unknown>('Opaque', (u): u is string => typeof u === 'string', (u, c) => (typeof u === 'string' ? t.success(u) : t.failure(u, c)), t.identity);
    expect(decodesToItself(t.array(Opaque))).toBe(false);
    registerIdentityCodec(Opaque);
    expect(decodesToItself(Opaque)).toBe(true);
  });
});

describe('decodeWith over an identity codec', () => {
  const hit = fc.record(
    {
      id: fc.string(),
      text: fc.string(),
      type: fc.option(fc.constantFrom('world', 'experience', 'observation'), { nil: null }),
      tags: fc.option(fc.array(fc.string()), { nil: null }),
      mentioned_at: fc.option(fc.string(), { nil: null }),
      scores: fc.option(fc.record({ final: fc.double({ noNaN: true }) }), { nil: null }),
    },
    { requiredKeys: ['id', 'text'] },
  );
  // Valid answers, and answers with one field broken in a way the codec must refuse.
  const answer = fc.oneof(
    fc.record({ results: fc.array(hit, { maxLength: 6 }) }),
    fc.record({ results: fc.array(fc.oneof(hit, fc.record({ id: fc.integer(), text: fc.string() })), { maxLength: 6 }) }),
    fc.record({ results: fc.constant(null) }),
    fc.anything(),
  );

  it('answers exactly as the full decode: the same value on success, the same error on failure', () => {
    const quick = decodeWith(RecallResult, 'POST recall response');
    fc.assert(
      fc.property(answer, (input) => {
        const full = RecallResult.decode(input);
        const fast = quick(input);
        expect(E.isRight(fast)).toBe(E.isRight(full));
        if (E.isRight(fast) && E.isRight(full)) expect(fast.right).toEqual(full.right);
        if (E.isLeft(fast)) expect(fast.left.source).toBe('POST recall response');
      }),
      { numRuns: 500 },
    );
  });

  it('still names the bad field of a refused value', () => {
    const result = decodeWith(RecallResult, 'POST recall')({ results: [{ id: 'a', text: 'ok' }, { id: 'b', text: 7 }] });
    if (E.isRight(result)) throw new Error('expected a failure');
    expect(result.left.issues.map((i) => i.path)).toEqual(['results.1.text']);
  });

  it('decodes a transforming codec in full', () => {
    const decoded = decodeWith(t.type({ name: Trimmed }), 'x')({ name: '  pi  ' });
    expect(decoded).toEqual(E.right({ name: 'pi' }));
  });
});
