/**
 * The journal as the gate sees it, and the sync with the other processes that share it.
 *
 * The gate writes only its own records (a replica, folded in from another process, is not
 * written again) and folds only the shared ones at start; a sync folds in, one at a time, what
 * other processes appended since, or rebuilds the gate when another process rewrote the log.
 */
import type { JsonValue } from '../../codecs/codecs.js';
import { sharedEventTypes } from '../../machines/retainDelivery/events.js';
import type { JournalEntry, JournalPort } from '../ports/journal.js';
import type { SharedJournal } from '../ports/retainQueueStore.js';
import { gateOf, oneAtATime, type QueueCore } from './core.js';

const isReplica = (entry: JournalEntry): boolean =>
  typeof entry.payload === 'object' && entry.payload !== null && !Array.isArray(entry.payload) && entry.payload['replica'] === true;

const ownEntries = (entries: readonly JournalEntry[]): readonly JournalEntry[] => entries.filter((entry) => !isReplica(entry));

/** The gate's journal over the shared one. */
export const gateJournalOf = (journal: SharedJournal): JournalPort => ({
  append: (entries) => {
    const own = ownEntries(entries);
    return own.length === 0 ? Promise.resolve([]) : journal.append(own);
  },
  // Every dispatch of the gate is synchronous over it: nothing is ever written but not yet folded.
  appendSync: (entries) => {
    const own = ownEntries(entries);
    return own.length === 0 ? [] : journal.appendSync(own);
  },
  // Another process's own events (its shutdown, its skipped batch) are not part of this fold.
  load: async () => {
    const loaded = await journal.load();
    return { ...loaded, records: loaded.records.filter((record) => sharedEventTypes.has(record.type)) };
  },
  compact: (entries) => journal.compact(entries),
  close: async () => undefined,
});

export interface SyncResult {
  readonly outcome: 'current' | 'rebuilt';
  /** Records that changed the fold. */
  readonly folded: number;
}

export type ForeignSync = () => Promise<SyncResult>;

/**
 * One sync at a time: two interleaved folds could apply another process's records out of
 * order. `rebuild` restarts the gate from the rewritten log.
 */
export const foreignSync = (core: QueueCore, journal: SharedJournal, rebuild: () => Promise<void>): ForeignSync => {
  const serial = oneAtATime();
  return () =>
    serial.run(async () => {
      const foreign = await journal.takeForeign();
      core.damaged += foreign.damage.length;
      if (foreign.replaced) {
        await rebuild();
        return { outcome: 'rebuilt', folded: 0 };
      }
      let folded = 0;
      for (const record of foreign.records) {
        const payload: JsonValue = record.payload;
        if (!sharedEventTypes.has(record.type) || record.type === 'retain.snapshot' || typeof payload !== 'object' || payload === null || Array.isArray(payload)) continue;
        await gateOf(core).dispatch({ ...payload, replica: true });
        folded += 1;
      }
      return { outcome: 'current', folded };
    });
};
