import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Locations, TRIPLET_BYTES } from '../../../src/server/store/locations.js';

/** The disk form as segments wrote it before the columns: one float64 triplet per record. */
const tripletsOf = (rows: readonly (readonly [number, number, number])[]): Buffer => {
  const out = new Float64Array(rows.length * 3);
  rows.forEach(([file, offset, length], i) => out.set([file, offset, length], i * 3));
  return Buffer.from(out.buffer);
};

describe('segment record locations as columns', () => {
  // More records than one conversion chunk (2,730), offsets past 4 GiB, lengths up to 4 GiB - 1.
  const rows = Array.from({ length: 150_000 }, (_, i) => [i % 9, i * 70_001 + (i === 7 ? 2 ** 40 : 0), i === 9 ? 0xffffffff : (i * 37) % 5000] as const);
  const disk = tripletsOf(rows);

  it('reads the float64 triplets of a segment a chunk at a time and writes back the same bytes', () => {
    const locations = new Locations(rows.length);
    let crc = 0;
    const misfit = locations.readFrom(
      (buffer, length, position) => disk.copy(buffer, 0, position, position + length),
      (chunk) => {
        crc = crc32(chunk, crc);
      },
    );
    expect(misfit).toBe(-1);
    expect(crc).toBe(crc32(disk));
    // One comparison, not one expect per row: 150k of those took seconds.
    const differing = rows.findIndex(([file, offset, length], i) => locations.file(i) !== file || locations.offset(i) !== offset || locations.length(i) !== length);
    expect(differing).toBe(-1);
    expect([locations.file(7), locations.offset(7), locations.length(9)]).toEqual([7, 7 * 70_001 + 2 ** 40, 0xffffffff]);
    // Buffer#equals: a deep toEqual over 3.6 MB walks it byte by byte for seconds.
    expect(Buffer.concat([...locations.triplets()]).equals(disk)).toBe(true);
    expect(disk.length).toBe(rows.length * TRIPLET_BYTES);
  });

  it('keeps offsets in four bytes while each is a whole number under 4 GiB, and widens them, losing none, at the first that is not', () => {
    const small = tripletsOf(rows.map(([file, , length], i) => [file, i * 9_001, length] as const));
    const narrow = new Locations(rows.length);
    expect(narrow.readFrom((buffer, length, position) => small.copy(buffer, 0, position, position + length), () => undefined)).toBe(-1);
    expect(narrow.offsetBytes).toBe(4);
    expect(Buffer.concat([...narrow.triplets()]).equals(small)).toBe(true);
    // Past 4 GiB, and a fraction (damage that start-up's bounds check must still see as it is),
    // in the second conversion chunk: the offsets before it are kept through the widening.
    for (const odd of [2 ** 32, 2 ** 40 + 3, 10.5]) {
      const late = tripletsOf(rows.map(([file, , length], i) => [file, i === 100_000 ? odd : i * 9_001, length] as const));
      const wide = new Locations(rows.length);
      expect(wide.readFrom((buffer, length, position) => late.copy(buffer, 0, position, position + length), () => undefined)).toBe(-1);
      expect(wide.offsetBytes).toBe(8);
      expect(wide.offset(100_000)).toBe(odd);
      expect(Buffer.concat([...wide.triplets()]).equals(late)).toBe(true);
      const copy = new Locations(2);
      copy.copyFrom(narrow, 5, 0);
      copy.copyFrom(wide, 100_000, 1);
      expect([copy.offsetBytes, copy.offset(0), copy.offset(1)]).toEqual([8, 5 * 9_001, odd]);
    }
  });

  it('names the first triplet the columns cannot hold: a file number that is not a small integer, a length over 4 GiB', () => {
    for (const bad of [[256, 0, 1], [1.5, 0, 1], [-1, 0, 1], [0, 0, 2 ** 32], [Number.NaN, 0, 1]] as const) {
      const withBad = tripletsOf([[0, 0, 1], [1, 10, 2], bad, [1, 0, 3]]);
      const locations = new Locations(4);
      expect(locations.readFrom((buffer, length, position) => withBad.copy(buffer, 0, position, position + length), () => undefined)).toBe(2);
    }
  });
});
