/**
 * Delivery throughput: 10,000 queued jobs flushed to the embedded server (to 10,000 distinct
 * documents, and to 100 documents whose appends merge), against the same jobs sent straight to
 * the server with the same client, 100 per request (no queue), in the same run. The queue sends
 * distinct documents as many per request as its batch limits allow (the server takes a request
 * in one durable write); the same flush held to 100 per request is reported beside it. The
 * server is the built CLI's `serve --in-memory`, a fresh process per measurement.
 * The direct client and the distinct-documents flush are measured in ROUNDS interleaved pairs
 * (order alternating) and compared by their medians: each measurement lasts a few tenths of a
 * second, and on a shared host the load moved between one and the next (direct alone swung
 * 5,800-58,000 jobs/s across runs minutes apart), so one of each compared two moments.
 * Targets: distinct documents >= 0.8x direct, and >= 2,000 jobs/s through the queue.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryServer } from '../src/adapters/server/client.js';
import { openRetainQueue } from '../src/effects/retainDelivery/queue.js';
import { defaultBatchLimits, type BatchLimits } from '../src/machines/retainDelivery/batch.js';
import { fileRetainQueuePorts } from '../src/hosts/retainQueueStore.js';
import { writeResult } from './lib/harness.js';
import { builtCli } from './lib/builtCli.js';

const JOBS = 10_000;
const DOCS = 100;
const BATCH = 100;
const ROUNDS = 5;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

// The server a user runs: the built CLI, rebuilt when the sources are newer.
const cli = builtCli(fileURLToPath(new URL('..', import.meta.url)));

const content = (n: number): string => `job ${n}: ${'lorem ipsum dolor sit amet '.repeat(8)}`;

/**
 * A fresh `agent-memory serve --in-memory` (the built CLI) per measurement, in its own process as
 * a user runs it: the server analyses async retains once requests pause, and in this process that
 * work landed inside whichever measurement was running (a direct sender that never pauses left
 * it all until after its clock stopped; the queue's pauses let it in).
 */
const withServer = async <T>(bank: string, run: (client: ReturnType<typeof createMemoryServer>) => Promise<T>): Promise<T> => {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--in-memory', '--no-ui'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /listening on (http:\/\/\S+)/.exec(out)?.[1];
        if (found !== undefined) resolve(found);
      });
      child.once('exit', (code) => reject(new Error(`agent-memory serve exited ${code} before listening`)));
    });
    const client = createMemoryServer({ baseUrl: url, timeoutMs: 30_000, retry: { attempts: 1, baseMs: 10, capMs: 50 } });
    await client.ensureBank(bank, { name: bank })();
    return await run(client);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
};

const dir = await mkdtemp(join(tmpdir(), 'am-bench-flush-'));
try {
  // Baseline: the same items to distinct documents, BATCH per request, straight to the server.
  const direct = (): Promise<number> =>
    withServer('bench-raw', async (client) => {
      const rawStart = process.hrtime.bigint();
      for (let i = 0; i < JOBS; i += BATCH) {
        const items = Array.from({ length: BATCH }, (_, k) => ({ content: content(i + k), document_id: `raw-${i + k}`, update_mode: 'append' as const }));
        const result = await client.retain('bench-raw', { items, async: true, operation_id: crypto.randomUUID() })();
        if (result._tag === 'Left') throw new Error(`baseline retain failed: ${JSON.stringify(result.left)}`);
      }
      return JOBS / (Number(process.hrtime.bigint() - rawStart) / 1e9);
    });

  const flushAll = (name: string, documentOf: (n: number) => string, batchLimits?: BatchLimits): Promise<number> =>
    withServer('bench-queue', async (client) => {
      const queue = await openRetainQueue({
        ...fileRetainQueuePorts({ queuePath: join(dir, name, 'retain-queue.jsonl') }),
        server: client,
        mode: 'coalesced',
        flushIntervalMs: 0,
        ...(batchLimits === undefined ? {} : { batchLimits }),
      });
      const jobs = Array.from({ length: JOBS }, (_, n) => ({ bankId: 'bench-queue', documentId: documentOf(n), updateMode: 'append', item: { content: content(n) } }));
      await queue.enqueue(jobs as never);
      const start = process.hrtime.bigint();
      const report = await queue.flush({ deadline: Date.now() + 120_000 });
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      await queue.close({ flush: false });
      if (report.remaining !== 0) throw new Error(`flush left ${report.remaining} jobs: ${report.stoppedBecause ?? ''}`);
      return JOBS / seconds;
    });
  // Distinct documents, as the queue groups them by default (defaultBatchLimits), in pairs with
  // the direct client, the order alternating so neither always goes first.
  const directRates: number[] = [];
  const distinctRates: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const flushFirst = round % 2 === 1;
    if (flushFirst) distinctRates.push(await flushAll(`distinct-${round}`, (n) => `one-${n}`));
    directRates.push(await direct());
    if (!flushFirst) distinctRates.push(await flushAll(`distinct-${round}`, (n) => `one-${n}`));
  }
  const distinctRate = median(distinctRates);
  // The same, held to the baseline's BATCH items per request.
  const distinctSameBatch = await flushAll('distinct-100', (n) => `one-${n}`, { maxItems: BATCH, maxContentChars: defaultBatchLimits.maxContentChars });
  // 100 documents: consecutive appends to a document merge into one item (coalescing).
  const rate = await flushAll('shared', (n) => `doc-${n % DOCS}`);
  const baseline = { name: `same jobs sent directly with the client, ${BATCH} per request`, value: median(directRates) };
  const pairs = directRates.map((d, i) => (distinctRates[i]! / d).toFixed(2)).join(', ');

  writeResult(
    'queue-flush',
    [
      {
        name: `flush of ${JOBS} queued jobs, ${JOBS} distinct documents (no merging), up to ${defaultBatchLimits.maxItems} per request (median of ${ROUNDS} interleaved pairs)`,
        unit: 'jobs/s',
        value: distinctRate,
        baseline,
        target: '>= 0.8x direct',
        pass: distinctRate >= 0.8 * baseline.value,
      },
      {
        name: `flush of ${JOBS} queued jobs, ${JOBS} distinct documents, held to ${BATCH} per request`,
        unit: 'jobs/s',
        value: distinctSameBatch,
        baseline,
      },
      {
        name: `flush of ${JOBS} queued jobs, ${DOCS} documents (appends merge per document)`,
        unit: 'jobs/s',
        value: rate,
        baseline,
        target: '>= 2000 jobs/s',
        pass: rate >= 2_000,
      },
    ],
    [
      'each batch is journaled (started, delivered) with fsync; every measurement against its own fresh agent-memory serve --in-memory process (acknowledged: the server analyses after)',
      `distinct documents against direct, pair by pair: ${pairs}`,
    ],
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
