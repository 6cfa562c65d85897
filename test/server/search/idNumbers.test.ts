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

  it('replacing documents at a steady live count rebuilds the table once per as many adds again, at any count', () => {
    // Sized at two slots a live id, a count just under a power of two left no room: the
    // table was rebuilt (every id hashed again) on almost every replacement.
    for (const live of [1000, 1024, 2047, 4096, 5000]) {
      const ids: (string | undefined)[] = Array.from({ length: live }, (_, i) => `doc-${i}`);
      const table = new IdNumbers(ids);
      const before = table.rebuilds;
      const replacements = 20_000;
      for (let k = 0; k < replacements; k++) {
        ids[k] = undefined;
        ids.push(`doc-${live + k}`);
        table.added(ids.length - 1);
      }
      expect(table.rebuilds - before).toBeLessThanOrEqual(Math.ceil(replacements / live) + 1);
      expect(table.get(`doc-${live + replacements - 1}`)).toBe(ids.length - 1);
      expect(table.has('doc-0')).toBe(false);
    }
  });
});
