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
  // More records than one conversion chunk (65,536), offsets past 4 GiB, lengths up to 4 GiB - 1.
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

  it('names the first triplet the columns cannot hold: a file number that is not a small integer, a length over 4 GiB', () => {
    for (const bad of [[256, 0, 1], [1.5, 0, 1], [-1, 0, 1], [0, 0, 2 ** 32], [Number.NaN, 0, 1]] as const) {
      const withBad = tripletsOf([[0, 0, 1], [1, 10, 2], bad, [1, 0, 3]]);
      const locations = new Locations(4);
      expect(locations.readFrom((buffer, length, position) => withBad.copy(buffer, 0, position, position + length), () => undefined)).toBe(2);
    }
  });
});
