/**
 * Runs the live session marked not kept (next-opt-out, memory off) stay out of an import, in
 * every mode and branch choice: a mark drops back to the entry it names; one naming no entry,
 * or damaged, drops back to the last user turn before it; another extension's entry drops
 * nothing. The fixture is a pi v3 session file read by the real reader.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { piSessionFiles } from '../../../src/adapters/sessions/piSessionFiles.js';
import { buildSessionDocuments, notKeptEntries, type ModeOptions } from '../../../src/effects/import/documents.js';
import type { SessionRead } from '../../../src/effects/ports/sessionFiles.js';

const FIXTURE = path.resolve(__dirname, '../../../fixtures/pi/sessions/not-kept-v3.jsonl');

const read = async (): Promise<SessionRead> => {
  const result = await piSessionFiles.read(FIXTURE, { maxBytes: 1e9 });
  if (E.isLeft(result)) throw new Error(`${result.left.reason}: ${result.left.detail}`);
  return result.right;
};

const base: ModeOptions = { mode: 'curated', qualityProfile: 'compatible', branches: 'current-only', toolResults: 'errors-only', toolSummaryMaxChars: 500 as never };
const MODES: readonly ModeOptions[] = [base, { ...base, qualityProfile: 'strict' }, { ...base, mode: 'raw' }, { ...base, mode: 'forensic' }, { ...base, mode: 'forensic', branches: 'all-leaves' }];

describe('import drops runs marked not kept', () => {
  it('names the dropped entries: named run, unknown-id run, damaged-mark run, each with its mark', async () => {
    const { ids, runs } = notKeptEntries(await read());
    expect(runs).toBe(3);
    expect([...ids].sort()).toEqual(['e03', 'e04', 'm05', 'e08', 'e09', 'm10', 'e13', 'e14', 'm15'].sort());
  });

  for (const options of MODES) {
    it(`${options.mode}/${options.qualityProfile}/${options.branches}: kept runs in, marked runs out, counted`, async () => {
      const built = buildSessionDocuments(await read(), options);
      const text = built.documents.map((d) => d.content).join('\n');
      for (const kept of ['Kept one', 'Noted esbuild', 'Kept two', 'Kept three', 'Kept four', 'Kept five', 'Noted the last run']) expect(text).toContain(kept);
      for (const gone of ['secret plan', 'private budget', 'hidden salary', 'Opted out', 'Memory off', 'Damaged mark']) expect(text).not.toContain(gone);
      expect(built.stats.runsNotKept).toBe(3);
    });
  }

  it('a session without marks drops nothing and counts none', async () => {
    const session = await read();
    // The marks, as another extension's entries (the chain of parents stays whole).
    const unmarked: SessionRead = { ...session, entries: session.entries.map((e) => (e.customType === 'agent-memory' ? { ...e, customType: 'other-extension' } : e)) };
    const built = buildSessionDocuments(unmarked, base);
    expect(built.stats.runsNotKept).toBe(0);
    expect(built.documents.map((d) => d.content).join('\n')).toContain('secret plan');
  });
});
