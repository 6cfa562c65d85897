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
