/**
 * An in-memory `JournalPort`: the twin of the JSONL journal for tests that need a journal but
 * not a disk. It assigns sequence numbers and checksums like the file journal, keeps records
 * in order, and can be told to fail the next append (a full disk).
 */
import type { JournalEntry, JournalPort } from '../../src/effects/ports/journal.js';
import type { JournalRecord } from '../../src/codecs/codecs.js';
import { encodeRecord } from '../../src/adapters/queue/recordCodec.js';

export interface MemoryJournal extends JournalPort {
  readonly records: readonly JournalRecord[];
  /** The next append rejects with this error and stores nothing. */
  failNextAppend(error: Error): void;
  /** How many times `compact` replaced the log. */
  readonly compactions: number;
}

export const createMemoryJournal = (initial: readonly JournalEntry[] = []): MemoryJournal => {
  let records: JournalRecord[] = initial.map((entry, seq) => encodeRecord(entry, seq).record);
  let failure: Error | undefined;
  let compactions = 0;
  let closed = false;
  return {
    get records() {
      return records;
    },
    get compactions() {
      return compactions;
    },
    failNextAppend: (error) => {
      failure = error;
    },
    append: async (entries) => {
      if (closed) throw new Error('memory journal: closed');
      if (failure !== undefined) {
        const error = failure;
        failure = undefined;
        throw error;
      }
      const added = entries.map((entry, i) => encodeRecord(entry, records.length + i).record);
      records = [...records, ...added];
      return added;
    },
    load: async () => ({ records: [...records], damage: [] }),
    compact: async (entries) => {
      records = entries.map((entry, seq) => encodeRecord(entry, seq).record);
      compactions += 1;
    },
    close: async () => {
      closed = true;
    },
  };
};
