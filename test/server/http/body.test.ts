/**
 * The raw-byte depth scan that guards the embedded server's JSON parse: for any JSON value
 * (strings full of brackets, quotes and escapes included) it agrees with the real nesting depth.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestingExceeds, parseJsonBody } from '../../../src/server/http/body.js';

const depthOf = (value: unknown): number => {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
};

const bracketText = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', 'a', ' ') });

describe('nestingExceeds', () => {
  it('agrees with the nesting depth of any JSON value, for any limit', () => {
    const value = fc.letrec<{ json: unknown }>((tie) => ({
      json: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        bracketText,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('json'), { maxLength: 3 }),
        fc.dictionary(bracketText, tie('json'), { maxKeys: 3 }),
      ),
    })).json;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 12 }), (json, limit) => {
        expect(nestingExceeds(Buffer.from(JSON.stringify(json)), limit)).toBe(depthOf(json) > limit);
      }),
      { numRuns: 500 },
    );
  });

  it('reads any bytes, JSON or not, as a byte-by-byte scan does (escaped quotes, backslash runs, unterminated strings)', () => {
    // The check as it read every byte before strings were passed over by a search for their closing quote.
    const byByte = (raw: Buffer, max: number): boolean => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < raw.length; i += 1) {
        const byte = raw[i];
        if (inString) {
          if (byte === 0x5c) i += 1;
          else if (byte === 0x22) inString = false;
          continue;
        }
        if (byte === 0x22) inString = true;
        else if (byte === 0x7b || byte === 0x5b) {
          depth += 1;
          if (depth > max) return true;
        } else if (byte === 0x7d || byte === 0x5d) depth -= 1;
      }
      return false;
    };
    const text = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\\\', '\\"', 'a', ' ', 'é', '{"k":"') });
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 6 }), (body, limit) => {
        const raw = Buffer.from(body);
        expect(nestingExceeds(raw, limit)).toBe(byByte(raw, limit));
      }),
      { numRuns: 5000 },
    );
    // JSON inside JSON, as an import's documents are sent: nesting inside strings is not counted.
    const inner = JSON.stringify([{ a: [[[[{ b: '"\\' }]]]] }]);
    expect(nestingExceeds(Buffer.from(JSON.stringify({ items: [{ content: inner }] })), 3)).toBe(false);
    expect(nestingExceeds(Buffer.from(JSON.stringify({ items: [{ content: inner, x: [[1]] }] })), 4)).toBe(true);
  });

  it('parseJsonBody refuses a too-deep body with 400 before parsing, and bad JSON without quoting it', () => {
    expect(() => parseJsonBody(Buffer.from(`${'['.repeat(65)}${']'.repeat(65)}`))).toThrow(/nested deeper than 64 levels/);
    expect(parseJsonBody(Buffer.from(`${'['.repeat(64)}${']'.repeat(64)}`))).toBeDefined();
    try {
      parseJsonBody(Buffer.from('{"secret-looking": nope'));
      expect.unreachable();
    } catch (error) {
      expect(JSON.stringify((error as { detail: unknown }).detail)).not.toContain('secret-looking');
    }
  });
});
