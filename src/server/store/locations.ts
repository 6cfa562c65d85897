/**
 * Where each stored record of the segment files lies: its file, offset and length. On disk a
 * segment holds them as little-endian float64 triplets (segments.ts); in memory they are three
 * columns, 9 bytes a record instead of 24 (3M records at 1M memories: 27 MB instead of 74), and
 * they are converted a chunk at a time on the way in and out, so the triplets never exist whole.
 * An offset takes four bytes while every offset is a whole number under 4 GiB (a segment file
 * is tens of MB); the first that is not widens the column to float64, which holds any.
 */
import { READ_CHUNK } from './chunkedRead.js';

export const TRIPLET_BYTES = 24;
/** Records converted at a time between the disk form and the columns: a buffer under malloc's mmap threshold (chunkedRead.ts). */
const CHUNK = Math.floor(READ_CHUNK / TRIPLET_BYTES);

export class Locations {
  readonly files: Uint8Array;
  private offsetColumn: Uint32Array | Float64Array;
  readonly lengths: Uint32Array;

  constructor(readonly count: number) {
    this.files = new Uint8Array(count);
    this.offsetColumn = new Uint32Array(count);
    this.lengths = new Uint32Array(count);
  }

  /** Bytes the offsets take per record: 4, or 8 once one needed float64. */
  get offsetBytes(): number {
    return this.offsetColumn.BYTES_PER_ELEMENT;
  }

  file(at: number): number {
    return at < this.count ? (this.files[at] ?? -1) : -1;
  }

  offset(at: number): number {
    return this.offsetColumn[at] ?? 0;
  }

  private setOffset(at: number, offset: number): void {
    if (this.offsetColumn instanceof Uint32Array && !(Number.isInteger(offset) && offset >= 0 && offset <= 0xffffffff)) this.offsetColumn = Float64Array.from(this.offsetColumn);
    this.offsetColumn[at] = offset;
  }

  length(at: number): number {
    return this.lengths[at] ?? 0;
  }

  /** Sets record `at`; false if it does not fit the columns (a file number over 255, a length over 4 GiB). */
  set(at: number, file: number, offset: number, length: number): boolean {
    if (!Number.isInteger(file) || file < 0 || file > 0xff || !Number.isInteger(length) || length < 0 || length > 0xffffffff) return false;
    this.files[at] = file;
    this.setOffset(at, offset);
    this.lengths[at] = length;
    return true;
  }

  copyFrom(from: Locations, source: number, at: number): void {
    this.files[at] = from.files[source] ?? 0;
    this.setOffset(at, from.offset(source));
    this.lengths[at] = from.lengths[source] ?? 0;
  }

  /**
   * Fills the columns from the disk form, read by `read(buffer, length, position)` a chunk at a
   * time; each chunk is handed to `seen` (for the CRC) before it is converted. Returns the first
   * record whose triplet does not fit the columns, or -1.
   */
  readFrom(read: (buffer: Buffer, length: number, position: number) => void, seen: (chunk: Buffer) => void): number {
    // Its own ArrayBuffer (allocUnsafeSlow, not the shared pool), so a float64 view of it is aligned.
    const scratch = Buffer.allocUnsafeSlow(Math.min(this.count, CHUNK) * TRIPLET_BYTES);
    // The triplets read as float64s in place (segments are little-endian, as is every machine that
    // reads them: segments.ts checks): `readDoubleLE` per number was most of this loop's 0.1-0.2 s at 1M.
    const doubles = new Float64Array(scratch.buffer, scratch.byteOffset, scratch.length / 8);
    let misfit = -1;
    for (let first = 0; first < this.count; first += CHUNK) {
      const n = Math.min(CHUNK, this.count - first);
      const chunk = scratch.subarray(0, n * TRIPLET_BYTES);
      read(chunk, chunk.length, first * TRIPLET_BYTES);
      seen(chunk);
      for (let i = 0; i < n; i += 1) {
        const fits = this.set(first + i, doubles[i * 3] ?? Number.NaN, doubles[i * 3 + 1] ?? Number.NaN, doubles[i * 3 + 2] ?? Number.NaN);
        if (!fits && misfit < 0) misfit = first + i;
      }
    }
    return misfit;
  }

  /** The disk form, a chunk of triplets at a time (each a buffer of its own: a writer may hold it). */
  *triplets(): Generator<Buffer> {
    for (let first = 0; first < this.count; first += CHUNK) {
      const n = Math.min(CHUNK, this.count - first);
      const scratch = Buffer.allocUnsafe(n * TRIPLET_BYTES);
      for (let i = 0; i < n; i += 1) {
        scratch.writeDoubleLE(this.files[first + i] ?? 0, i * TRIPLET_BYTES);
        scratch.writeDoubleLE(this.offset(first + i), i * TRIPLET_BYTES + 8);
        scratch.writeDoubleLE(this.lengths[first + i] ?? 0, i * TRIPLET_BYTES + 16);
      }
      yield scratch;
    }
  }
}
