/**
 * Ingest throughput of the embedded server with a data dir (every batch fsync'd before the
 * answer): 100-item sync retain batches over loopback HTTP, beside a raw node:http server
 * that appends the same bodies to a file and fdatasyncs before answering (same run).
 * Target: >= 5,000 items/s.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeResult } from './lib/harness.js';
import { statusPoster } from './lib/postJson.js';
import { startEmbeddedServer } from '../src/server/index.js';
import { syntheticCorpus } from '../src/server/syntheticCorpus.js';

const ITEMS = 30_000;
const BATCH = 100;
const { post, fresh: freshAgent } = statusPoster();

const timeBatches = async (url: string, bodies: readonly string[]): Promise<number> => {
  const started = process.hrtime.bigint();
  for (const body of bodies) {
    const status = await post(url, body);
    if (status !== 200) throw new Error(`ingest request failed with HTTP ${status}`);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return (bodies.length * BATCH) / seconds;
};

const main = async (): Promise<void> => {
  const corpus = syntheticCorpus(7);
  const bodies = Array.from({ length: ITEMS / BATCH }, (_, i) => JSON.stringify({ items: corpus.items(BATCH, i * BATCH) }));
  const dir = await mkdtemp(join(tmpdir(), 'am-bench-ingest-'));
  const server = await startEmbeddedServer({ port: 0, dataDir: join(dir, 'server') });

  const rawFile = await open(join(dir, 'raw.jsonl'), 'a');
  const baseline = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        await rawFile.write(Buffer.concat([...chunks, Buffer.from('\n')]));
        await rawFile.datasync();
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 2 });
        res.end('{}');
      })();
    });
  });
  await new Promise<void>((resolve) => baseline.listen(0, '127.0.0.1', resolve));
  const baselineUrl = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/`;

  try {
    // Warm both paths (JIT, first file growth) with one batch each.
    await post(`${server.url}/v1/default/banks/warm/memories`, bodies[0] ?? '');
    await post(baselineUrl, bodies[0] ?? '');
    const rate = await timeBatches(`${server.url}/v1/default/banks/bench/memories`, bodies);
    const baseRate = await timeBatches(baselineUrl, bodies);
    writeResult(
      'server-ingest',
      [
        {
          name: 'sync retain, 100-item batches, fsync per batch',
          unit: 'items/s',
          value: rate,
          baseline: { name: 'raw loopback POST + append + fdatasync', value: baseRate },
          target: '>= 5000',
          pass: rate >= 5000,
        },
      ],
      [`${ITEMS} items in ${ITEMS / BATCH} sequential requests into one bank; synthetic seeded corpus`],
    );
  } finally {
    freshAgent();
    await new Promise<void>((resolve) => baseline.close(() => resolve()));
    await rawFile.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
