import { afterEach, describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openReceiptsStore, RECEIPTS_KEPT, type DeliveryReceiptRecord } from '../../../src/adapters/store/receipts.js';
import { tempQueueDir } from '../../reliability/support/queueFixtures.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const receipt = (n: number): DeliveryReceiptRecord => ({
  at: '2026-11-22T10:00:00.000Z',
  bankId: 'bank-a',
  jobCount: n,
  itemsCount: n,
  operationId: `op-${n}`,
  async: true,
  documentIds: ['doc-1'],
});

describe('receipts store (lowdb over an fsync-ing atomic adapter)', () => {
  it('keeps the last 50 receipts on disk, newest last, also under NODE_ENV=test', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    const file = join(tmp.dir, 'receipts.json');
    const store = openReceiptsStore(file);
    for (let i = 1; i <= RECEIPTS_KEPT + 5; i += 1) await store.add(receipt(i));
    const onDisk = JSON.parse(await readFile(file, 'utf8'));
    expect(onDisk.receipts).toHaveLength(RECEIPTS_KEPT);
    expect(onDisk.receipts.at(-1).jobCount).toBe(RECEIPTS_KEPT + 5);
    expect((await openReceiptsStore(file).list()).at(0)?.jobCount).toBe(6);
  });

  it('moves a damaged file aside with a message naming it, and starts fresh', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    const file = join(tmp.dir, 'receipts.json');
    await writeFile(file, '{"v":1,"receipts":[{"at":');
    const messages: string[] = [];
    const store = openReceiptsStore(file, (m) => messages.push(m));
    expect(await store.list()).toEqual([]);
    expect(messages[0]).toMatch(/receipts\.json.*moved to/);
    expect((await readdir(tmp.dir)).some((f) => f.startsWith('receipts.json.corrupt-'))).toBe(true);
    await store.add(receipt(1));
    expect(await store.list()).toHaveLength(1);
  });
});
