/**
 * One kind of record of a bank (documents, chunks or facts) by id. A record is either held as
 * an object (written since the last segment) or stored: a number naming where it lies in the
 * segment files, read and decoded only when asked for. Start-up therefore makes one map entry
 * per record instead of rebuilding every record into objects, and a snapshot moves the objects
 * into a segment and keeps only their numbers. Reads see a `ReadonlyMap`, so routes and the
 * ranking do not know which records are stored. A table restored from a segment may also defer
 * making its map until it is first used (`defer`): its map is a `DeferredMap`.
 */

import { RestoredIds } from './restoredIds.js';

/** A Map whose entries are made by `fill` when it is first used. */
export class DeferredMap<K, V> extends Map<K, V> {
  private fill: (() => void) | undefined;
  private knownSize: number | undefined;

  /**
   * `size`, when given, is how many entries `fill` makes: asked while the entries are not made,
   * the map answers it without making them (a bank's stats after a start made every document at
   * 100k: 46 MB and 0.3 s for a count the segment's footer holds).
   */
  defer(fill: () => void, size?: number): void {
    this.fill = fill;
    this.knownSize = size;
  }

  /** True while the entries are not made yet. */
  get deferred(): boolean {
    return this.fill !== undefined;
  }

  private ready(): void {
    const fill = this.fill;
    if (fill === undefined) return;
    // Cleared first: fill adds its entries through this map.
    this.fill = undefined;
    try {
      fill();
    } catch (error) {
      // Its lists could not be read: armed again, so every later use fails the same way
      // instead of finding an empty map.
      this.fill = fill;
      throw error;
    }
  }

  /** Sets an entry without making the map first: for its fill, which may run in steps. */
  put(key: K, value: V): void {
    super.set(key, value);
  }

  override get size(): number {
    if (this.fill !== undefined && this.knownSize !== undefined) return this.knownSize;
    this.ready();
    return super.size;
  }

  override get(key: K): V | undefined {
    this.ready();
    return super.get(key);
  }

  override has(key: K): boolean {
    this.ready();
    return super.has(key);
  }

  override set(key: K, value: V): this {
    this.ready();
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.ready();
    return super.delete(key);
  }

  override clear(): void {
    this.fill = undefined;
    super.clear();
  }

  override forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    this.ready();
    super.forEach(fn, thisArg);
  }

  override keys(): MapIterator<K> {
    this.ready();
    return super.keys();
  }

  override values(): MapIterator<V> {
    this.ready();
    return super.values();
  }

  override entries(): MapIterator<[K, V]> {
    this.ready();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    this.ready();
    return super[Symbol.iterator]();
  }
}

/** Reads stored record number `at`; throws if the files do not hold a valid record there. */
export type StoredReader<T> = (at: number) => T;

export class RecordTable<T extends object> implements ReadonlyMap<string, T> {
  /** Records changed or added since the restore (all of them if there was none). */
  private readonly byId = new DeferredMap<string, T | number>();
  /** The records a segment restored with `restoreStored`, before every entry of `byId` in order. */
  private restored: RestoredIds<T> | undefined;

  constructor(private readonly readStored: StoredReader<T>) {}

  /**
   * Points `ids[i]` at stored record number `firstAt + i`, as `setStored` in that order would, on
   * an empty table that is not deferred. The ids go into a hash table on typed arrays instead of
   * the `Map`: at 1M facts a start's fill of the `Map` was about half of its work before listening.
   */
  restoreStored(ids: readonly string[], firstAt: number): void {
    if (this.restored !== undefined || this.byId.deferred || this.byId.size > 0) throw new Error('store: restoreStored on a table that is not empty');
    if (!Number.isInteger(firstAt) || firstAt < 0 || firstAt + ids.length > 0x7fffffff) {
      for (let i = 0; i < ids.length; i++) this.byId.set(ids[i] ?? '', firstAt + i);
      return;
    }
    this.restored = new RestoredIds<T>(ids, firstAt);
  }

  /** `fill` makes the entries (with `putStored`) when the table is first used; `size` is how many, if known. */
  defer(fill: () => void, size?: number): void {
    this.byId.defer(fill, size);
  }

  /** True while a deferred table's entries are not made yet. */
  get deferred(): boolean {
    return this.byId.deferred;
  }

  get size(): number {
    return (this.restored?.size ?? 0) + this.byId.size;
  }

  private placeOf(id: string): number {
    return this.restored === undefined ? -1 : this.restored.placeOf(id);
  }

  get(id: string): T | undefined {
    const value = this.held(id);
    return typeof value === 'number' ? this.readStored(value) : value;
  }

  has(id: string): boolean {
    return this.placeOf(id) >= 0 || this.byId.has(id);
  }

  /** Holds `record` as an object (a mutation applied since the last segment). */
  set(id: string, record: T): void {
    const place = this.placeOf(id);
    if (place >= 0) this.restored?.setValue(place, record);
    else this.byId.set(id, record);
  }

  /** Points `id` at stored record number `at` (the map keeps its position if the id is there). */
  setStored(id: string, at: number): void {
    const place = this.placeOf(id);
    if (place >= 0) this.restored?.setAt(place, at);
    else this.byId.set(id, at);
  }

  /** `setStored` for the table's own fill: the map is not made first. */
  putStored(id: string, at: number): void {
    const place = this.placeOf(id);
    if (place >= 0) this.restored?.setAt(place, at);
    else this.byId.put(id, at);
  }

  delete(id: string): boolean {
    const place = this.placeOf(id);
    if (place < 0) return this.byId.delete(id);
    this.restored?.remove(place);
    return true;
  }

  /** The record as held: an object, a stored record number, or undefined. */
  held(id: string): T | number | undefined {
    const place = this.placeOf(id);
    if (place >= 0 && this.restored !== undefined) return this.restored.valueAt(place);
    return this.byId.get(id);
  }

  /** The entries as held, in the order a `Map` given the same sets and deletes would list them. */
  private *heldEntries(): Generator<[string, T | number]> {
    if (this.restored !== undefined) yield* this.restored.entries();
    yield* this.byId.entries();
  }

  *keys(): MapIterator<string> {
    if (this.restored !== undefined) yield* this.restored.keys();
    yield* this.byId.keys();
  }

  *values(): MapIterator<T> {
    for (const [, value] of this.heldEntries()) yield typeof value === 'number' ? this.readStored(value) : value;
  }

  *entries(): MapIterator<[string, T]> {
    for (const [id, value] of this.heldEntries()) yield [id, typeof value === 'number' ? this.readStored(value) : value];
  }

  [Symbol.iterator](): MapIterator<[string, T]> {
    return this.entries();
  }

  forEach(fn: (value: T, key: string, map: ReadonlyMap<string, T>) => void): void {
    for (const [id, value] of this.entries()) fn(value, id, this);
  }
}

/** The facts of a bank, whose heads (what a recall filter reads) come without reading a stored fact. */
export class FactTable<T extends object, H> extends RecordTable<T> {
  constructor(
    readStored: StoredReader<T>,
    private readonly headOf: (record: T) => H,
    private readonly readStoredHead: (at: number) => H | undefined,
  ) {
    super(readStored);
  }

  head(id: string): H | undefined {
    const value = this.held(id);
    return value === undefined ? undefined : this.headOfHeld(value);
  }

  /** The head of a record as `held` gave it (a snapshot's walk has it in hand: no second lookup). */
  headOfHeld(value: T | number): H | undefined {
    return typeof value === 'number' ? this.readStoredHead(value) : this.headOf(value);
  }
}
