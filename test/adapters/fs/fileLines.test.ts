import { closeSync, openSync } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forEachLine, forEachLineSync } from '../../../src/adapters/fs/fileLines.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'am-file-lines-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const linesOf = async (content: string | Buffer): Promise<string[]> => {
  const path = join(dir, 'f.jsonl');
  await writeFile(path, content);
  const handle = await open(path, 'r');
  const out: string[] = [];
  try {
    await forEachLine(handle, (buf, start, end) => out.push(buf.toString('utf8', start, end)));
  } finally {
    await handle.close();
  }
  return out;
};

// Lines of many sizes so that newlines fall on and around every 1 MiB boundary, one of 2.5 MiB
// (longer than the buffer), and multi-byte characters split between chunks.
const mixedLines = (): string[] => {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 3.5 * 2 ** 20; i += 1) {
    const line = `${i}:${'é€x'.repeat((i * 7919) % 3001)}`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  lines.splice(40, 0, 'y'.repeat(2.5 * 2 ** 20));
  return lines;
};

describe('forEachLine', () => {
  it('gives every line, across chunk boundaries and longer than a chunk, byte for byte', async () => {
    const lines = mixedLines();
    expect(await linesOf(`${lines.join('\n')}\n`)).toEqual(lines);
  });

  it('passes a last line without a newline, keeps empty lines, and gives nothing for an empty file', async () => {
    expect(await linesOf('a\n\nb')).toEqual(['a', '', 'b']);
    expect(await linesOf('')).toEqual([]);
    expect(await linesOf('\n')).toEqual(['']);
  });
});

describe('forEachLineSync', () => {
  const linesSync = async (content: string | Buffer, from: number, to: number): Promise<{ lines: [string, number][]; tail?: [string, number] }> => {
    const path = join(dir, 'g.jsonl');
    await writeFile(path, content);
    const fd = openSync(path, 'r');
    try {
      const lines: [string, number][] = [];
      const tail = forEachLineSync(fd, from, to, (buf, start, end, at) => lines.push([buf.toString('utf8', start, end), at]));
      return tail === undefined ? { lines } : { lines, tail: [tail.buf.toString('utf8', 0, tail.end), tail.at] };
    } finally {
      closeSync(fd);
    }
  };

  it('gives the newline-ended lines of a byte range with their file offsets, and the torn rest apart', async () => {
    expect(await linesSync('ab\ncd\n\nef', 0, 10)).toEqual({ lines: [['ab', 0], ['cd', 3], ['', 6]], tail: ['ef', 7] });
    expect(await linesSync('ab\ncd\nef\n', 3, 9)).toEqual({ lines: [['cd', 3], ['ef', 6]] });
    // Bytes past `to` are not read, even when the file holds more.
    expect(await linesSync('ab\ncd\nef\n', 0, 4)).toEqual({ lines: [['ab', 0]], tail: ['c', 3] });
    expect(await linesSync('', 0, 0)).toEqual({ lines: [] });
  });

  it('keeps offsets right across chunk boundaries and lines longer than a chunk', async () => {
    const lines = mixedLines();
    const content = Buffer.from(`${lines.join('\n')}\ntorn`);
    const read = await linesSync(content, 0, content.length);
    expect(read.lines.map(([line]) => line)).toEqual(lines);
    for (const [line, at] of read.lines) expect(content.toString('utf8', at, at + Buffer.byteLength(line))).toBe(line);
    expect(read.tail).toEqual(['torn', content.length - 4]);
  });
});
