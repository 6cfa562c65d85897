/**
 * A Bloom filter of 32-bit hashes, two probes (the hash's low bits, then its bits mixed):
 * `mayHave` is false only for a hash no `add` gave (no false negatives). The typo stage's
 * spellings (`spellingFilter.ts`) and the lookup files' keys (`sortedLines.ts`) each keep one.
 */

/** The second probe's position: the hash's bits mixed (the first probe reads its low bits). */
const mixed = (h: number): number => {
  const x = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return x ^ (x >>> 13);
};

export class HashFilter {
  private readonly bits: Int32Array;
  private readonly mask: number;

  /** Room for `keys` at `bitsPerKey` bits each, at least `minBits` (a power of two): `minBits` doubled until it fits. */
  constructor(keys: number, bitsPerKey: number, minBits: number) {
    let size = minBits;
    while (size < keys * bitsPerKey) size *= 2;
    this.bits = new Int32Array(size >>> 5);
    this.mask = size - 1;
  }

  /** Its bits. */
  get size(): number {
    return this.mask + 1;
  }

  addHash(h: number): void {
    const a = h & this.mask;
    const b = mixed(h) & this.mask;
    this.bits[a >>> 5] = (this.bits[a >>> 5] ?? 0) | (1 << (a & 31));
    this.bits[b >>> 5] = (this.bits[b >>> 5] ?? 0) | (1 << (b & 31));
  }

  /** false: no hash added was this one. true: one may have been. */
  mayHave(h: number): boolean {
    const a = h & this.mask;
    const b = mixed(h) & this.mask;
    return ((this.bits[a >>> 5] ?? 0) & (1 << (a & 31))) !== 0 && ((this.bits[b >>> 5] ?? 0) & (1 << (b & 31))) !== 0;
  }
}
