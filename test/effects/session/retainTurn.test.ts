/**
 * The session's retain path over twins (queue store, memory server, cursor): a run is a job in
 * the queue's journal, with one append, before `retainTurn` returns; a run that cannot be
 * queued leaves the cursor where it was, so the next one carries its messages; a refused cursor
 * queues nothing (every run would repeat the whole conversation).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryQueueStore } from '../../../src/adapters/queue/memoryQueueStore.js';
import { createMemoryRetainCursor } from '../../../src/adapters/queue/memoryRetainCursor.js';
import { createMemoryTwin } from '../../../src/adapters/server/memoryTwin.js';
import { nodeIds } from '../../../src/adapters/ids/nodeIds.js';
import { defaultConfigTemplate, type MemoryConfig } from '../../../src/config/fields.js';
import { resolveScope } from '../../../src/config/scope.js';
import { systemClock } from '../../../src/effects/ports/clock.js';
import type { RetainCursor } from '../../../src/effects/ports/retainCursor.js';
import { openRetainQueue, type RetainQueue } from '../../../src/effects/retainDelivery/queue.js';
import { createRecaller } from '../../../src/effects/session/recall.js';
import { startSessionEffects, type SessionEffects } from '../../../src/effects/session/session.js';
import type { HostMessage } from '../../../src/effects/session/messages.js';

const config = { ...defaultConfigTemplate(), projectBankId: 'coding', projectId: 'proj' } as MemoryConfig;
const scope = resolveScope(config, { cwd: '/work/proj', repoRoot: '/work/proj' });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const user = (text: string, timestamp: number): HostMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp });
const assistant = (text: string, timestamp: number): HostMessage => ({ role: 'assistant', content: [{ type: 'text', text }], timestamp, stopReason: 'stop' });

interface Subject {
  readonly session: SessionEffects;
  readonly queue: RetainQueue;
  readonly store: ReturnType<typeof createMemoryQueueStore>;
  readonly notes: string[];
}

const start = async (cursor: RetainCursor, wrapQueue: (q: RetainQueue) => RetainQueue = (q) => q): Promise<Subject> => {
  const server = createMemoryTwin();
  const store = createMemoryQueueStore();
  const queue = await openRetainQueue({ store: store.opener({ pid: 1 }), ids: nodeIds, server, mode: 'coalesced', flushIntervalMs: 0, onWarning: () => undefined });
  cleanups.push(() => queue.close({ flush: false }));
  const notes: string[] = [];
  const session = await startSessionEffects({
    clock: systemClock,
    ids: nodeIds,
    recaller: createRecaller({ server, clock: systemClock }),
    cursor,
    queue: wrapQueue(queue),
    settings: () => ({ config, scope, cwd: '/work/proj' }),
    notify: (_level, text) => notes.push(text),
  });
  cleanups.push(() => session.stop());
  await session.send({ type: 'session.started', sessionId: 's1', reason: 'startup', automation: { recall: true, retain: true } });
  return { session, queue, store, notes };
};

const enqueuedRecords = (store: Subject['store']): number => store.disk.records.filter((r) => r.type === 'retain.enqueued').length;

describe('retainTurn', () => {
  it('puts the run in the queue journal, once, before it returns; the same messages again add nothing', async () => {
    const cursor = createMemoryRetainCursor();
    const { session, queue, store } = await start(cursor);
    const turn = session.retainTurn([user('We deploy with blue-green switches.', 1), assistant('Noted.', 2)]);
    // Synchronously: one record in the journal, the queue's fold has the job, the cursor moved.
    expect(turn.durable).toBe(true);
    expect(enqueuedRecords(store)).toBe(1);
    expect(queue.status().depth).toBe(1);
    expect(cursor.seen('s1').size).toBe(2);
    expect(await turn.settled).toMatchObject({ outcome: 'queued', messages: 2 });
    const again = session.retainTurn([user('We deploy with blue-green switches.', 1), assistant('Noted.', 2)]);
    expect(again.durable).toBe(false);
    expect((await again.settled).outcome).toBe('nothing');
    expect(enqueuedRecords(store)).toBe(1);
  });

  it('a run the queue refuses keeps the cursor, and the next run carries its messages', async () => {
    const cursor = createMemoryRetainCursor();
    let full = true;
    const { session, queue, notes } = await start(cursor, (q) => ({
      ...q,
      enqueueSync: (jobs) => {
        if (full) throw new Error('retain queue: could not write the journal (ENOSPC); nothing was queued; the disk is full');
        return q.enqueueSync(jobs);
      },
    }));
    const first = session.retainTurn([user('The cache TTL is 300 seconds.', 1), assistant('OK.', 2)]);
    expect(first.durable).toBe(false);
    expect(await first.settled).toMatchObject({ outcome: 'failed' });
    expect(cursor.seen('s1').size).toBe(0);
    expect(notes.join('\n')).toMatch(/could not save this turn.*disk is full/);
    full = false;
    const second = session.retainTurn([user('The cache TTL is 300 seconds.', 1), assistant('OK.', 2), user('And the queue size is 10.', 3), assistant('OK.', 4)]);
    expect(second.durable).toBe(true);
    expect(await second.settled).toMatchObject({ outcome: 'queued', messages: 4 });
    expect(queue.status().depth).toBe(1);
  });

  it('a refused cursor queues nothing and says why', async () => {
    const { session, queue, store } = await start(createMemoryRetainCursor({ refusal: 'the retain cursor could not open (it is a directory)' }));
    const turn = session.retainTurn([user('Remember the staging host name.', 1)]);
    expect(turn.durable).toBe(false);
    expect(await turn.settled).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(/retain cursor could not open/) });
    expect(enqueuedRecords(store)).toBe(0);
    expect(queue.status().depth).toBe(0);
  });
});
