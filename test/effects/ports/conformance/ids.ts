/** What every `IdsPort` keeps: unique v4-shaped ids, stable 64-hex digests that tell texts apart. */
import { describe, expect, it } from 'vitest';
import type { IdsPort } from '../../../../src/effects/ports/ids.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const describeIdsConformance = (name: string, make: () => IdsPort): void => {
  describe(`IdsPort conformance: ${name}`, () => {
    it('hands out distinct ids in v4 shape', () => {
      const ids = make();
      const issued = Array.from({ length: 200 }, () => ids.uuid());
      for (const id of issued) expect(id).toMatch(UUID);
      expect(new Set(issued).size).toBe(issued.length);
    });

    it('digests the same text the same way and different texts differently', () => {
      const ids = make();
      expect(ids.digest('a')).toMatch(/^[0-9a-f]{64}$/);
      expect(ids.digest('a')).toBe(make().digest('a'));
      const texts = ['', 'a', 'b', 'ab', 'ba', 'session:1', 'session:2', 'é', '😀', 'x'.repeat(10_000)];
      expect(new Set(texts.map((text) => ids.digest(text))).size).toBe(texts.length);
    });
  });
};
