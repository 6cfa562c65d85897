/** The cursor file: bounded, never fatal when unreadable, never followed through a planted link. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { openRetainCursor } from '../../../src/adapters/queue/retainCursor.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(path.join(tmpdir(), 'am-cursor-'));
  dirs.push(dir);
  return dir;
};

describe('retain cursor file', () => {
  it('a file that is not JSON counts as empty and is replaced whole on the next advance', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'retain-cursors.json'), '{not json');
    const cursor = openRetainCursor(dir);
    expect(cursor.seen('s').size).toBe(0);
    cursor.advance('s', ['f1'], 1, 'queued');
    expect(JSON.parse(await readFile(cursor.path, 'utf8'))).toEqual({ v: 1, sessions: { s: { fingerprints: ['f1'], updatedAt: 1, queued: ['f1'] } } });
  });

  it('keeps the 200 most recently used sessions', async () => {
    const cursor = openRetainCursor(await tempDir());
    for (let i = 0; i < 205; i += 1) cursor.advance(`s${i}`, [`f${i}`], i, 'passed');
    const sessions = Object.keys(JSON.parse(await readFile(cursor.path, 'utf8')).sessions as object);
    expect(sessions).toHaveLength(200);
    expect(sessions).not.toContain('s0');
    expect(sessions).toContain('s204');
  });

  it('reads a cursor far larger than an ordinary state file (many long sessions)', async () => {
    const dir = await tempDir();
    const sessions = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`s${i}`, { fingerprints: Array.from({ length: 1_000 }, (_, k) => `${i}-${k}-${'f'.repeat(16)}`), updatedAt: i }]),
    );
    await writeFile(path.join(dir, 'retain-cursors.json'), JSON.stringify({ v: 1, sessions }));
    const cursor = openRetainCursor(dir);
    expect(cursor.seen('s59').size).toBe(1_000);
  });

  it('a session written before `queued` existed has nothing retained, and keeps what it had when it grows', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'retain-cursors.json'), JSON.stringify({ v: 1, sessions: { old: { fingerprints: ['o1', 'o2'], updatedAt: 1 } } }));
    const cursor = openRetainCursor(dir);
    expect(cursor.seen('old').size).toBe(2);
    expect(cursor.retained('old').size).toBe(0);
    cursor.advance('old', ['n1'], 2, 'queued');
    expect(JSON.parse(await readFile(cursor.path, 'utf8'))).toEqual({ v: 1, sessions: { old: { fingerprints: ['o1', 'o2', 'n1'], updatedAt: 2, queued: ['n1'] } } });
  });

  it('refuses a cursor file planted as a link, naming it, and writes nothing through it', async () => {
    const dir = await tempDir();
    const target = path.join(dir, 'elsewhere');
    await writeFile(target, 'keep');
    await symlink(target, path.join(dir, 'retain-cursors.json'));
    expect(() => openRetainCursor(dir)).toThrow(/retain-cursors\.json/);
    expect(await readFile(target, 'utf8')).toBe('keep');
  });
});
