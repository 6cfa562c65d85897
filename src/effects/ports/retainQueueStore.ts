/**
 * What the retain queue keeps outside its process: the journal every process of one project
 * shares, the delivery lease, the delivery receipts and the dead-letter log. The effect
 * (`src/effects/retainDelivery/queue.ts`) runs over this port only; `src/hosts/retainQueueStore.ts`
 * builds the production set on files next to the queue path.
 */
import type { JournalRecord } from '../../codecs/codecs.js';
import type { JournalDamage, JournalEntry, JournalPort } from './journal.js';

export interface ForeignRecords {
  readonly records: readonly JournalRecord[];
  readonly damage: readonly JournalDamage[];
  /** The log was rewritten by another process: reload it whole. */
  readonly replaced: boolean;
}

/** The shared journal: a `JournalPort` that also hands over what other processes appended. */
export interface SharedJournal extends JournalPort {
  /** Durable (fsync'd) when it returns; the one write of a queued job. */
  appendSync(entries: readonly JournalEntry[]): readonly JournalRecord[];
  /** Records other processes appended since the last load or call. */
  takeForeign(): Promise<ForeignRecords>;
  /**
   * Compacts with `build()` unless other processes appended since this process last caught
   * up (their records are not in `build`'s view yet); returns whether it compacted.
   */
  compactIfCurrent(build: () => readonly JournalEntry[]): Promise<boolean>;
  /** Records and bytes in the log as this process last saw it. */
  stats(): { readonly records: number; readonly bytes: number };
}

export interface HeldLease {
  /** Lets the lease go if this holder still has it. */
  release(): Promise<void>;
  /** Refreshes the heartbeat; false when the lease was taken over (this holder lost it). */
  refresh(): Promise<boolean>;
}

/** The delivery lease: only its holder sends jobs to the server. */
export interface LeasePort {
  /** A holder whose heartbeat is older than this is stale (the holder refreshes well within it). */
  readonly staleMs: number;
  /** Takes the lease if it is free (or stale); undefined when a live holder has it. */
  tryAcquire(): Promise<HeldLease | undefined>;
  /** The current holder, if any (named in the skip reason). */
  holder(): Promise<{ readonly pid: number } | undefined>;
}

export interface DeliveryReceipt {
  readonly at: string;
  readonly bankId: string;
  readonly jobCount: number;
  readonly itemsCount: number;
  readonly operationId: string | null;
  readonly async: boolean;
  readonly documentIds: readonly string[];
}

export interface RetainQueueStore {
  /** This process, as it names itself in the batches it starts (`host:pid`). */
  readonly processName: string;
  readonly journal: SharedJournal;
  readonly lease: LeasePort;
  /** Keeps the last deliveries, for status. */
  addReceipt(receipt: DeliveryReceipt): Promise<void>;
  /** Appends JSONL lines (jobs the server refused for good) and resolves once they are durable. */
  appendDeadLetters(lines: string): Promise<void>;
}

export interface OpenRetainQueueStoreOptions {
  /** A damaged journal record (moved aside, reported). */
  readonly onJournalDamage: (damage: JournalDamage) => void;
  /** The receipts document could not be read. */
  readonly onReceiptsDamage: (message: string) => void;
}

/** Opens the store of one queue; called once per `openRetainQueue`. */
export type RetainQueueStoreOpener = (options: OpenRetainQueueStoreOptions) => Promise<RetainQueueStore>;
