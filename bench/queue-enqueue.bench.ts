/**
 * Enqueue latency of the retain queue (decode, redact, journal append with fsync, under the
 * journal's lock) against a raw fsync'd 4 KB append to a file in the same directory, measured in
 * the same run. The figure is `enqueueSync`, the path pi's `agent_end` takes (the job's one
 * write); the async `enqueue` is reported beside it.
 * Target (issue 10): p50 ratio <= 2.
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
  const job = () => {
    n += 1;
    return { bankId: 'bench', documentId: `doc-${n % 10}`, updateMode: 'append' as const, item: { content: `${n} ${content}` } };
  };
  const enqueueOne = async (): Promise<void> => {
    queue.enqueueSync([job()]);
  };
  const enqueueAsync = async (): Promise<void> => {
    await queue.enqueue([job()]);
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
    await enqueueAsync();
  }
  const rawSamples: number[] = [];
  const enqueueSamples: number[] = [];
  const asyncSamples: number[] = [];
  for (let i = 0; i < ITERATIONS; i += 1) {
    rawSamples.push(await time(rawAppend));
    enqueueSamples.push(await time(enqueueOne));
    asyncSamples.push(await time(enqueueAsync));
  }
  await queue.close({ flush: false });
  const raw = percentiles(rawSamples);
  const enqueue = percentiles(enqueueSamples);
  const viaAsync = percentiles(asyncSamples);

  const ratio = enqueue.p50 / raw.p50;
  writeResult(
    'queue-enqueue',
    [
      { name: 'enqueue p50 (4 KB job, enqueueSync: the agent_end path)', unit: 'ms', value: enqueue.p50, baseline: { name: 'raw fsync 4 KB append p50', value: raw.p50 }, target: 'ratio <= 2', pass: ratio <= 2 },
      { name: 'enqueue p99 (4 KB job, enqueueSync)', unit: 'ms', value: enqueue.p99, baseline: { name: 'raw fsync 4 KB append p99', value: raw.p99 } },
      { name: 'enqueue p50 (4 KB job, async enqueue)', unit: 'ms', value: viaAsync.p50, baseline: { name: 'raw fsync 4 KB append p50', value: raw.p50 } },
    ],
    [`${ITERATIONS} rounds of one raw append, one enqueueSync and one async enqueue, interleaved; the raw baseline opens, writes, fsyncs and closes like the journal does (no lock, no catch-up, no encoding)`],
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
