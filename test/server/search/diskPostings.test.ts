import * as fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskPostings, PostingsFile } from '../../../src/server/search/diskPostings.js';

/** A typed array's bytes, compared whole (expect's element walk takes seconds at this size). */
const bytesOf = (a: Int32Array<ArrayBufferLike> | Uint16Array<ArrayBufferLike> | Uint8Array<ArrayBufferLike>): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

const dir = mkdtempSync(join(tmpdir(), 'am-disk-postings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DiskPostings', () => {
  it('reads any run of both columns as written, in any order, past what its cache keeps, at each frequency width', async () => {
    // 700k postings in runs of 1 to 60k: runs above an eighth of the 2 MB cache go through scratch,
    // the others are kept until 2 MB of them push the oldest out.
    const total = 700_000;
    const docs = new Int32Array(total).map((_, i) => (i * 7919) % 1_000_003);
    for (const width of [1, 2, 4] as const) {
      const tfs = width === 1 ? new Uint8Array(total) : width === 2 ? new Uint16Array(total) : new Int32Array(total);
      for (let i = 0; i < total; i += 1) tfs[i] = (i * 31) % (width === 1 ? 256 : width === 2 ? 65_536 : 1_000_000);
      const docsAt = 24;
      const tfsAt = docsAt + docs.byteLength + 8;
      const bytes = Buffer.alloc(tfsAt + tfs.byteLength);
      Buffer.from(docs.buffer).copy(bytes, docsAt);
      Buffer.from(tfs.buffer, tfs.byteOffset, tfs.byteLength).copy(bytes, tfsAt);
      const path = join(dir, `postings-${width}`);
      writeFileSync(path, bytes);
      const file = new PostingsFile(await open(path, 'r'));
      const reader = new DiskPostings(file, docsAt, tfsAt, width, total);
      const starts = [0];
      while ((starts[starts.length - 1] ?? total) < total) starts.push(Math.min(total, (starts[starts.length - 1] ?? 0) + 1 + ((starts.length * 104_729) % 60_000)));
      fc.assert(
        fc.property(fc.array(fc.nat(starts.length - 2), { minLength: 1, maxLength: 80 }), (picks) => {
          for (const k of picks) {
            const from = starts[k] ?? 0;
            const to = starts[k + 1] ?? total;
            const run = reader.read(from, to);
            expect(run.docs.length).toBe(to - from);
            expect(bytesOf(run.docs).equals(bytesOf(docs.subarray(from, to)))).toBe(true);
            expect(bytesOf(run.tfs).equals(bytesOf(tfs.subarray(from, to)))).toBe(true);
          }
        }),
        { numRuns: 15 },
      );
      expect(() => reader.read(total - 5, total + 1)).toThrow(RangeError);
      await file.close();
    }
  });
});
