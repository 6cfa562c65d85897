/**
 * What the retain queue shows: status and flush reports, read from the gate's snapshot.
 */
import type { RetainDeliveryContext } from '../../machines/retainDelivery/context.js';

export type QueueState = 'idle' | 'delivering' | 'backingOff' | 'paused' | 'draining';

export interface QueueStatus {
  readonly depth: number;
  readonly deadLetters: number;
  readonly state: QueueState;
  readonly pausedReason?: string;
  readonly lastDelivery?: { readonly at: string; readonly jobCount: number; readonly operationId: string | null };
  /** Redacted. */
  readonly lastError?: string;
  /** ISO time of the next retry while backing off. */
  readonly nextAttemptAt?: string;
  /** Why the last attempt did not start (e.g. another process is delivering). */
  readonly lastSkip?: string;
  /** Damaged journal records found and quarantined since open. */
  readonly damaged: number;
  /**
   * Jobs this process delivered and dead-lettered since the queue opened: a queue that opens
   * with work delivers it at once (a stopped process's backoff or pause is tried again), so a
   * caller that counts a flush's work counts these too.
   */
  readonly sinceOpen?: { readonly delivered: number; readonly deadLettered: number };
  /** Why turns are not being saved (disk full, read-only state dir); set by the host, not the queue. */
  readonly retainFailing?: string;
}

export interface FlushReport {
  readonly delivered: number;
  readonly deadLettered: number;
  readonly remaining: number;
  readonly state: QueueState;
  /** Set when the flush stopped early: backoff, pause, another process delivering, deadline. */
  readonly stoppedBecause?: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

const queueStateOf = (value: unknown): QueueState => {
  switch (value) {
    case 'selecting':
    case 'delivering':
      return 'delivering';
    case 'backingOff':
    case 'paused':
    case 'draining':
      return value;
    default:
      return 'idle';
  }
};

export const statusOf = (
  value: unknown,
  context: RetainDeliveryContext,
  damaged: number,
  sinceOpen?: { readonly delivered: number; readonly deadLettered: number },
): QueueStatus => {
  const state = queueStateOf(value);
  return {
    depth: context.depth,
    deadLetters: context.deadLetters.length,
    state,
    damaged,
    ...(sinceOpen === undefined ? {} : { sinceOpen }),
    ...(context.pausedReason === null ? {} : { pausedReason: context.pausedReason }),
    ...(context.lastDelivery === null
      ? {}
      : {
          lastDelivery: {
            at: iso(context.lastDelivery.at),
            jobCount: context.lastDelivery.jobCount,
            operationId: context.lastDelivery.receipt.operationId,
          },
        }),
    ...(context.lastError === null ? {} : { lastError: context.lastError.reason }),
    ...(state === 'backingOff' && context.retryAt !== null ? { nextAttemptAt: iso(context.retryAt) } : {}),
    ...(context.lastSkip === null ? {} : { lastSkip: context.lastSkip }),
  };
};

/** What a flush did since `before`, and why it stopped with jobs left (backoff, pause, deadline, a skip). */
export const flushReportOf = (
  value: unknown,
  context: RetainDeliveryContext,
  how: 'done' | 'deadline',
  counts: { readonly before: FlushCounts; readonly after: FlushCounts },
  now: number,
): FlushReport => {
  const state = queueStateOf(value);
  const stoppedBecause =
    how === 'deadline'
      ? 'deadline reached'
      : state === 'paused'
        ? (context.pausedReason ?? 'paused')
        : state === 'backingOff'
          ? `retrying at ${iso(context.retryAt ?? now)}: ${context.lastError?.reason ?? ''}`
          : context.depth > 0
            ? (context.lastSkip ?? context.lastError?.reason ?? undefined)
            : undefined;
  return {
    delivered: counts.after.delivered - counts.before.delivered,
    deadLettered: counts.after.deadLettered - counts.before.deadLettered,
    remaining: context.depth,
    state,
    ...(stoppedBecause === undefined ? {} : { stoppedBecause }),
  };
};

export interface FlushCounts {
  readonly delivered: number;
  readonly deadLettered: number;
}
