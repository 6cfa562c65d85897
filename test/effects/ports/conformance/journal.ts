/** What every `JournalPort` keeps: records in append order with rising seq, load replays them, compact replaces them. */
import { describe, expect, it } from 'vitest';
import type { JournalEntry, JournalPort } from '../../../../src/effects/ports/journal.js';

export interface JournalSubject {
  readonly journal: JournalPort;
  /** The same journal opened again (a restart), or undefined for a twin that lives in memory only. */
  reopen?(): Promise<JournalPort>;
}

const entry = (type: string, n: number): JournalEntry => ({ type, at: `2026-11-23T10:00:0${n}.000Z`, payload: { type, n } });

export const describeJournalConformance = (name: string, make: () => Promise<JournalSubject>): void => {
  describe(`JournalPort conformance: ${name}`, () => {
    it('appends in order with rising sequence numbers and loads the same records back', async () => {
      const { journal, reopen } = await make();
      const first = await journal.append([entry('a', 1), entry('b', 2)]);
      const second = await journal.append([entry('c', 3)]);
      const appended = [...first, ...second];
      expect(appended.map((r) => r.type)).toEqual(['a', 'b', 'c']);
      expect(appended.map((r) => r.seq)).toEqual([0, 1, 2]);
      const loaded = await journal.load();
      expect(loaded.damage).toEqual([]);
      expect(loaded.records.map((r) => [r.seq, r.type, r.at, r.payload])).toEqual(appended.map((r) => [r.seq, r.type, r.at, r.payload]));
      await journal.close();
      if (reopen !== undefined) {
        const again = await reopen();
        expect((await again.load()).records.map((r) => r.type)).toEqual(['a', 'b', 'c']);
        expect((await again.append([entry('d', 4)]))[0]?.seq).toBe(3);
        await again.close();
      }
    });

    it('compacts to exactly the entries given, numbered from zero', async () => {
      const { journal } = await make();
      await journal.append([entry('a', 1), entry('b', 2), entry('c', 3)]);
      await journal.compact([entry('snapshot', 4)]);
      const loaded = await journal.load();
      expect(loaded.records.map((r) => [r.seq, r.type])).toEqual([[0, 'snapshot']]);
      expect((await journal.append([entry('e', 5)]))[0]?.seq).toBe(1);
      await journal.close();
    });

    it('refuses appends once closed', async () => {
      const { journal } = await make();
      await journal.close();
      await expect(journal.append([entry('late', 1)])).rejects.toThrow(/closed/);
    });
  });
};
