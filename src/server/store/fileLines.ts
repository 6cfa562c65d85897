/**
 * Reads a file line by line in chunks of a reused buffer. Start-up reads a snapshot of about
 * 100 MB: reading it whole and then walking it took twice as long as walking each chunk while
 * it is fresh in the cache (bench/server-startup.bench.ts).
 */
import type { FileHandle } from 'node:fs/promises';

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Calls `onLine(buf, start, end)` for each line (`[start, end)` without its newline; the bytes
 * are valid only during the call). A last line without a newline is passed too.
 */
export const forEachLine = async (handle: FileHandle, onLine: (buf: Buffer, start: number, end: number) => void): Promise<void> => {
  let buf = Buffer.allocUnsafe(CHUNK);
  let have = 0;
  for (;;) {
    // A line longer than the buffer: grow it, keeping the part already read.
    if (have === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, have);
      buf = bigger;
    }
    const { bytesRead } = await handle.read(buf, have, buf.length - have, null);
    if (bytesRead === 0) break;
    have += bytesRead;
    let start = 0;
    for (;;) {
      const newline = buf.indexOf(NEWLINE, start);
      if (newline === -1 || newline >= have) break;
      onLine(buf, start, newline);
      start = newline + 1;
    }
    buf.copy(buf, 0, start, have);
    have -= start;
  }
  if (have > 0) onLine(buf, 0, have);
};
