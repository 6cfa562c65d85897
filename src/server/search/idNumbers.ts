import { slotOf } from '../idHash.js';

/**
 * The search index's id -> document number, a hash table on typed arrays over the index's own
 * `ids` (number -> id). At 1M documents a `Map` filled on the first has/get after a start cost
 * about twice the CPU and three times the memory of this table (docs/server.md, sixteenth
 * session). A slot holds a number plus one and matches only while `ids` still names that id
 * there: the index removes a document by clearing its `ids` entry, which leaves the slot as a
 * tombstone until the table is rebuilt on growth. `ids` is kept, not copied.
 */
export class IdNumbers {
  private slots: Int32Array;
  private mask: number;
  /** Slots in use, tombstones included: the table is rebuilt before it is half full. */
  private used = 0;
  /** Tables built so far (tests check that replacing documents does not rebuild on every add). */
  rebuilds = 0;
  /** Numbers whose id a later number took over (a saved index naming an id twice): never found again. */
  private readonly superseded = new Set<number>();

  constructor(private readonly ids: readonly (string | undefined)[]) {
    this.slots = new Int32Array(0);
    this.mask = 0;
    this.rebuild();
  }

  get(id: string): number | undefined {
    const held = this.slots[slotOf(this.slots, this.mask, this.ids, id)] ?? 0;
    return held === 0 ? undefined : held - 1;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Number `n` now names `ids[n]`; an earlier live number of the same id is superseded, as a `Map` set would. */
  added(n: number): void {
    if ((this.used + 1) * 2 > this.slots.length) this.rebuild();
    else this.place(n);
  }

  private place(n: number): void {
    const id = this.ids[n];
    if (id === undefined || this.superseded.has(n)) return;
    const slot = slotOf(this.slots, this.mask, this.ids, id);
    const held = this.slots[slot] ?? 0;
    if (held === 0) {
      this.slots[slot] = n + 1;
      this.used += 1;
    } else if (held - 1 < n) {
      this.superseded.add(held - 1);
      this.slots[slot] = n + 1;
    } else if (held - 1 > n) {
      this.superseded.add(n);
    }
  }

  /**
   * A new table sized for the live ids (tombstones dropped), filled in number order. At least
   * four slots a live id, so as many adds again fit before the next rebuild: sized at two, a
   * bank whose live count sat just under a power of two rebuilt on almost every add while its
   * documents were replaced (4,096 live ids, 20,000 replacements: 2.4 s against 0.1 s).
   */
  private rebuild(): void {
    let live = 0;
    for (const id of this.ids) if (id !== undefined) live += 1;
    let size = 16;
    while (size < live * 4) size *= 2;
    this.rebuilds += 1;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    this.used = 0;
    for (let n = 0; n < this.ids.length; n++) this.place(n);
  }
}
