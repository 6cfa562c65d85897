/**
 * When a session was last imported, read from the import manifest as pi's shutdown catch-up
 * reads it: only the asked session's entry counts.
 */
import { describe, expect, it } from 'vitest';
import { lastImportedAt } from '../../../src/effects/import/manifest.js';

const entry = (importedAt: string) => ({ path: '/s.jsonl', mode: 'curated', importedAt, documents: { 'pi-import:a:1': { hash: 'h', status: 'imported' } } });

describe('lastImportedAt', () => {
  it('gives the session entry\'s time, and nothing for a session never imported', () => {
    const manifest = { version: 1, sessions: { a: entry('2026-11-28T04:00:00.000Z') } };
    expect(lastImportedAt(manifest, 'a')).toBe(Date.parse('2026-11-28T04:00:00.000Z'));
    expect(lastImportedAt(manifest, 'b')).toBeUndefined();
    expect(lastImportedAt(manifest, 'toString')).toBeUndefined();
  });

  it('reads only the asked entry: another session\'s damaged entry does not matter, its own does', () => {
    const manifest = { version: 1, sessions: { a: entry('2026-11-28T04:00:00.000Z'), b: { path: 3 }, c: entry('not a date') } };
    expect(lastImportedAt(manifest, 'a')).toBe(Date.parse('2026-11-28T04:00:00.000Z'));
    expect(lastImportedAt(manifest, 'b')).toBeUndefined();
    expect(lastImportedAt(manifest, 'c')).toBeUndefined();
  });

  it('nothing from what is not a manifest', () => {
    for (const bad of [undefined, null, 'x', [], { version: 2, sessions: {} }, { version: 1, sessions: [] }]) expect(lastImportedAt(bad, 'a')).toBeUndefined();
  });
});
