import { describe, expect, it } from 'vitest';
import { RecordTable } from '../../../src/server/store/recordTable.js';
import { seededRandom } from '../../../src/server/syntheticCorpus.js';

/** A stored record read back: its number, so a value compares as the number it was held at. */
interface Rec {
  readonly v: string;
}
const readStored = (at: number): Rec => ({ v: `stored ${at}` });
const shown = (value: Rec | number | undefined): unknown => value;

/** Everything a reader of the table sees, as the same reads of the Map give it. */
const expectSame = (table: RecordTable<Rec>, map: Map<string, Rec | number>, probe: readonly string[]): void => {
  expect(table.size).toBe(map.size);
  expect([...table.keys()]).toEqual([...map.keys()]);
  const expected = [...map].map(([id, v]) => [id, typeof v === 'number' ? readStored(v) : v]);
  expect([...table.entries()]).toEqual(expected);
  expect([...table]).toEqual(expected);
  expect([...table.values()]).toEqual(expected.map(([, v]) => v));
  const each: unknown[] = [];
  table.forEach((v, id) => each.push([id, v]));
  expect(each).toEqual(expected);
  for (const id of probe) {
    expect(table.has(id)).toBe(map.has(id));
    expect(shown(table.held(id))).toEqual(shown(map.get(id)));
  }
};

describe('a restored record table (ids in a hash table on typed arrays)', () => {
  it('lists, finds, sets and deletes as a Map filled in the same order, under generated adds, deletes, re-adds and restores', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const next = seededRandom(seed);
      const pick = (n: number): number => Math.floor(next() * n);
      // Few distinct ids, so sets, deletes and re-adds hit the restored ones often; some repeated.
      const universe = Array.from({ length: 5 + pick(300) }, (_, i) => (i % 7 === 3 ? `é${i}😀` : `f${i}`));
      const restored = Array.from({ length: pick(universe.length) }, () => universe[pick(universe.length)] ?? '');
      const firstAt = pick(1_000);
      const table = new RecordTable<Rec>(readStored);
      const map = new Map<string, Rec | number>();
      table.restoreStored(restored, firstAt);
      restored.forEach((id, i) => map.set(id, firstAt + i));
      const probe = [...universe, 'absent', ''];
      expectSame(table, map, probe);
      const ops = 50 + pick(600);
      for (let n = 0; n < ops; n++) {
        const id = universe[pick(universe.length)] ?? '';
        const op = pick(10);
        if (op < 3) {
          const record = { v: `object ${n}` };
          table.set(id, record);
          map.set(id, record);
        } else if (op < 5) {
          // A snapshot renumbers; a number past 2^31 is held aside (the typed array is 32 bits).
          const at = pick(20) === 0 ? 2 ** 31 + n : n;
          table.setStored(id, at);
          map.set(id, at);
        } else if (op < 8) {
          expect(table.delete(id)).toBe(map.delete(id));
        } else if (op < 9) {
          // Deleted and added again at once: it moves to the end.
          table.delete(id);
          map.delete(id);
          table.setStored(id, n);
          map.set(id, n);
        } else {
          // Changes while the table is listed: what a Map's iterator sees, this one sees.
          const seen: string[] = [];
          const seenMap: string[] = [];
          const other = universe[pick(universe.length)] ?? '';
          const stopAt = pick(map.size + 1);
          let i = 0;
          for (const key of table.keys()) {
            seen.push(key);
            if (i++ === stopAt) {
              table.delete(other);
              table.setStored(`${other}+`, n);
              table.delete(key);
              table.setStored(key, n);
            }
          }
          i = 0;
          for (const key of map.keys()) {
            seenMap.push(key);
            if (i++ === stopAt) {
              map.delete(other);
              map.set(`${other}+`, n);
              map.delete(key);
              map.set(key, n);
            }
          }
          expect(seen).toEqual(seenMap);
          probe.push(`${other}+`);
        }
        if (n % 25 === 0) expectSame(table, map, probe);
      }
      expectSame(table, map, probe);
    }
  });

  it('takes only an empty table', () => {
    const table = new RecordTable<Rec>(readStored);
    table.setStored('a', 1);
    expect(() => table.restoreStored(['b'], 2)).toThrow(/not empty/);
  });

  it('restores numbers past 32 bits through the Map', () => {
    const table = new RecordTable<Rec>(readStored);
    table.restoreStored(['a', 'b', 'a'], 2 ** 31 - 2);
    expect([...table.keys()]).toEqual(['a', 'b']);
    expect(table.held('a')).toBe(2 ** 31);
    expect(table.held('b')).toBe(2 ** 31 - 1);
  });
});
