/**
 * Round 10: a session file with one long line. The reader joined the unended line's bytes onto
 * one growing buffer at every 1 MB chunk, so a line of N MB copied about N²/2 MB: a 128 MB line
 * (a message holding pasted images, a huge tool result) took 25 s of import, 64 MB 6 s, with
 * pi's event loop held up to 0.7 s at a time when the import runs inside pi (/memory, first-run
 * setup). Now each chunk of the line is copied once and joined once. The real session reader
 * over a real file; what it joins is counted through `Buffer.concat` (the real one, wrapped),
 * so the check does not depend on the machine's speed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { piSessionFiles } from '../../src/adapters/sessions/piSessionFiles.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a session file with a 24 MB line', () => {
  it('is read with each byte joined a bounded number of times, and every entry is kept', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'am-long-line-'));
    dirs.push(dir);
    const file = path.join(dir, 'long.jsonl');
    const header = JSON.stringify({ type: 'session', version: 3, id: 'long-1', timestamp: '2026-11-28T10:00:00.000Z', cwd: dir });
    const long = JSON.stringify({ type: 'message', id: 'm1', parentId: null, timestamp: '2026-11-28T10:00:01.000Z', message: { role: 'user', content: `start ${'x'.repeat(24 * 1024 * 1024)} end`, timestamp: 1 } });
    const after = JSON.stringify({ type: 'message', id: 'm2', parentId: 'm1', timestamp: '2026-11-28T10:00:02.000Z', message: { role: 'user', content: 'the line after', timestamp: 2 } });
    const text = `${header}\n${long}\n${after}\n`;
    writeFileSync(file, text);
    const size = Buffer.byteLength(text);

    const concat = Buffer.concat.bind(Buffer);
    let joined = 0;
    vi.spyOn(Buffer, 'concat').mockImplementation((list: readonly Uint8Array[], totalLength?: number) => {
      const out = concat(list, totalLength);
      joined += out.length;
      return out;
    });
    const read = await piSessionFiles.read(file, { cwd: dir, maxBytes: 512 * 1024 * 1024 });
    vi.restoreAllMocks();

    expect(E.isRight(read)).toBe(true);
    if (E.isLeft(read)) return;
    expect(read.right.entries.map((e) => e.id)).toEqual(['m1', 'm2']);
    expect(read.right.bytes).toBe(size);
    expect(read.right.pendingTailBytes).toBe(0);
    const content = JSON.stringify(read.right.entries[0]?.message);
    expect(content.startsWith('{"role":"user","content":"start x')).toBe(true);
    expect(content).toContain('x end"');
    // The old reader joined about 24 × 25 / 2 = 300 MB here.
    expect(joined).toBeLessThanOrEqual(2 * size);
  }, 60_000);
});
