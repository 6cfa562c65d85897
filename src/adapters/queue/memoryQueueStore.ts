/**
 * The in-memory twin of `RetainQueueStore`: one `MemoryQueueDisk` stands for the files of one
 * queue, and every `open` of it is one process's view, with its own read position, so the
 * hand-over of other processes' records (`takeForeign`), a compaction seen from elsewhere
 * (`replaced`) and the delivery lease behave as on files. Records are encoded as the JSONL
 * journal writes them (same seq, checksum and redaction); there is no torn write or damage.
 */
import type { JournalRecord } from '../../codecs/codecs.js';
import type { JournalEntry } from '../../effects/ports/journal.js';
import type { DeliveryReceipt, ForeignRecords, HeldLease, RetainQueueStoreOpener, SharedJournal } from '../../effects/ports/retainQueueStore.js';
import { encodeRecord } from './recordCodec.js';

/** What the JSONL store keeps of its receipts. */
const RECEIPTS_KEPT = 50;

export interface MemoryQueueDisk {
  /** The journal as it stands: records in file order. */
  readonly records: readonly JournalRecord[];
  /** The dead-letter log's text (JSONL). */
  readonly deadLetters: string;
  readonly receipts: readonly DeliveryReceipt[];
  /** Who holds the delivery lease now. */
  readonly leaseHolder: { readonly pid: number } | undefined;
}

interface DiskState {
  generation: number;
  records: JournalRecord[];
  bytes: number;
  deadLetters: string;
  receipts: DeliveryReceipt[];
  lease: { token: string; pid: number; at: number } | undefined;
  tokens: number;
}

export interface MemoryQueueStoreOptions {
  /** The pid this view names as lease holder, and in `processName`. */
  readonly pid?: number;
  readonly leaseStaleMs?: number;
  /** Heartbeat ages are measured on it (default `Date.now`). */
  readonly now?: () => number;
}

export interface MemoryQueueStoreTwin {
  readonly disk: MemoryQueueDisk;
  /** One process's store over this disk. */
  opener(options?: MemoryQueueStoreOptions): RetainQueueStoreOpener;
}

export const createMemoryQueueStore = (): MemoryQueueStoreTwin => {
  const state: DiskState = { generation: 0, records: [], bytes: 0, deadLetters: '', receipts: [], lease: undefined, tokens: 0 };
  const encode = (entries: readonly JournalEntry[], from: number): { records: JournalRecord[]; bytes: number } => {
    const records: JournalRecord[] = [];
    let bytes = 0;
    entries.forEach((entry, i) => {
      const { record, line } = encodeRecord(entry, from + i);
      records.push(record);
      bytes += Buffer.byteLength(line);
    });
    return { records, bytes };
  };

  const opener =
    (options: MemoryQueueStoreOptions = {}): RetainQueueStoreOpener =>
    async () => {
      const pid = options.pid ?? 1;
      const staleMs = options.leaseStaleMs ?? 30_000;
      const now = options.now ?? Date.now;
      // This view's position: the disk generation it read, how far, and what it counts.
      const view = { generation: state.generation, seen: state.records.length, records: state.records.length, bytes: state.bytes };
      let nextSeq = 0;
      let foreignBacklog: JournalRecord[] = [];
      let replacedSeen = false;
      let closed = false;
      const seqAfter = (records: readonly JournalRecord[]): void => {
        for (const record of records) if (record.seq >= nextSeq) nextSeq = record.seq + 1;
      };
      seqAfter(state.records);

      const catchUp = (): ForeignRecords => {
        if (view.generation !== state.generation) {
          Object.assign(view, { generation: state.generation, seen: state.records.length, records: 0, bytes: state.bytes });
          return { records: [], damage: [], replaced: true };
        }
        const fresh = state.records.slice(view.seen);
        Object.assign(view, { seen: state.records.length, records: view.records + fresh.length, bytes: state.bytes });
        seqAfter(fresh);
        return { records: fresh, damage: [], replaced: false };
      };
      const rewrite = (entries: readonly JournalEntry[]): void => {
        const { records, bytes } = encode(entries, 0);
        Object.assign(state, { generation: state.generation + 1, records, bytes });
        Object.assign(view, { generation: state.generation, seen: records.length, records: records.length, bytes });
        nextSeq = records.length;
      };

      const journal: SharedJournal = {
        append: (entries) => new Promise((resolve) => resolve(journal.appendSync(entries))),
        appendSync: (entries) => {
          if (closed) throw new Error('retain queue: the memory store is closed; nothing was queued');
          if (entries.length === 0) return [];
          const caught = catchUp();
          foreignBacklog.push(...caught.records);
          if (caught.replaced) replacedSeen = true;
          const { records, bytes } = encode(entries, nextSeq);
          nextSeq += records.length;
          state.records = [...state.records, ...records];
          state.bytes += bytes;
          Object.assign(view, { seen: state.records.length, records: view.records + records.length, bytes: state.bytes });
          return records;
        },
        load: async () => {
          foreignBacklog = [];
          replacedSeen = false;
          nextSeq = 0;
          seqAfter(state.records);
          Object.assign(view, { generation: state.generation, seen: state.records.length, records: state.records.length, bytes: state.bytes });
          return { records: [...state.records], damage: [] };
        },
        compact: async (entries) => {
          catchUp();
          rewrite(entries);
        },
        takeForeign: async () => {
          const caught = catchUp();
          const out: ForeignRecords = { records: [...foreignBacklog, ...caught.records], damage: [], replaced: replacedSeen || caught.replaced };
          foreignBacklog = [];
          replacedSeen = false;
          return out;
        },
        compactIfCurrent: async (build) => {
          const caught = catchUp();
          foreignBacklog.push(...caught.records);
          if (caught.replaced) replacedSeen = true;
          if (foreignBacklog.length > 0 || replacedSeen) return false;
          rewrite(build());
          return true;
        },
        stats: () => ({ records: view.records, bytes: view.bytes }),
        close: async () => {
          closed = true;
        },
      };

      const held = (token: string): HeldLease => ({
        refresh: async () => {
          if (state.lease?.token !== token) return false;
          state.lease = { ...state.lease, at: now() };
          return true;
        },
        release: async () => {
          if (state.lease?.token === token) state.lease = undefined;
        },
      });

      return {
        processName: `memory:${pid}`,
        journal,
        lease: {
          staleMs,
          tryAcquire: async () => {
            if (state.lease !== undefined && now() - state.lease.at <= staleMs) return undefined;
            state.tokens += 1;
            const token = `lease-${state.tokens}`;
            state.lease = { token, pid, at: now() };
            return held(token);
          },
          holder: async () => (state.lease === undefined ? undefined : { pid: state.lease.pid }),
        },
        addReceipt: async (receipt) => {
          state.receipts = [...state.receipts, receipt].slice(-RECEIPTS_KEPT);
        },
        appendDeadLetters: async (lines) => {
          state.deadLetters += lines;
        },
      };
    };

  return {
    disk: {
      get records() {
        return state.records;
      },
      get deadLetters() {
        return state.deadLetters;
      },
      get receipts() {
        return state.receipts;
      },
      get leaseHolder() {
        return state.lease === undefined ? undefined : { pid: state.lease.pid };
      },
    },
    opener,
  };
};
