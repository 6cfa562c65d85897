/**
 * One copy of each equal value, for indexes of many entries that repeat a few values: the facts
 * of one retain share their creation time, and a bank has few tag sets. Held for the index's life.
 */
export class Interned<T> {
  private readonly known = new Map<string, T>();

  constructor(
    private readonly keyOf: (value: T) => string,
    /** What is kept of a value first seen (the value itself unless given). */
    private readonly keep: (value: T) => T = (value) => value,
  ) {}

  of(value: T): T {
    const key = this.keyOf(value);
    const known = this.known.get(key);
    if (known !== undefined) return known;
    const kept = this.keep(value);
    this.known.set(key, kept);
    return kept;
  }

  /** The copies kept, first seen first. */
  values(): IterableIterator<T> {
    return this.known.values();
  }
}
