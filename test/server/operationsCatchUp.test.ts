import { describe, expect, it } from 'vitest';
import { FaultSet } from '../../src/server/faults.js';
import { createForeground } from '../../src/server/foreground.js';
import { createOperationRunner } from '../../src/server/operations.js';
import { newBank } from '../../src/server/routes/bankOps.js';
import { openStore } from '../../src/server/store/store.js';
import type { OperationRecord } from '../../src/server/store/model.js';

const deferred = (): { promise: Promise<void>; resolve: () => void } => {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('operations: a read waits for the retains there were when it came', () => {
  it('runs them at once, answers when they are done, and neither waits for nor hurries retains queued after it', async () => {
    const store = await openStore();
    const foreground = createForeground();
    let n = 0;
    const operations = createOperationRunner({ store, faults: new FaultSet(), delayMs: 0, nowIso: () => new Date().toISOString(), newId: () => `op-${(n += 1)}`, foreground });
    await store.commit([{ type: 'bank.put', bank: newBank('b', new Date().toISOString()) }]);
    const ran: string[] = [];
    const firstBatch = deferred();
    operations.registerBatch('retain', async (batch) => {
      ran.push(...batch.map((o) => o.id));
      if (batch.some((o) => o.id === 'early')) await firstBatch.promise;
      await store.commit(batch.flatMap((o) => operations.ended(o, { status: 'completed' })));
    });
    const submit = async (id: string): Promise<OperationRecord> => {
      const operation = operations.build({ bankId: 'b', taskType: 'retain', itemsCount: 1, id, payload: { items: [{ content: `text of ${id}` }] } });
      await store.commit([{ type: 'operation.put', operation }]);
      operations.schedule([operation]);
      await new Promise((resolve) => setImmediate(resolve));
      return operation;
    };
    // A request stays in flight: background work would wait for its turn (up to 250 ms).
    const leave = foreground.enter();
    await submit('early');
    let caughtUp = false;
    const read = operations.caughtUp('b').then(() => {
      caughtUp = true;
    });
    // Hurried by the read, the early retain runs without waiting for a pause.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toEqual(['early']);
    await submit('late');
    firstBatch.resolve();
    await read;
    expect(caughtUp).toBe(true);
    expect(store.bank('b')?.operations.get('early')?.status).toBe('completed');
    // The late one was queued after the read: the read did not wait for it, nor did it run hurried.
    expect(ran).toEqual(['early']);
    expect(store.bank('b')?.operations.get('late')?.status).toBe('pending');
    leave();
    await operations.idle();
    expect(ran).toEqual(['early', 'late']);
    expect(store.bank('b')?.operations.get('late')?.status).toBe('completed');
    await operations.close();
  });

  it('answers at once when the bank has nothing waiting', async () => {
    const store = await openStore();
    const operations = createOperationRunner({ store, faults: new FaultSet(), delayMs: 0, nowIso: () => new Date().toISOString(), newId: () => 'x', foreground: createForeground() });
    await expect(operations.caughtUp('nothing')).resolves.toBeUndefined();
    await operations.close();
  });
});
