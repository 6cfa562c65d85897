/**
 * Regions read once and dropped (a segment's footer and document lists, the saved index's ids
 * and skipped columns) are read a small chunk at a time, into strings V8 keeps in its own heap,
 * never into one buffer of the whole region. glibc's malloc sets its trim threshold to twice the
 * largest block it has given back to the system (up to 64 MB): once start-up had freed 4 MB
 * buffers, each of its thread arenas, where V8's optimising compiler works, kept up to 8 MB of
 * freed memory resident (about 10 MB more at 100k memories, after a few hundred recalls). Blocks
 * under its first threshold, 128 KiB, never raise it.
 */
import { readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export const READ_CHUNK = 64 * 1024;

/**
 * `length` bytes at `from` of `fd` as text, each chunk handed to `seen` (a CRC) as it is read;
 * undefined if the file ends first.
 */
export const readTextSync = (fd: number, from: number, length: number, encoding: 'utf8' | 'latin1', seen?: (chunk: Buffer) => void): string | undefined => {
  const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(1, length)));
  const decoder = new StringDecoder(encoding);
  const parts: string[] = [];
  for (let at = 0; at < length; ) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, length - at), from + at);
    if (n <= 0) return undefined;
    const bytes = chunk.subarray(0, n);
    seen?.(bytes);
    parts.push(decoder.write(bytes));
    at += n;
  }
  parts.push(decoder.end());
  return parts.join('');
};
