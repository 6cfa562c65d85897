/**
 * A growable list of document numbers over an Int32Array, kept by its owner and emptied for
 * the next query instead of made anew. A query at 100k memories touches tens of thousands of
 * documents: as a JS array grown by `push`, each query left a chain of ever larger backing
 * stores (the larger ones allocated straight into the old generation), which made the heap grow
 * by some 150 KB per query between full collections.
 */
export class DocList {
  private items = new Int32Array(1024);
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(n: number): void {
    if (this.count === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.count] = n;
    this.count += 1;
  }

  /** The numbers pushed so far, as a view valid until the next push or clear. */
  view(): Int32Array {
    return this.items.subarray(0, this.count);
  }

  clear(): void {
    this.count = 0;
  }
}
