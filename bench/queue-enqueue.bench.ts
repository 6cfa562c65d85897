/**
 * Enqueue latency of the retain queue (decode, redact, journal append with fsync) against a raw
 * fsync'd 4 KB append to a file in the same directory, measured in the same run.
 * Target: p50 ratio <= 3.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryTwin } from '../src/adapters/server/memoryTwin.js';
import { openRetainQueue } from '../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../src/hosts/retainQueueStore.js';
import { percentiles, writeResult } from './lib/harness.js';

const ITERATIONS = 400;
const content = 'x'.repeat(4_000);

const dir = await mkdtemp(join(tmpdir(), 'am-bench-enqueue-'));
try {
  const rawPath = join(dir, 'raw.jsonl');
  const block = Buffer.from(`${JSON.stringify({ content })}\n`);
  const rawAppend = async (): Promise<void> => {
    const handle = await fs.open(rawPath, 'a');
    await handle.write(block);
    await handle.sync();
    await handle.close();
  };
  // Coalesced mode with no interval: nothing is delivered, so this is the enqueue path alone.
  const queue = await openRetainQueue({ ...fileRetainQueuePorts({ queuePath: join(dir, 'memory', 'retain-queue.jsonl') }), server: createMemoryTwin(), mode: 'coalesced', flushIntervalMs: 0 });
  let n = 0;
  const enqueueOne = async (): Promise<void> => {
    n += 1;
    await queue.enqueue([{ bankId: 'bench', documentId: `doc-${n % 10}`, updateMode: 'append', item: { content } } as never]);
  };
  // Interleaved, one of each per round: a shared, noisy disk slows both alike.
  const time = async (fn: () => Promise<void>): Promise<number> => {
    const startedAt = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - startedAt) / 1e6;
  };
  for (let i = 0; i < 30; i += 1) {
    await rawAppend();
    await enqueueOne();
  }
  const rawSamples: number[] = [];
  const enqueueSamples: number[] = [];
  for (let i = 0; i < ITERATIONS; i += 1) {
    rawSamples.push(await time(rawAppend));
    enqueueSamples.push(await time(enqueueOne));
  }
  await queue.close({ flush: false });
  const raw = percentiles(rawSamples);
  const enqueue = percentiles(enqueueSamples);

  const ratio = enqueue.p50 / raw.p50;
  writeResult(
    'queue-enqueue',
    [
      { name: 'enqueue p50 (4 KB job)', unit: 'ms', value: enqueue.p50, baseline: { name: 'raw fsync 4 KB append p50', value: raw.p50 }, target: 'ratio <= 3', pass: ratio <= 3 },
      { name: 'enqueue p99 (4 KB job)', unit: 'ms', value: enqueue.p99, baseline: { name: 'raw fsync 4 KB append p99', value: raw.p99 } },
    ],
    [`${ITERATIONS} sequential enqueues interleaved with raw appends; the raw baseline opens, writes, fsyncs and closes like the journal does`],
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
