/**
 * Start-up time of the embedded server on a data dir holding 100k memories (the snapshot
 * a clean close leaves), beside a raw read of the same files (same run). Also reports the time until
 * the first recall is answered, which includes building the bank's search index.
 * Target: start-up < 2 s.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeResult } from './lib/harness.js';
import { statusPoster } from './lib/postJson.js';
import { startEmbeddedServer } from '../src/server/index.js';
import { syntheticCorpus } from '../src/server/syntheticCorpus.js';

const MEMORIES = 100_000;
const RUNS = 3;
// A fresh agent per server: a pooled socket to a closed server could be handed to a new one on the same port.
const { post, fresh: freshAgent } = statusPoster();

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

const main = async (): Promise<void> => {
  const corpus = syntheticCorpus(11);
  const dir = await mkdtemp(join(tmpdir(), 'am-bench-startup-'));
  const dataDir = join(dir, 'server');
  try {
    // Build the data dir: 100k memories; close() leaves them in one snapshot.
    const builder = await startEmbeddedServer({ port: 0, dataDir });
    for (let offset = 0; offset < MEMORIES; offset += 500) {
      const status = await post(`${builder.url}/v1/default/banks/bench/memories`, JSON.stringify({ items: corpus.items(500, offset) }));
      if (status !== 200) throw new Error(`building the data dir failed with HTTP ${status}`);
    }
    await builder.close();
    freshAgent();
    const files = (await readdir(dataDir)).filter((n) => n.endsWith('.jsonl') || n.endsWith('.seg'));
    const rawRuns: number[] = [];
    const startRuns: number[] = [];
    const firstRecallRuns: number[] = [];
    const cpuRuns: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const rawStart = process.hrtime.bigint();
      let bytes = 0;
      for (const f of files) bytes += (await readFile(join(dataDir, f), 'utf8')).length;
      rawRuns.push(since(rawStart));
      if (bytes === 0) throw new Error('empty data dir');

      const start = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      const server = await startEmbeddedServer({ port: 0, dataDir });
      startRuns.push(since(start));
      const used = process.cpuUsage(cpu);
      // CPU time is what the start-up costs; wall time also counts waiting for a busy machine.
      cpuRuns.push((used.user + used.system) / 1000);
      const status = await post(`${server.url}/v1/default/banks/bench/memories/recall`, JSON.stringify({ query: corpus.query(), types: ['world'] }));
      firstRecallRuns.push(since(start));
      if (status !== 200) throw new Error(`recall after start failed with HTTP ${status}`);
      await server.close();
      freshAgent();
    }
    const startup = median(startRuns);
    const rawRead = median(rawRuns);
    writeResult(
      'server-startup',
      [
        { name: 'start-up to listening, 100k memories', unit: 'ms', value: startup, baseline: { name: 'raw read of the data files', value: rawRead }, target: '< 2000', pass: startup < 2000 },
        { name: 'start-up to first recall answered (index built)', unit: 'ms', value: median(firstRecallRuns), baseline: { name: 'raw read of the data files', value: rawRead } },
        { name: 'start-up CPU time (user + system), 100k memories', unit: 'ms', value: median(cpuRuns), baseline: { name: 'raw read of the data files', value: rawRead } },
      ],
      [`load average during the run: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`, `median of ${RUNS} starts; data dir: snapshot of ${MEMORIES} memories; files: ${files.join(', ')}`],
    );
  } finally {
    freshAgent();
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
