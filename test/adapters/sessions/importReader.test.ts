/**
 * The streaming session reader on bad input: torn last lines, a file being written, binary
 * junk, a malformed line (named by file and line), sessions of another project, symlinks,
 * non-files, thousands of files, a session over the size limit, and reads larger than a chunk.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { normaliseCwd, piSessionDir, piSessionFiles } from '../../../src/adapters/sessions/piSessionFiles.js';

const fixtures = path.resolve(__dirname, '../../../fixtures/pi/sessions');
const dir = (): string => mkdtempSync(path.join(tmpdir(), 'am-reader-'));
const header = (cwd: string, id = '01a20000-0000-7000-8000-000000000001') => `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-11-24T00:00:00.000Z', cwd })}\n`;
const entry = (id: string, parentId: string | null, text: string) =>
  `${JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-11-24T00:00:01.000Z', message: { role: 'user', content: text, timestamp: 1 } })}\n`;

describe('pi session reader', () => {
  it('reads the damaged real-pi copy: names the malformed line, leaves the torn tail unread', async () => {
    const file = path.join(fixtures, 'pi073-damaged.jsonl');
    const read = await piSessionFiles.read(file, { maxBytes: 1e9 });
    if (E.isLeft(read)) throw new Error(read.left.detail);
    expect(read.right.damaged.map((d) => d.line)).toEqual([4]);
    expect(read.right.damaged[0]!.reason).toContain(`${file} line 4`);
    expect(read.right.pendingTailBytes).toBeGreaterThan(0);
    expect(read.right.bytes + read.right.pendingTailBytes).toBe(readFileSync(file).length);
  });

  it('reads a file while it is being written: complete lines now, the rest on the next read', async () => {
    const root = dir();
    const file = path.join(root, 's.jsonl');
    writeFileSync(file, header(root) + entry('aaaa0001', null, 'first'));
    const partial = entry('aaaa0002', 'aaaa0001', 'second');
    appendFileSync(file, partial.slice(0, 20));
    const first = await piSessionFiles.read(file, { maxBytes: 1e9, cwd: root });
    expect(E.isRight(first) && first.right.entries.map((e) => e.id)).toEqual(['aaaa0001']);
    appendFileSync(file, partial.slice(20));
    const second = await piSessionFiles.read(file, { maxBytes: 1e9, cwd: root });
    expect(E.isRight(second) && second.right.entries.map((e) => e.id)).toEqual(['aaaa0001', 'aaaa0002']);
  });

  it('streams a session larger than one read chunk, line numbers intact', async () => {
    const root = dir();
    const file = path.join(root, 'big.jsonl');
    const lines = [header(root)];
    let parent: string | null = null;
    for (let i = 0; i < 3000; i += 1) {
      const id = `b${String(i).padStart(7, '0')}`;
      lines.push(entry(id, parent, `message ${i} ${'x'.repeat(600)}`));
      parent = id;
    }
    lines.splice(2001, 0, '{broken json\n');
    writeFileSync(file, lines.join(''));
    const read = await piSessionFiles.read(file, { maxBytes: 1e9, cwd: root });
    if (E.isLeft(read)) throw new Error(read.left.detail);
    expect(read.right.entries).toHaveLength(3000);
    expect(read.right.damaged.map((d) => d.line)).toEqual([2002]);
  });

  it('names why a file is skipped: binary, not a session, other project, too large, empty, symlink, not a file, missing', async () => {
    const root = dir();
    writeFileSync(path.join(root, 'binary.jsonl'), Buffer.from([0x00, 0xff, 0x10, 0x0a, 0x00]));
    writeFileSync(path.join(root, 'text.jsonl'), 'hello\nworld\n');
    writeFileSync(path.join(root, 'other.jsonl'), header('/somewhere/else') + entry('cccc0001', null, 'x'));
    writeFileSync(path.join(root, 'huge.jsonl'), header(root) + entry('dddd0001', null, 'y'.repeat(5000)));
    writeFileSync(path.join(root, 'empty.jsonl'), '');
    symlinkSync(path.join(root, 'other.jsonl'), path.join(root, 'link.jsonl'));
    execFileSync('mkfifo', [path.join(root, 'fifo.jsonl')]);
    const reason = async (name: string, maxBytes = 1e9) => {
      const r = await piSessionFiles.read(path.join(root, name), { maxBytes, cwd: root });
      return E.isLeft(r) ? r.left.reason : 'read';
    };
    expect(await reason('binary.jsonl')).toBe('not-a-session');
    expect(await reason('text.jsonl')).toBe('not-a-session');
    expect(await reason('other.jsonl')).toBe('other-project');
    expect(await reason('huge.jsonl', 1000)).toBe('too-large');
    expect(await reason('empty.jsonl')).toBe('empty');
    expect(await reason('link.jsonl')).toBe('symlink');
    expect(await reason('missing.jsonl')).toBe('no-such-path');
    const scan = await piSessionFiles.scan([root, path.join(root, 'nope')], { maxBytes: 1000 });
    const why = Object.fromEntries(scan.skipped.map((s) => [path.basename(s.path), s.reason]));
    expect(why).toMatchObject({ 'link.jsonl': 'symlink', 'fifo.jsonl': 'not-a-file', 'huge.jsonl': 'too-large', nope: 'no-such-path' });
    expect(scan.files.map((f) => path.basename(f.path)).sort()).toEqual(['binary.jsonl', 'empty.jsonl', 'other.jsonl', 'text.jsonl']);
  });

  it('scans thousands of files in nested directories, sorted, with --since applied', async () => {
    const root = dir();
    for (let d = 0; d < 20; d += 1) {
      mkdirSync(path.join(root, `d${d}`));
      for (let f = 0; f < 100; f += 1) writeFileSync(path.join(root, `d${d}`, `s${String(f).padStart(3, '0')}.jsonl`), header(root));
    }
    writeFileSync(path.join(root, 'notes.txt'), 'not a session');
    const scan = await piSessionFiles.scan([root], { maxBytes: 1e9 });
    expect(scan.files).toHaveLength(2000);
    expect(scan.files.map((f) => f.path)).toEqual([...scan.files.map((f) => f.path)].sort());
    const later = await piSessionFiles.scan([root], { maxBytes: 1e9, sinceMs: Date.now() + 60_000 });
    expect(later.files).toHaveLength(0);
    expect(later.skipped.every((s) => s.reason === 'before-since')).toBe(true);
  });

  it('reads v1 files as a linear chain', async () => {
    const read = await piSessionFiles.read(path.join(fixtures, 'linear-v1.jsonl'), { maxBytes: 1e9 });
    if (E.isLeft(read)) throw new Error(read.left.detail);
    expect(read.right.version).toBe(1);
    expect(read.right.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['v1-0', null],
      ['v1-1', 'v1-0'],
    ]);
  });

  it('finds pi session directories the way pi names them', () => {
    expect(piSessionDir('/work/my-proj/', {}, '/home/u')).toBe('/home/u/.pi/agent/sessions/--work-my-proj--');
    expect(piSessionDir('/x', { PI_CODING_AGENT_DIR: '/agent' }, '/home/u')).toBe('/agent/sessions/--x--');
    expect(piSessionDir('/x', { PI_CODING_AGENT_SESSION_DIR: '/flat' }, '/home/u')).toBe('/flat');
    expect(normaliseCwd('/a/b/../c/')).toBe('/a/c');
  });
});
