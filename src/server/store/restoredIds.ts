/**
 * The ids a segment restored into a record table, in the segment's order, found through a hash
 * table on typed arrays. At 1M facts a `Map` of id to record number was about half of the main
 * thread's work before listening; this table is built in under half of that time (docs/server.md,
 * sixteenth session). The table never grows: ids added after the restore, and restored ids deleted
 * and added again, live in the record table's `Map`, after these in its order, as a `Map` filled
 * in this order would keep them.
 */

import { hashOf, slotOf } from '../idHash.js';

/** Whether `at` fits the table's record numbers (a stored record number beyond is held aside). */
const fitsInt32 = (at: number): boolean => Number.isInteger(at) && at >= 0 && at <= 0x7fffffff;

export class RestoredIds<V> {
  /** Slot -> the id's place in `ids` plus one (0: empty); linear probing, at most half full. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Place -> its stored record number, unless `aside` holds its value. */
  private readonly at: Int32Array;
  /** Place -> 1 once deleted (or a repeated id, which a `Map` would have merged into the first). */
  private readonly gone: Uint8Array;
  /** Place -> a value set since the restore that is an object (or a number `at` cannot hold). */
  private readonly aside = new Map<number, V | number>();
  private liveCount: number;

  /** The ids' records are numbered `firstAt`, `firstAt + 1`, ... in this order; `ids` is kept, not copied. */
  constructor(
    private readonly ids: readonly string[],
    firstAt: number,
  ) {
    const n = ids.length;
    let size = 2;
    while (size < n * 2) size *= 2;
    const slots = new Int32Array(size);
    const mask = size - 1;
    this.slots = slots;
    this.mask = mask;
    this.at = new Int32Array(n);
    this.gone = new Uint8Array(n);
    this.liveCount = n;
    // Every hash first, in one pass down the list, then the slots: probing compares hashes (a
    // 4n-byte column read while filling, dropped after) and only an equal hash reads the ids'
    // strings. Probing by strings went to the heap for every occupied slot passed: at 1M ids
    // the fill took 380-410 ms of CPU, this 130-210 (docs/server.md, seventeenth session).
    const hashes = new Int32Array(n);
    for (let i = 0; i < n; i++) hashes[i] = hashOf(ids[i] ?? '');
    // Numbers that all fit go straight into their column (`aside` is empty yet).
    const direct = fitsInt32(firstAt) && fitsInt32(firstAt + n);
    for (let i = 0; i < n; i++) {
      const hash = hashes[i] ?? 0;
      let slot = hash & mask;
      for (;;) {
        const held = slots[slot] ?? 0;
        if (held === 0) {
          slots[slot] = i + 1;
          if (direct) this.at[i] = firstAt + i;
          else this.setAt(i, firstAt + i);
          break;
        }
        if (hashes[held - 1] === hash && ids[held - 1] === ids[i]) {
          // A Map set twice keeps the first place and the last value.
          if (direct) this.at[held - 1] = firstAt + i;
          else this.setAt(held - 1, firstAt + i);
          this.gone[i] = 1;
          this.liveCount--;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
  }

  /** How many of the ids are still in the table. */
  get size(): number {
    return this.liveCount;
  }

  /** The id's place, or -1 if it was not restored or has been deleted since. */
  placeOf(id: string): number {
    const held = this.slots[slotOf(this.slots, this.mask, this.ids, id)] ?? 0;
    return held === 0 || this.gone[held - 1] === 1 ? -1 : held - 1;
  }

  /** The value at a live place: a stored record number or an object set since. */
  valueAt(place: number): V | number {
    const aside = this.aside.get(place);
    return aside !== undefined ? aside : (this.at[place] ?? 0);
  }

  setAt(place: number, at: number): void {
    if (fitsInt32(at)) {
      this.at[place] = at;
      this.aside.delete(place);
    } else {
      this.aside.set(place, at);
    }
  }

  setValue(place: number, value: V): void {
    this.aside.set(place, value);
  }

  remove(place: number): void {
    this.gone[place] = 1;
    this.aside.delete(place);
    this.liveCount--;
  }

  /** The live ids and their values in the restored order; a place deleted meanwhile is skipped. */
  *entries(): Generator<[string, V | number]> {
    for (let i = 0; i < this.ids.length; i++) if (this.gone[i] !== 1) yield [this.ids[i] ?? '', this.valueAt(i)];
  }

  *keys(): Generator<string> {
    for (let i = 0; i < this.ids.length; i++) if (this.gone[i] !== 1) yield this.ids[i] ?? '';
  }
}
