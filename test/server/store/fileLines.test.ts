import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forEachLine } from '../../../src/server/store/fileLines.js';

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

describe('forEachLine', () => {
  it('gives every line, across chunk boundaries and longer than a chunk, byte for byte', async () => {
    // Lines of many sizes so that newlines fall on and around every 1 MiB boundary, one of
    // 2.5 MiB (longer than the buffer), and multi-byte characters split between chunks.
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 3.5 * 2 ** 20; i += 1) {
      const line = `${i}:${'é€x'.repeat((i * 7919) % 3001)}`;
      lines.push(line);
      size += Buffer.byteLength(line) + 1;
    }
    lines.splice(40, 0, 'y'.repeat(2.5 * 2 ** 20));
    expect(await linesOf(`${lines.join('\n')}\n`)).toEqual(lines);
  });

  it('passes a last line without a newline, keeps empty lines, and gives nothing for an empty file', async () => {
    expect(await linesOf('a\n\nb')).toEqual(['a', '', 'b']);
    expect(await linesOf('')).toEqual([]);
    expect(await linesOf('\n')).toEqual(['']);
  });
});
