/**
 * Delivery throughput: 10,000 queued jobs (100 documents) flushed to the embedded server, against
 * the same jobs sent straight to the server with the same client and batch size (no queue), in
 * the same run. Target: >= 2,000 jobs/s through the queue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryServer } from '../src/adapters/server/client.js';
import { openRetainQueue } from '../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../src/hosts/retainQueueStore.js';
import { startEmbeddedServer } from '../src/server/index.js';
import { writeResult } from './lib/harness.js';

const JOBS = 10_000;
const DOCS = 100;
const BATCH = 100;

const dir = await mkdtemp(join(tmpdir(), 'am-bench-flush-'));
const server = await startEmbeddedServer({ port: 0, host: '127.0.0.1' });
try {
  const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 30_000, retry: { attempts: 1, baseMs: 10, capMs: 50 } });
  for (const bank of ['bench-raw', 'bench-queue']) await client.ensureBank(bank, { name: bank })();
  const content = (n: number): string => `job ${n}: ${'lorem ipsum dolor sit amet '.repeat(8)}`;

  // Baseline: the same items to distinct documents, BATCH per request, straight to the server.
  const rawStart = process.hrtime.bigint();
  for (let i = 0; i < JOBS; i += BATCH) {
    const items = Array.from({ length: BATCH }, (_, k) => ({ content: content(i + k), document_id: `raw-${i + k}`, update_mode: 'append' as const }));
    const result = await client.retain('bench-raw', { items, async: true, operation_id: crypto.randomUUID() })();
    if (result._tag === 'Left') throw new Error(`baseline retain failed: ${JSON.stringify(result.left)}`);
  }
  const rawSeconds = Number(process.hrtime.bigint() - rawStart) / 1e9;
  await server.idle();

  const flushAll = async (name: string, documentOf: (n: number) => string): Promise<number> => {
    const queue = await openRetainQueue({
      ...fileRetainQueuePorts({ queuePath: join(dir, name, 'retain-queue.jsonl') }),
      server: client,
      mode: 'coalesced',
      flushIntervalMs: 0,
      batchLimits: { maxItems: BATCH, maxContentChars: 4 * 1024 * 1024 },
    });
    const jobs = Array.from({ length: JOBS }, (_, n) => ({ bankId: 'bench-queue', documentId: documentOf(n), updateMode: 'append', item: { content: content(n) } }));
    await queue.enqueue(jobs as never);
    const start = process.hrtime.bigint();
    const report = await queue.flush({ deadline: Date.now() + 120_000 });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    await queue.close({ flush: false });
    if (report.remaining !== 0) throw new Error(`flush left ${report.remaining} jobs: ${report.stoppedBecause ?? ''}`);
    return JOBS / seconds;
  };
  // Distinct documents: nothing merges, every request carries BATCH items like the baseline.
  const distinctRate = await flushAll('distinct', (n) => `one-${n}`);
  // 100 documents: consecutive appends to a document merge into one item (coalescing).
  const rate = await flushAll('shared', (n) => `doc-${n % DOCS}`);

  writeResult(
    'queue-flush',
    [
      {
        name: `flush of ${JOBS} queued jobs, ${JOBS} distinct documents (no merging)`,
        unit: 'jobs/s',
        value: distinctRate,
        baseline: { name: 'same jobs sent directly with the client', value: JOBS / rawSeconds },
        target: '>= 2000 jobs/s',
        pass: distinctRate >= 2_000,
      },
      {
        name: `flush of ${JOBS} queued jobs, ${DOCS} documents (appends merge per document)`,
        unit: 'jobs/s',
        value: rate,
        baseline: { name: 'same jobs sent directly with the client', value: JOBS / rawSeconds },
        target: '>= 2000 jobs/s',
      },
    ],
    [`${DOCS} documents, up to ${BATCH} items per request; each batch is journaled (started, delivered) with fsync`],
  );
} finally {
  await server.close();
  await rm(dir, { recursive: true, force: true });
}
