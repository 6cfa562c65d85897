import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCatalogue } from '../../src/tools/catalogue.js';
import { startHarness, type Harness } from './harness.js';

const KEY = 'sk-proj-propertysecret0123456789abcdef';
const CODES = new Set(['invalidParams', 'disabled', 'sessionRefused', 'notConfigured', 'unsupportedCapability', 'server', 'io', 'rejected', 'aborted']);

/** Values for one parameter: its enum members, plausible scalars, or any JSON. */
const valueFor = (schema: Record<string, unknown>): fc.Arbitrary<unknown> => {
  const choices = Array.isArray(schema['enum']) ? (schema['enum'] as unknown[]) : [];
  return fc.oneof(
    ...(choices.length > 0 ? [fc.constantFrom(...choices)] : []),
    fc.string({ maxLength: 30 }),
    fc.boolean(),
    fc.integer({ min: -5, max: 3000 }),
    fc.constant(null),
    fc.jsonValue({ maxDepth: 2 }),
  );
};

describe('every tool through runTool with random parameters (embedded server, real queue)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { MEMORY_API_KEY: KEY } });
  });
  afterAll(async () => h.close());

  it('never throws, always answers a well-formed outcome, and never leaks the key', async () => {
    for (const tool of toolCatalogue) {
      const properties = (tool.parameters['properties'] ?? {}) as Record<string, Record<string, unknown>>;
      const keys = Object.keys(properties);
      const params =
        keys.length === 0
          ? fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })
          : fc.record(Object.fromEntries(keys.map((k) => [k, valueFor(properties[k] ?? {})])), { requiredKeys: [] });
      await fc.assert(
        fc.asyncProperty(params, async (input) => {
          const outcome = await tool.run(input, await h.context());
          const text = JSON.stringify(outcome);
          expect(text).not.toContain(KEY);
          if (outcome.ok) expect(typeof outcome.result.text).toBe('string');
          else {
            expect(CODES.has(outcome.error.code)).toBe(true);
            expect(outcome.error.message.length).toBeGreaterThan(10);
          }
        }),
        { numRuns: 12 },
      );
    }
  }, 120_000);
});
