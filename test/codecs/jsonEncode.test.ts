import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REMEMBERED_MIN_CHARS, jsonEncode, rememberedEncodings } from '../../src/codecs/jsonEncode.js';

// Large strings (remembered) with quotes, backslashes, control characters, lone surrogates and emoji.
const large = fc
  .tuple(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: 0, max: 3 }), fc.constantFrom('"', '\\', '\n', '\u0000', '\ud800', '\u{1F511}', 'a', '</script>'))
  .map(([head, extra, mark]) => `${head}${mark}${'x'.repeat(REMEMBERED_MIN_CHARS - 1 + extra * 700)}${mark}${head}`);
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), large);
const leaf = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(Number.NaN), fc.constant(-0), fc.constant(() => 1), fc.constant(Symbol('s')), fc.date({ noInvalidDate: false }));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 6 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '10', '2', 'toJSON', 'content')), tie('node'), { maxKeys: 6 }),
})).node;

describe('jsonEncode is JSON.stringify', () => {
  it('gives the same text for generated values, large strings encoded once or again', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(jsonEncode(v)).toBe(JSON.stringify(v));
        // Again: large strings now come from what was remembered.
        expect(jsonEncode(v)).toBe(JSON.stringify(v));
        expect(jsonEncode({ items: [{ content: v }], async: true })).toBe(JSON.stringify({ items: [{ content: v }], async: true }));
      }),
      { numRuns: 1_500 },
    );
  });

  it('an equal string of the same length never takes another string\'s encoding', () => {
    const a = `"${'a'.repeat(REMEMBERED_MIN_CHARS)}"`;
    const b = `"${'a'.repeat(REMEMBERED_MIN_CHARS - 1)}b"`;
    expect(jsonEncode([a])).toBe(JSON.stringify([a]));
    expect(jsonEncode([b])).toBe(JSON.stringify([b]));
    // A copy made by other means (not the same string object) is equal, and is encoded the same.
    const copy = [...a].join('');
    expect(jsonEncode(copy)).toBe(JSON.stringify(a));
  });

  it('values JSON.stringify does not walk as plain data, and its failures, are the same', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const dated = { when: new Date(0), nested: { toJSON: (key: string) => `key:${key}` } };
    const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
    for (const v of [new String('s'), new Number(1), new Map([[1, 2]]), new Set([1]), new Point(1), Object.create(null), dated, sparse, [undefined, () => 0], undefined, Symbol('x'), () => 0, 'x'.repeat(REMEMBERED_MIN_CHARS)]) {
      expect(jsonEncode(v)).toBe(JSON.stringify(v));
    }
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => jsonEncode(cyclic)).toThrow(TypeError);
    expect(() => jsonEncode({ n: 1n })).toThrow(TypeError);
  });

  it('forgets what it remembered once used again, and keeps a bounded number', () => {
    const texts = Array.from({ length: 300 }, (_, i) => `${i}${'y'.repeat(REMEMBERED_MIN_CHARS)}`);
    for (const t of texts) jsonEncode(t);
    expect(rememberedEncodings()).toBeLessThanOrEqual(256);
    const before = rememberedEncodings();
    expect(jsonEncode(texts.at(-1))).toBe(JSON.stringify(texts.at(-1)));
    expect(rememberedEncodings()).toBe(before - 1);
  });
});
