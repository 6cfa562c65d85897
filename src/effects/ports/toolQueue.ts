/**
 * The slice of the retain queue the tools call, declared here as a structural subset so the
 * tools depend only on what they use; the real `RetainQueue` (src/effects/retainDelivery/queue.ts)
 * satisfies it. The memory server is used through its port as is.
 */
import type { RetainItem } from './memoryServer.js';

export interface RetainJobInput {
  readonly bankId: string;
  readonly documentId: string;
  readonly updateMode: 'append' | 'replace';
  readonly item: RetainItem;
}

export interface QueuedJob {
  readonly jobId: string;
  readonly documentId: string;
}

export interface ToolFlushReport {
  readonly delivered: number;
  readonly remaining: number;
  readonly deadLettered: number;
  /** Why the flush stopped early (backoff, pause, another process delivering, deadline). */
  readonly stoppedBecause?: string;
}

export interface ToolQueueStatus {
  readonly depth: number;
  readonly deadLetters: number;
  readonly state: string;
  readonly pausedReason?: string;
  readonly lastError?: string;
  readonly lastDelivery?: { readonly at: string; readonly jobCount: number; readonly operationId: string | null };
  /** ISO time of the next retry while backing off. */
  readonly nextAttemptAt?: string;
  /** Why turns are not being saved (disk full, read-only state dir). */
  readonly retainFailing?: string;
}

/** What the tools call on the durable retain queue. */
export interface ToolRetainQueue {
  /** Resolves once the jobs are durable (fsync'd). */
  enqueue(jobs: readonly RetainJobInput[]): Promise<readonly QueuedJob[]>;
  flush(o?: { deadline?: number }): Promise<ToolFlushReport>;
  status(): ToolQueueStatus;
}
