/** readTextSync: a region's text and CRC as one read gives them, whether read in chunks or (over 32 MiB) whole. */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_CHUNK, READ_WHOLE_ABOVE, readTextSync } from '../../../src/server/store/chunkedRead.js';

const dir = mkdtempSync(join(tmpdir(), 'am-chunked-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const withFile = <T>(bytes: Buffer, fn: (fd: number) => T): T => {
  const path = join(dir, `f-${bytes.length}`);
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  try {
    return fn(fd);
  } finally {
    closeSync(fd);
  }
};

describe('readTextSync', () => {
  it('decodes UTF-8 split across chunks, hands every byte to seen once, and says when the file is short', () => {
    // Two-byte and four-byte characters at every offset against the chunk size.
    const text = `x${'é😀ab'.repeat(Math.ceil((3 * READ_CHUNK) / 8))}`;
    const bytes = Buffer.concat([Buffer.from('head'), Buffer.from(text, 'utf8'), Buffer.from('tail')]);
    const length = bytes.length - 8;
    withFile(bytes, (fd) => {
      let crc = 0;
      expect(readTextSync(fd, 4, length, 'utf8', (chunk) => (crc = crc32(chunk, crc)))).toBe(text);
      expect(crc).toBe(crc32(bytes.subarray(4, 4 + length)));
      expect(readTextSync(fd, 4, length, 'latin1')).toBe(bytes.subarray(4, 4 + length).toString('latin1'));
      expect(readTextSync(fd, 4, bytes.length, 'utf8')).toBeUndefined();
      expect(readTextSync(fd, 0, 0, 'utf8')).toBe('');
    });
  });

  it('reads a region over 32 MiB whole, with the same text and CRC', () => {
    const bytes = Buffer.alloc(READ_WHOLE_ABOVE + 5, 'ab');
    withFile(bytes, (fd) => {
      let crc = 0;
      let chunks = 0;
      const text = readTextSync(fd, 0, bytes.length, 'latin1', (chunk) => {
        chunks += 1;
        crc = crc32(chunk, crc);
      });
      expect(text?.length).toBe(bytes.length);
      expect(text?.slice(-5)).toBe(bytes.subarray(-5).toString('latin1'));
      expect(chunks).toBe(1);
      expect(crc).toBe(crc32(bytes));
    });
  });
});
