/**
 * Compaction: a journal much longer than its live set is rewritten as a snapshot of that set,
 * so the next process to open it folds the live jobs, not the history. Only while delivery is
 * settled, and only if no other process appended since this one caught up.
 */
import { pendingJobs, recentIds } from '../../machines/retainDelivery/context.js';
import { isSettled } from '../../machines/retainDelivery/selectors.js';
import type { JournalEntry } from '../ports/journal.js';
import type { SharedJournal } from '../ports/retainQueueStore.js';
import { toJson } from '../kernel/trace.js';
import { snapshotOf, type QueueCore, type QueueSnapshot } from './core.js';

const SNAPSHOT_CHUNK = 1_000;

/** The live set as `retain.snapshot` records of at most `SNAPSHOT_CHUNK` jobs; the first carries the rest of the state. */
const snapshotEntries = (snapshot: QueueSnapshot, now: number): JournalEntry[] => {
  const at = new Date(now).toISOString();
  const { context } = snapshot;
  const jobs = pendingJobs(context);
  const entries: JournalEntry[] = [];
  for (let i = 0; i === 0 || i < jobs.length; i += SNAPSHOT_CHUNK) {
    const first = i === 0;
    const payload = {
      type: 'retain.snapshot',
      jobs: jobs.slice(i, i + SNAPSHOT_CHUNK),
      deadLetters: first ? context.deadLetters : [],
      inFlight: first ? context.inFlight : null,
      pausedReason: first ? context.pausedReason : null,
      retryAt: first ? context.retryAt : null,
      failures: first ? context.failures : 0,
      // The dedupe window survives compaction: a late copy of a delivered job stays dropped.
      ...(first ? { recentKeys: recentIds(context) } : {}),
      at: context.now,
    };
    entries.push({ type: 'retain.snapshot', at, payload: toJson(payload) });
  }
  return entries;
};

/** Compacts when the journal holds more than `compactAbove` records and 4x the live set. */
export const compactIfLong = async (core: QueueCore, journal: SharedJournal, compactAbove: number): Promise<void> => {
  const snapshot = snapshotOf(core);
  if (!isSettled(snapshot)) return;
  const live = Math.ceil(snapshot.context.depth / SNAPSHOT_CHUNK) + 1;
  const { records } = journal.stats();
  if (records <= compactAbove || records <= 4 * live) return;
  await journal.compactIfCurrent(() => snapshotEntries(snapshotOf(core), core.clock.now()));
};
