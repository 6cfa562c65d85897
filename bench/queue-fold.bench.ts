/**
 * Opening a queue with 100,000 pending jobs: read the journal, verify every record's checksum,
 * decode every event and fold it through the machine. Baseline: a raw read of the same file.
 * Target: < 1 s.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryTwin } from '../src/adapters/server/memoryTwin.js';
import { openJsonlJournal } from '../src/adapters/queue/jsonlJournal.js';
import { openRetainQueue } from '../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../src/hosts/retainQueueStore.js';
import { CHUNK_SIZE } from '../src/machines/retainDelivery/context.js';
import { writeResult } from './lib/harness.js';

const JOBS = 100_000;

const dir = await mkdtemp(join(tmpdir(), 'am-bench-fold-'));
try {
  const queuePath = join(dir, 'memory', 'retain-queue.jsonl');
  // Written as enqueue writes a large batch: one `retain.enqueued` record per CHUNK_SIZE jobs.
  const journal = await openJsonlJournal({ path: queuePath });
  const at = '2026-11-22T10:00:00.000Z';
  for (let i = 0; i < JOBS; i += CHUNK_SIZE) {
    const jobs = Array.from({ length: Math.min(CHUNK_SIZE, JOBS - i) }, (_, k) => ({
      jobId: randomUUID(),
      bankId: 'bench',
      documentId: `doc-${(i + k) % 100}`,
      updateMode: 'append',
      item: { content: `turn ${i + k}: user asked about the build, assistant changed rollup.config.mjs`, tags: ['source:pi', 'project:bench'] },
      contentHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      idempotencyKey: randomUUID(),
      enqueuedAt: at,
    }));
    await journal.append([{ type: 'retain.enqueued', at, payload: { type: 'retain.enqueued', jobs, at: 1_700_000_000_000 } }]);
  }
  await journal.close();
  const bytes = (await stat(queuePath)).size;

  const rawStart = process.hrtime.bigint();
  await readFile(queuePath);
  const rawMs = Number(process.hrtime.bigint() - rawStart) / 1e6;

  const openStart = process.hrtime.bigint();
  const queue = await openRetainQueue({ ...fileRetainQueuePorts({ queuePath }), server: createMemoryTwin(), mode: 'coalesced', flushIntervalMs: 0, compactAbove: Number.MAX_SAFE_INTEGER });
  const openMs = Number(process.hrtime.bigint() - openStart) / 1e6;
  const depth = queue.status().depth;
  await queue.close({ flush: false });
  if (depth !== JOBS) throw new Error(`folded ${depth} jobs, expected ${JOBS}`);

  writeResult(
    'queue-fold',
    [
      {
        name: `open and fold ${JOBS} pending jobs (${(bytes / 1e6).toFixed(1)} MB)`,
        unit: 'ms',
        value: openMs,
        baseline: { name: 'raw read of the same file', value: rawMs },
        target: '< 1000 ms',
        pass: openMs < 1_000,
      },
    ],
    [`${Math.ceil(JOBS / CHUNK_SIZE)} records of up to ${CHUNK_SIZE} jobs, as enqueue writes them`],
  );
} finally {
  if (process.env.KEEP_FOLD === undefined) await rm(dir, { recursive: true, force: true }); else console.log(dir);
}
