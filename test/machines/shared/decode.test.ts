import { describe, expect, it } from 'vitest';
import * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';
import { decodeJson, decodeWith } from '../../../src/codecs/decode.js';
import { BankId, IsoTimestamp, JsonValue, PositiveInt } from '../../../src/codecs/codecs.js';

const Params = t.type({
  query: t.string,
  bank: t.union([BankId, t.undefined]),
  limits: t.type({ maxTokens: PositiveInt }),
  tags: t.array(t.string),
});

describe('decodeWith', () => {
  it('names the path of every bad field and the source', () => {
    const result = decodeWith(Params, 'tool memory_recall')({ query: 1, bank: 'ok', limits: { maxTokens: -3 }, tags: ['a', 2] });
    expect(E.isLeft(result)).toBe(true);
    if (E.isRight(result)) return;
    const paths = result.left.issues.map((i) => i.path).sort();
    expect(paths).toEqual(['limits.maxTokens', 'query', 'tags.1']);
    expect(result.left.message).toContain('tool memory_recall: field ');
    expect(result.left.message).toContain('field limits.maxTokens: expected PositiveInt, got -3');
  });

  it('reports a union field under its own name, not the branch index', () => {
    const result = decodeWith(Params, 'x')({ query: 'q', bank: '!bad', limits: { maxTokens: 1 }, tags: [] });
    if (E.isRight(result)) throw new Error('expected a failure');
    expect(result.left.issues.map((i) => i.path)).toEqual(['bank']);
  });

  it('previews long values briefly', () => {
    const result = decodeWith(t.type({ a: t.number }), 'x')({ a: 'y'.repeat(500) });
    if (E.isRight(result)) throw new Error('expected a failure');
    expect(result.left.message.length).toBeLessThan(120);
  });
});

describe('decodeJson', () => {
  it('names the source on a syntax error', () => {
    const result = decodeJson(t.unknown, '/tmp/memory.json')('{"a": ');
    if (E.isRight(result)) throw new Error('expected a failure');
    expect(result.left.message).toMatch(/^\/tmp\/memory\.json: field \(json\): expected valid JSON/);
  });
});

describe('shared codecs', () => {
  it('accepts ISO timestamps with a zone only', () => {
    expect(IsoTimestamp.is('2026-11-22T10:00:00.000Z')).toBe(true);
    expect(IsoTimestamp.is('2026-11-22T10:00:00+02:00')).toBe(true);
    expect(IsoTimestamp.is('2026-11-22 10:00')).toBe(false);
    expect(IsoTimestamp.is('2026-13-40T10:00:00Z')).toBe(false);
  });

  it('JsonValue rejects what JSON cannot carry', () => {
    expect(JsonValue.is({ a: [1, 'b', null, { c: true }] })).toBe(true);
    expect(JsonValue.is({ a: Number.NaN })).toBe(false);
    expect(JsonValue.is({ a: undefined })).toBe(false);
    expect(JsonValue.is(new Date())).toBe(false);
  });
});
