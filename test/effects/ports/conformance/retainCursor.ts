/**
 * What every `RetainCursor` keeps: fingerprints per session, growing only, each session apart,
 * and (for a cursor that persists) what another opening of it sees.
 */
import { describe, expect, it } from 'vitest';
import type { RetainCursor } from '../../../../src/effects/ports/retainCursor.js';

export interface RetainCursorSubject {
  /** Opens the cursor once more (another process of the project); the same object for a twin that does not persist. */
  open(): RetainCursor;
  readonly persists: boolean;
}

export const describeRetainCursorConformance = (name: string, make: () => Promise<RetainCursorSubject>): void => {
  describe(`RetainCursor conformance: ${name}`, () => {
    it('starts empty, then holds every fingerprint it advanced past, per session', async () => {
      const cursor = (await make()).open();
      expect([...cursor.seen('s1')]).toEqual([]);
      cursor.advance('s1', ['a', 'b'], 1, 'queued');
      cursor.advance('s1', ['c'], 2, 'queued');
      cursor.advance('s2', ['x'], 3, 'queued');
      expect([...cursor.seen('s1')].sort()).toEqual(['a', 'b', 'c']);
      expect([...cursor.seen('s2')]).toEqual(['x']);
      cursor.advance('s1', [], 4, 'queued');
      expect(cursor.seen('s1').size).toBe(3);
    });

    it('keeps apart what was queued from what was passed over: retained holds only the queued runs', async () => {
      const subject = await make();
      const cursor = subject.open();
      cursor.advance('s1', ['q1', 'q2'], 1, 'queued');
      cursor.advance('s1', ['p1'], 2, 'passed');
      cursor.advance('s2', ['p2'], 3, 'passed');
      expect([...cursor.seen('s1')].sort()).toEqual(['p1', 'q1', 'q2']);
      expect([...cursor.retained('s1')].sort()).toEqual(['q1', 'q2']);
      expect(cursor.retained('s2').size).toBe(0);
      const later = subject.open();
      expect([...later.retained('s1')].sort()).toEqual(['q1', 'q2']);
      expect([...later.seen('s1')].sort()).toEqual(['p1', 'q1', 'q2']);
    });

    it('a later opening sees what an earlier one advanced, and neither rolls back the other', async () => {
      const subject = await make();
      const a = subject.open();
      const b = subject.open();
      a.advance('session-a', ['a1'], 1, 'queued');
      b.advance('session-b', ['b1'], 2, 'queued');
      a.advance('session-a', ['a2'], 3, 'queued');
      const later = subject.open();
      if (subject.persists) expect([...later.seen('session-b')]).toEqual(['b1']);
      expect([...later.seen('session-a')].sort()).toEqual(['a1', 'a2']);
    });
  });
};
