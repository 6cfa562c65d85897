/**
 * What every `RetainQueueStore` keeps, seen from two processes on one queue: each sees the
 * other's records once (`takeForeign`), sequence numbers rise across both, a compaction waits
 * until this process has caught up and is seen elsewhere as `replaced`, one lease holder at a
 * time, and dead letters and receipts are kept.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../../src/effects/ports/journal.js';
import type { DeliveryReceipt, RetainQueueStore } from '../../../../src/effects/ports/retainQueueStore.js';

export interface RetainQueueStoreSubject {
  /** Opens the store once more: another process on the same queue. */
  open(): Promise<RetainQueueStore>;
  /** The dead-letter log as written. */
  deadLetters(): Promise<string>;
  /** The receipts as kept, newest last. */
  receipts(): Promise<readonly DeliveryReceipt[]>;
}

const entry = (type: string, n: number): JournalEntry => ({ type, at: `2026-11-23T10:00:0${n}.000Z`, payload: { type, n } });
const quiet = { onJournalDamage: () => undefined, onReceiptsDamage: () => undefined };
const types = (records: readonly { readonly type: string }[]): string[] => records.map((r) => r.type);

export const describeRetainQueueStoreConformance = (name: string, make: () => Promise<RetainQueueStoreSubject>): void => {
  describe(`RetainQueueStore conformance: ${name}`, () => {
    const two = async (): Promise<{ a: RetainQueueStore; b: RetainQueueStore; subject: RetainQueueStoreSubject }> => {
      const subject = await make();
      const a = await subject.open();
      await a.journal.load();
      const b = await subject.open();
      await b.journal.load();
      return { a, b, subject };
    };

    it('hands each process the records the other appended, once, with sequence numbers rising across both', async () => {
      const { a, b } = await two();
      const first = await a.journal.append([entry('a1', 1), entry('a2', 2)]);
      expect(first.map((r) => r.seq)).toEqual([0, 1]);
      expect(types((await b.journal.takeForeign()).records)).toEqual(['a1', 'a2']);
      expect((await b.journal.takeForeign()).records).toEqual([]);
      const second = await b.journal.append([entry('b1', 3)]);
      expect(second.map((r) => r.seq)).toEqual([2]);
      const foreign = await a.journal.takeForeign();
      expect({ records: types(foreign.records), replaced: foreign.replaced }).toEqual({ records: ['b1'], replaced: false });
      const loaded = await b.journal.load();
      expect(loaded.damage).toEqual([]);
      expect(loaded.records.map((r) => [r.seq, r.type])).toEqual([[0, 'a1'], [1, 'a2'], [2, 'b1']]);
      await Promise.all([a.journal.close(), b.journal.close()]);
    });

    it('counts what it has seen: its own appends, and those of another process once it catches up', async () => {
      const { a, b } = await two();
      await a.journal.append([entry('a1', 1)]);
      expect(a.journal.stats().records).toBe(1);
      const mine = a.journal.stats().bytes;
      expect(mine).toBeGreaterThan(0);
      await b.journal.append([entry('b1', 2)]);
      expect(a.journal.stats().bytes).toBe(mine);
      await a.journal.takeForeign();
      expect(a.journal.stats()).toEqual({ records: 2, bytes: b.journal.stats().bytes });
      await Promise.all([a.journal.close(), b.journal.close()]);
    });

    it('appends synchronously: the records are there, in order, when appendSync returns', async () => {
      const { a, b } = await two();
      const first = a.journal.appendSync([entry('a1', 1), entry('a2', 2)]);
      expect(first.map((r) => r.seq)).toEqual([0, 1]);
      expect(types((await b.journal.takeForeign()).records)).toEqual(['a1', 'a2']);
      expect(b.journal.appendSync([entry('b1', 3)]).map((r) => r.seq)).toEqual([2]);
      expect((await a.journal.load()).records.map((r) => r.type)).toEqual(['a1', 'a2', 'b1']);
      await Promise.all([a.journal.close(), b.journal.close()]);
      expect(() => a.journal.appendSync([entry('late', 4)])).toThrow(/closed; nothing was queued/);
    });

    it('compacts only once caught up; the other process then sees the log replaced and reloads it', async () => {
      const { a, b } = await two();
      await a.journal.append([entry('a1', 1), entry('a2', 2)]);
      await b.journal.takeForeign();
      await a.journal.append([entry('a3', 3)]);
      expect(await b.journal.compactIfCurrent(() => [entry('snapshot', 4)])).toBe(false);
      expect(types((await b.journal.takeForeign()).records)).toEqual(['a3']);
      expect(await b.journal.compactIfCurrent(() => [entry('snapshot', 4)])).toBe(true);
      expect(b.journal.stats().records).toBe(1);
      expect((await a.journal.takeForeign()).replaced).toBe(true);
      const reloaded = await a.journal.load();
      expect(reloaded.records.map((r) => [r.seq, r.type])).toEqual([[0, 'snapshot']]);
      expect((await a.journal.append([entry('a4', 5)]))[0]?.seq).toBe(1);
      await Promise.all([a.journal.close(), b.journal.close()]);
    });

    it('gives the delivery lease to one process at a time, and a released holder loses it', async () => {
      const { a, b } = await two();
      const held = await a.lease.tryAcquire();
      expect(held).toBeDefined();
      expect(await b.lease.tryAcquire()).toBeUndefined();
      expect(await b.lease.holder()).toMatchObject({ pid: expect.any(Number) });
      expect(await held?.refresh()).toBe(true);
      await held?.release();
      const next = await b.lease.tryAcquire();
      expect(next).toBeDefined();
      expect(await held?.refresh()).toBe(false);
      expect(await a.lease.tryAcquire()).toBeUndefined();
      await next?.release();
      expect(await a.lease.holder()).toBeUndefined();
      await Promise.all([a.journal.close(), b.journal.close()]);
    });

    it('keeps dead letters in order and the receipts it was given', async () => {
      const subject = await make();
      const store = await subject.open();
      await store.appendDeadLetters('{"reason":"one"}\n');
      await store.appendDeadLetters('{"reason":"two"}\n{"reason":"three"}\n');
      expect(await subject.deadLetters()).toBe('{"reason":"one"}\n{"reason":"two"}\n{"reason":"three"}\n');
      const receipt: DeliveryReceipt = { at: '2026-11-23T10:00:00.000Z', bankId: 'bank-a', jobCount: 2, itemsCount: 2, operationId: null, async: true, documentIds: ['doc-1'] };
      await store.addReceipt(receipt);
      await store.addReceipt({ ...receipt, operationId: 'op-2' });
      expect((await subject.receipts()).map((r) => r.operationId)).toEqual([null, 'op-2']);
      await store.journal.close();
    });

    it('refuses appends once closed', async () => {
      const subject = await make();
      const store = await subject.open();
      await store.journal.close();
      await expect(store.journal.append([entry('late', 1)])).rejects.toThrow(/closed/);
    });

    it('names this process for the batches it starts', async () => {
      const store = await (await make()).open();
      expect(store.processName).toMatch(/^[^:]+:\d+$/);
      await store.journal.close();
    });
  });
};

export { quiet as quietStoreOptions };
