/** The file store (JSONL journal, dir-lock lease, lowdb receipts) and its in-memory twin keep the same contract. */
import { readFile } from 'node:fs/promises';
import { afterAll } from 'vitest';
import { openReceiptsStore } from '../../../src/adapters/store/receipts.js';
import { queueFiles } from '../../../src/adapters/queue/queueFiles.js';
import { createMemoryQueueStore } from '../../../src/adapters/queue/memoryQueueStore.js';
import { jsonlRetainQueueStore } from '../../../src/hosts/retainQueueStore.js';
import { tempQueueDir } from '../../reliability/support/queueFixtures.js';
import { describeRetainQueueStoreConformance, quietStoreOptions } from './conformance/retainQueueStore.js';

const disposals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const dispose of disposals.splice(0)) await dispose();
});

describeRetainQueueStoreConformance('JSONL files', async () => {
  const { queuePath, dispose } = await tempQueueDir();
  disposals.push(dispose);
  const files = queueFiles(queuePath);
  const open = jsonlRetainQueueStore({ queuePath });
  return {
    open: () => open(quietStoreOptions),
    deadLetters: () => readFile(files.deadLetters, 'utf8'),
    receipts: () => openReceiptsStore(files.receipts).list(),
  };
});

describeRetainQueueStoreConformance('memory twin', async () => {
  const twin = createMemoryQueueStore();
  let pid = 0;
  return {
    open: () => {
      pid += 1;
      return twin.opener({ pid })(quietStoreOptions);
    },
    deadLetters: async () => twin.disk.deadLetters,
    receipts: async () => twin.disk.receipts,
  };
});
