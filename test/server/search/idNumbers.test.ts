import { describe, expect, it } from 'vitest';
import { FieldIndex } from '../../../src/server/search/fieldIndex.js';
import { IdNumbers } from '../../../src/server/search/idNumbers.js';
import { seededRandom as random } from '../../../src/server/syntheticCorpus.js';

const expectSame = (table: IdNumbers, map: Map<string, number>, pool: readonly string[]): void => {
  for (const id of pool) {
    expect(table.get(id)).toBe(map.get(id));
    expect(table.has(id)).toBe(map.has(id));
  }
};

describe('IdNumbers', () => {
  it('answers has/get as the Map it replaces, under adds, removes and growth', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const next = random(seed);
      const pool = Array.from({ length: 40 + seed * 7 }, (_, i) => `id-${seed}-${i}`);
      const pick = (): string => pool[Math.floor(next() * pool.length)] ?? '';
      // A saved index's ids, some dead and (as a Map fill lets the later win) some named twice.
      const ids: (string | undefined)[] = Array.from({ length: Math.floor(next() * 30) }, () => (next() < 0.2 ? undefined : pick()));
      const map = new Map<string, number>();
      ids.forEach((id, n) => {
        if (id !== undefined) map.set(id, n);
      });
      const table = new IdNumbers(ids);
      expectSame(table, map, pool);
      for (let step = 0; step < 400; step++) {
        const id = pick();
        if (next() < 0.6) {
          // The index's add: remove a live one first, then append.
          const old = map.get(id);
          if (old !== undefined) {
            map.delete(id);
            ids[old] = undefined;
          }
          const n = ids.length;
          ids.push(id);
          map.set(id, n);
          table.added(n);
        } else {
          // The index's remove: clear the live number's id.
          const n = map.get(id);
          if (n !== undefined) {
            map.delete(id);
            ids[n] = undefined;
          }
        }
        if (step % 25 === 0) expectSame(table, map, pool);
      }
      expectSame(table, map, pool);
    }
  });

  it('keeps the index answering has/numberOf after adds and removes', () => {
    const next = random(7);
    const index = new FieldIndex();
    const map = new Map<string, number>();
    const pool = Array.from({ length: 300 }, (_, i) => `doc-${i}`);
    for (let step = 0; step < 3000; step++) {
      const id = pool[Math.floor(next() * pool.length)] ?? '';
      if (next() < 0.6) {
        index.add({ id, text: `words about ${id} and step ${step}` });
        const n = index.numberOf(id);
        expect(n).toBeDefined();
        expect(index.idOf(n ?? -1)).toBe(id);
        map.set(id, n ?? -1);
      } else {
        index.remove(id);
        map.delete(id);
      }
    }
    for (const id of pool) {
      expect(index.has(id)).toBe(map.has(id));
      if (map.has(id)) expect(index.idOf(index.numberOf(id) ?? -1)).toBe(id);
    }
    expect(index.size).toBe(map.size);
  });
});
