import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkRecords, type RecordsRegion } from '../../../src/server/store/recordsCheck.js';

describe('checkRecords: the records CRC start-up waits for, inline or on a worker thread', () => {
  let dir: string;
  const fds: number[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'records-check-'));
  });
  afterEach(async () => {
    for (const fd of fds.splice(0)) closeSync(fd);
    await rm(dir, { recursive: true, force: true });
  });

  /** A file of `size` bytes (more than one of the worker's 1 MiB reads) and its region. */
  const region = async (name: string, size: number, seed: number): Promise<RecordsRegion> => {
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i += 1) bytes[i] = (i * 31 + seed) & 0xff;
    const path = join(dir, name);
    await writeFile(path, Buffer.concat([bytes, Buffer.from('trailer after the records')]));
    const fd = openSync(path, 'r');
    fds.push(fd);
    return { fd, length: size, crc: crc32(bytes), path };
  };

  for (const [how, workerFrom] of [
    ['inline', Number.MAX_SAFE_INTEGER],
    ['on a worker thread', 0],
  ] as const) {
    it(`${how}: intact files pass, and the first damaged one is named`, async () => {
      const a = await region('a.seg', 3 * 1024 * 1024 + 17, 1);
      const b = await region('b.seg', 70_000, 2);
      const empty = await region('c.seg', 0, 3);
      await expect(checkRecords([a, b, empty], workerFrom)).resolves.toBeUndefined();
      const damaged = { ...b, crc: (b.crc + 1) >>> 0 };
      await expect(checkRecords([a, damaged, empty], workerFrom)).resolves.toEqual(damaged);
      // Only the records region counts: the trailer's bytes after it are not read.
      await expect(checkRecords([{ ...a, length: a.length - 1 }], workerFrom)).resolves.toEqual({ ...a, length: a.length - 1 });
    });
  }

  it('on a worker thread: an fd that is not open fails the check, it does not pass it', async () => {
    const a = await region('a.seg', 1000, 1);
    closeSync(a.fd);
    fds.splice(fds.indexOf(a.fd), 1);
    await expect(checkRecords([a], 0)).rejects.toThrow();
  });
});
