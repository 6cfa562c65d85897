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
import { RetainRequest as ServerRetainRequest, RetainTimestamp } from '../../../src/server/retain/codecs.js';
import { decodeOr422 } from '../../../src/server/http/validation.js';

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

describe("the server's retain request: checked by `is` when well formed", () => {
  it('is made of identity codecs only (its custom types are registered)', () => {
    expect(decodesToItself(ServerRetainRequest)).toBe(true);
  });

  it('RetainTimestamp accepts by `is` exactly the strings that decode to themselves', () => {
    const samples = fc.oneof(fc.constantFrom('unset', 'UNSET', 'Unset', '2024-01-02', '2024-01-02T03:04:05Z', '2024-01-02 03:04:05.123+02:00', '2024-13-45', '2024-02-30T00:00:00Z', ''), fc.string());
    fc.assert(
      fc.property(samples, (s) => {
        const decoded = RetainTimestamp.decode(s);
        expect(RetainTimestamp.is(s)).toBe(E.isRight(decoded) && decoded.right === s);
      }),
      { numRuns: 500 },
    );
  });

  it('decodeOr422 gives what the full decode gives: the same value, or a 422', () => {
    const item = fc.record(
      {
        content: fc.oneof(fc.string(), fc.constant('  '), fc.integer()),
        timestamp: fc.oneof(fc.constantFrom('unset', 'UNSET', '2024-01-02T03:04:05Z', 'yesterday'), fc.constant(null)),
        tags: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), fc.constant('["a","b"]'), fc.constant('solo'), fc.constant(null), fc.constant([1])),
        document_id: fc.oneof(fc.string(), fc.constant(null)),
        metadata: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.constant(null), fc.constant({ n: 1 })),
        update_mode: fc.constantFrom('replace', 'append', 'merge'),
        entities: fc.oneof(fc.array(fc.record({ text: fc.string() }), { maxLength: 2 }), fc.constant(null)),
      },
      { requiredKeys: ['content'] },
    );
    const body = fc.oneof(
      fc.record({ items: fc.array(item, { maxLength: 4 }), async: fc.boolean(), document_tags: fc.oneof(fc.array(fc.string()), fc.constant('t')) }, { requiredKeys: ['items'] }),
      fc.anything(),
    );
    const attempt = (input: unknown): { ok: unknown } | { status: number } => {
      try {
        return { ok: decodeOr422(ServerRetainRequest, input) };
      } catch (error) {
        return { status: error instanceof Error && 'status' in error ? Number(error.status) : -1 };
      }
    };
    fc.assert(
      fc.property(body, (input) => {
        const full = ServerRetainRequest.decode(input);
        const fast = attempt(input);
        if (E.isRight(full)) expect(fast).toEqual({ ok: full.right });
        else expect(fast).toEqual({ status: 422 });
      }),
      { numRuns: 1000 },
    );
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
