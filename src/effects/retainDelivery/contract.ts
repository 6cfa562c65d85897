/**
 * What an open retain queue offers its callers (tools, the session effects, the CLI) and what
 * opening one takes. Implemented by `openRetainQueue` (`queue.ts`).
 */
import type { BatchLimits } from '../../machines/retainDelivery/batch.js';
import type { DeliveryMode } from '../../machines/retainDelivery/context.js';
import type { BackoffPolicy } from '../../machines/retainDelivery/decide.js';
import type { DeadLetter, RetainJob } from '../../machines/retainDelivery/events.js';
import type { ClockPort } from '../ports/clock.js';
import type { IdsPort } from '../ports/ids.js';
import type { JournalPort } from '../ports/journal.js';
import type { MemoryServer } from '../ports/memoryServer.js';
import type { RetainQueueStoreOpener } from '../ports/retainQueueStore.js';
import type { TracePort } from '../ports/trace.js';
import type { NewRetainJob } from './jobs.js';
import type { FlushReport, QueueStatus } from './status.js';

export interface RetainQueue {
  /** Queues jobs; resolves with them only when they are fsync'd. Rejects (nothing queued) on bad input or a write failure. */
  enqueue(jobs: readonly NewRetainJob[]): Promise<readonly RetainJob[]>;
  /**
   * `enqueue`, durable (one write, one fsync) when it returns; throws on bad input or a write
   * failure (nothing queued). For a hook the host never awaits (pi's `agent_end`). After
   * `close()` the jobs still go to the shared journal, for whichever process delivers next.
   */
  enqueueSync(jobs: readonly NewRetainJob[]): readonly RetainJob[];
  /** Delivers what is due; resolves when delivery stops (empty, backing off, paused, lease elsewhere) or at `deadline`. */
  flush(o?: { readonly deadline?: number; readonly force?: boolean }): Promise<FlushReport>;
  status(): QueueStatus;
  subscribe(listener: (s: QueueStatus) => void): () => void;
  deadLetters(): Promise<readonly DeadLetter[]>;
  /** Moves dead letters (all, or these job ids) back to the queue; returns how many. */
  requeueDeadLetters(ids?: readonly string[]): Promise<number>;
  /** Removes dead letters (all, or these job ids) for good; returns how many. */
  dropDeadLetters(ids?: readonly string[]): Promise<number>;
  /** Leaves a pause and delivers; pass `server` when the fix was a new key or URL (a new client). */
  resume(o?: { readonly server?: MemoryServer }): Promise<void>;
  /**
   * Re-probes a pause (401/403, bank gone) by trying the batch again, and ends a backoff at
   * once: for a session start, a config reload, a user's flush. A failure pauses or backs off again.
   */
  recheck(o?: { readonly server?: MemoryServer }): Promise<void>;
  /** Delivers what it can before `deadline` (default 3 s), finishes the batch in flight, releases the lease. */
  close(o?: { readonly deadline?: number; readonly flush?: boolean }): Promise<void>;
}

export interface OpenRetainQueueOptions {
  /** The journal, lease, receipts and dead letters (`jsonlRetainQueueStore` in src/hosts for files). */
  readonly store: RetainQueueStoreOpener;
  /** Job keys are its digests: every process sharing a store must use the same (`nodeIds`). */
  readonly ids: IdsPort;
  readonly server: MemoryServer;
  readonly mode: DeliveryMode;
  readonly flushIntervalMs: number;
  readonly clock?: ClockPort;
  readonly trace?: TracePort;
  /** Send retains async (default true): `operation_id` makes a repeat a no-op only then. */
  readonly async?: boolean;
  readonly backoff?: BackoffPolicy;
  readonly batchLimits?: BatchLimits;
  /** Jitter source; tests pass a fixed one. */
  readonly random?: () => number;
  /** Wraps the journal the gate writes through (tests inject faults). */
  readonly wrapJournal?: (journal: JournalPort) => JournalPort;
  /** Compact when the journal holds more than this many records and 4x the live set. */
  readonly compactAbove?: number;
  readonly onWarning?: (message: string) => void;
}
