/**
 * Reads a file line by line in chunks of a reused buffer. The server's snapshot (about 100 MB
 * at 100k memories) and the retain queue's journal (about 40 MB at 100k jobs) are read on
 * every start: reading a file whole into a fresh buffer and then walking it took twice as long
 * as walking each chunk while it is fresh (bench/server-startup and bench/queue-fold).
 */
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/** `[start, end)` of `buf` is a line without its newline; `at` is its offset in the file. Valid only during the call. */
export type OnLine = (buf: Buffer, start: number, end: number, at: number) => void;

/** The bytes after the last newline, valid until the next read. */
export interface Tail {
  readonly buf: Buffer;
  readonly end: number;
  readonly at: number;
}

/** Splits bytes read in chunks into lines; the buffer grows only for a line longer than it. */
class LineBuffer {
  private buf = Buffer.allocUnsafe(CHUNK);
  private have = 0;
  /** File offset of `buf[0]`. */
  private at: number;

  constructor(at: number) {
    this.at = at;
  }

  /** Where the next read goes: `[offset, buf.length)` of `buf`. */
  space(): { readonly buf: Buffer; readonly offset: number } {
    if (this.have === this.buf.length) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, 0, this.have);
      this.buf = bigger;
    }
    return { buf: this.buf, offset: this.have };
  }

  /** `bytesRead` bytes arrived in the space: every complete line goes to `onLine`. */
  took(bytesRead: number, onLine: OnLine): void {
    this.have += bytesRead;
    let start = 0;
    for (;;) {
      const newline = this.buf.indexOf(NEWLINE, start);
      if (newline === -1 || newline >= this.have) break;
      onLine(this.buf, start, newline, this.at + start);
      start = newline + 1;
    }
    this.buf.copy(this.buf, 0, start, this.have);
    this.have -= start;
    this.at += start;
  }

  tail(): Tail | undefined {
    return this.have > 0 ? { buf: this.buf, end: this.have, at: this.at } : undefined;
  }
}

/**
 * Every line of the file from its current position (offsets count from there); a last line
 * without a newline is passed too.
 */
export const forEachLine = async (handle: FileHandle, onLine: OnLine): Promise<void> => {
  const lines = new LineBuffer(0);
  for (;;) {
    const { buf, offset } = lines.space();
    const { bytesRead } = await handle.read(buf, offset, buf.length - offset, null);
    if (bytesRead === 0) break;
    lines.took(bytesRead, onLine);
  }
  const tail = lines.tail();
  if (tail !== undefined) onLine(tail.buf, 0, tail.end, tail.at);
};

/**
 * The newline-ended lines of bytes `[from, to)` of an open file, read synchronously; returns
 * what follows the last newline (a torn line), if anything.
 */
export const forEachLineSync = (fd: number, from: number, to: number, onLine: OnLine): Tail | undefined => {
  const lines = new LineBuffer(from);
  for (let position = from; position < to; ) {
    const { buf, offset } = lines.space();
    const bytesRead = readSync(fd, buf, offset, Math.min(buf.length - offset, to - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    lines.took(bytesRead, onLine);
  }
  return lines.tail();
};
