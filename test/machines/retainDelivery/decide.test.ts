/**
 * The machine decides when a failed batch is tried again, from the jitter and the server's
 * "not before" the failure event carries: the same journal always folds to the same retry time.
 */
import { describe, expect, it } from 'vitest';
import { initialTransition } from 'xstate';
import { retainDeliveryMachine } from '../../../src/machines/retainDelivery/machine.js';
import { retainEvents, type RetainJob } from '../../../src/machines/retainDelivery/events.js';
import { nextAttemptAt } from '../../../src/machines/retainDelivery/decide.js';
import { ev, run, type Snapshot } from './fold.js';

const job = { jobId: 'job-00000001', bankId: 'b', documentId: 'd', updateMode: 'append', item: { content: 'x' }, contentHash: 'h', idempotencyKey: 'k', enqueuedAt: '2026-11-22T10:00:00.000Z' } as unknown as RetainJob;
const policy = { baseMs: 1_000, capMs: 8_000 };

/** Enqueued, batch out, then the given failure. */
const failedWith = (fields: Record<string, unknown>, failures = 0): Snapshot => {
  let s = initialTransition(retainDeliveryMachine, { mode: 'coalesced', backoff: policy })[0];
  s = run(s, ev(retainEvents.enqueued({ jobs: [job], at: 100 })));
  for (let i = 0; i <= failures; i += 1) {
    s = run(
      s,
      ev(retainEvents.batchStarted({ batch: { jobIds: [job.jobId], operationId: 'op', owner: 'me' }, at: 200 + i })),
      ev({ type: 'retain.failed', jobIds: [job.jobId], failureClass: 'retry', reason: 'unreachable', at: 1_000 + i * 10, ...fields }),
    );
  }
  return s;
};

describe('retain-delivery machine: retry times', () => {
  it('is base/2 .. base after the first failure, picked by the jitter the event carries', () => {
    expect(failedWith({ jitter: 0 }).context.retryAt).toBe(1_000 + 500);
    expect(failedWith({ jitter: 1 }).context.retryAt).toBe(1_000 + 1_000);
    expect(failedWith({ jitter: 0.5 }).value).toBe('backingOff');
  });

  it('grows with consecutive failures up to the cap', () => {
    const third = failedWith({ jitter: 1 }, 2);
    expect(third.context.failures).toBe(3);
    expect(third.context.retryAt).toBe(1_020 + 4_000);
    expect(failedWith({ jitter: 1 }, 6).context.retryAt).toBe(1_060 + 8_000);
    expect(nextAttemptAt(0, 40, policy, 1)).toBe(8_000);
  });

  it("never before the server's Retry-After or the breaker's time, but not past the cap", () => {
    expect(failedWith({ jitter: 0, notBefore: 5_000 }).context.retryAt).toBe(5_000);
    expect(failedWith({ jitter: 0, notBefore: 1_000_000 }).context.retryAt).toBe(1_000 + 8_000);
  });

  it('keeps the retry time an older record carries, and a report-class failure waits for the next flush', () => {
    expect(failedWith({ retryAt: 4_321 }).context.retryAt).toBe(4_321);
    const report = failedWith({ failureClass: 'report', retryAt: null });
    expect(report.value).toBe('idle');
    expect(report.context.retryAt).toBeNull();
  });
});
