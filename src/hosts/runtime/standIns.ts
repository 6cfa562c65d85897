/**
 * What a runtime puts in place of a part that could not open, so hooks and tools say why
 * instead of crashing.
 */
import * as path from 'node:path';
import type { RetainCursor } from '../../effects/ports/retainCursor.js';

/**
 * Stands in for a cursor that could not open (an unsafe or unwritable state dir): it remembers
 * nothing, so the retain path queues nothing through it (every run would repeat the last).
 */
export const refusingCursor = (memoryDir: string, reason: string): RetainCursor => ({
  path: path.join(memoryDir, 'retain-cursors.json'),
  refusal: `the retain cursor could not open (${reason})`,
  seen: () => new Set<string>(),
  retained: () => new Set<string>(),
  advance: () => {
    throw new Error(`the retain cursor is not open: ${reason}`);
  },
});

/** The queue as tools see it, its status joined with why turns are not being saved. */
export const withRetainHealth = <Q extends { status(): object }>(queue: Q, failing: () => string | undefined): Q => ({
  ...queue,
  status: () => {
    const reason = failing();
    return reason === undefined ? queue.status() : { ...queue.status(), retainFailing: reason };
  },
});

/** Stands in for a queue that could not open: tools say so instead of crashing. */
export const unavailableQueue = {
  enqueue: () => Promise.reject(new Error('the retain queue is not open; run /memory:doctor')),
  flush: () => Promise.resolve({ delivered: 0, remaining: 0, deadLettered: 0, error: 'the retain queue is not open' }),
  status: () => ({ depth: 0, deadLetters: 0, state: 'closed' }),
};
