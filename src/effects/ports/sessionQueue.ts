/** The slice of the retain queue the session gate uses; the real one is `openRetainQueue`. */
import type { RetainItem } from './memoryServer.js';

export interface SessionQueueJob {
  readonly bankId: string;
  readonly documentId: string;
  readonly updateMode: 'append' | 'replace';
  readonly item: RetainItem;
  /** Which job this is for the caller (a hand-off's key and index): fixes the job's key. */
  readonly identity?: string;
}

export interface SessionQueue {
  enqueue(jobs: readonly SessionQueueJob[]): Promise<readonly unknown[]>;
  /** Durable (one fsync'd journal write) when it returns; throws when nothing was queued. */
  enqueueSync(jobs: readonly SessionQueueJob[]): readonly unknown[];
  flush(o?: { readonly deadline?: number }): Promise<unknown>;
  status(): { readonly depth: number; readonly state: string; readonly pausedReason?: string };
}
