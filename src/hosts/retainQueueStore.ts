/**
 * The production `RetainQueueStore`: files next to the queue path (see
 * `src/adapters/queue/queueFiles.ts`), shared by every process of one project. Built here,
 * in the hosts, because it joins three backends (queue journal, fs lock, receipts document).
 */
import { hostname } from 'node:os';
import { createDirLock } from '../adapters/fs/dirLock.js';
import { nodeIds } from '../adapters/ids/nodeIds.js';
import { openJsonlJournal, type JournalFs } from '../adapters/queue/jsonlJournal.js';
import { appendDurable } from '../adapters/queue/queueFiles.js';
import { openReceiptsStore } from '../adapters/store/receipts.js';
import type { IdsPort } from '../effects/ports/ids.js';
import type { RetainQueueStoreOpener } from '../effects/ports/retainQueueStore.js';

export interface JsonlRetainQueueStoreOptions {
  /** The journal, `retain-queue.jsonl`; the other files are named from it. */
  readonly queuePath: string;
  /** File operations of the journal (tests inject a full disk). */
  readonly journalFs?: JournalFs;
  /** How long a journal write waits for another process's mutation lock. */
  readonly lockTimeoutMs?: number;
  /** Delivery lease staleness (heartbeat age) for holders on other hosts. */
  readonly leaseStaleMs?: number;
  /**
   * This user's mark for the journal (`src/adapters/queue/queueOwner.ts`): a journal without it
   * (a cloned repository's) is set aside, never delivered. `trust` marks the journal as it is.
   */
  readonly owner?: { readonly mark: string; readonly trust: boolean };
  /** Why a new file at the journal's path must not be read (`openJsonlJournal`'s `refuseNewFile`). */
  readonly refuseNewFile?: () => string | undefined;
}

export const jsonlRetainQueueStore =
  (options: JsonlRetainQueueStoreOptions): RetainQueueStoreOpener =>
  async ({ onJournalDamage, onReceiptsDamage }) => {
    const journal = await openJsonlJournal({
      path: options.queuePath,
      ...(options.journalFs === undefined ? {} : { fs: options.journalFs }),
      ...(options.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: options.lockTimeoutMs }),
      onDamage: onJournalDamage,
      ...(options.owner === undefined ? {} : { owner: options.owner }),
      ...(options.refuseNewFile === undefined ? {} : { refuseNewFile: options.refuseNewFile }),
    });
    const files = journal.files;
    const receipts = openReceiptsStore(files.receipts, onReceiptsDamage);
    const staleMs = options.leaseStaleMs ?? 30_000;
    const lock = createDirLock({ path: files.lease, staleMs });
    return {
      processName: `${hostname()}:${process.pid}`,
      journal,
      lease: { staleMs, tryAcquire: () => lock.tryAcquire(), holder: () => lock.holder() },
      addReceipt: (receipt) => receipts.add({ ...receipt, documentIds: [...receipt.documentIds] }),
      appendDeadLetters: async (lines) => {
        await appendDurable(files.deadLetters, Buffer.from(lines));
      },
    };
  };

/** The ports `openRetainQueue` needs for a queue on files: the store and SHA-256 job keys. */
export const fileRetainQueuePorts = (options: JsonlRetainQueueStoreOptions): { readonly store: RetainQueueStoreOpener; readonly ids: IdsPort } => ({
  store: jsonlRetainQueueStore(options),
  ids: nodeIds,
});
