/**
 * Two builds of `agent-memory serve` ingesting the same synthetic items (server-peers' corpus,
 * batches of 100, one request at a time over keep-alive HTTP), interleaved round by round, each
 * into a fresh data dir: on a shared machine the load moves wall times, so the figure read is
 * the server's own CPU (user + system from /proc) per item until every item is searchable.
 *
 *   npx tsx bench/paired-ingest.ts --old /tmp/old/dist/cli.mjs [--rounds 3] [--items 20000] [--mode sync|async] [--new PATH] [--prof DIR]
 *
 * `sync`: each request answered once its items are durable and indexed (a recall at the end
 * takes in whatever indexing is still queued); `async`: acknowledged once logged, then polled
 * until no operation is open. Each server's peak RSS (VmHWM) is read at the end, and where a
 * batch's wall went (`wall/batch`): the server's main thread on a core (`main`), waiting for
 * one (`queued`: the machine's load), neither (`off`: waiting on the client, the fdatasync,
 * the loopback), and the server's other threads on a core (`helpers`: V8's collector and
 * compiler, libuv's pool), in ms per batch of 100 (/proc schedstat). `--prof DIR`
 * runs the new server under `--cpu-prof` into DIR. Not a `*.bench.ts`: `npm run bench` has no
 * old build to run it with.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { builtCli } from './lib/builtCli.js';
import { startServe, stopServe } from './lib/serveCli.js';
import { childCpuMs, childPeakRssMb, childSched, openRetainOperations, type ChildSched } from './lib/childStats.js';
import { syntheticCorpus } from '../src/server/syntheticCorpus.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { old: { type: 'string' }, new: { type: 'string' }, rounds: { type: 'string' }, items: { type: 'string' }, mode: { type: 'string' }, prof: { type: 'string' } } });
if (values.old === undefined || !existsSync(values.old)) throw new Error('paired-ingest: --old must name the old build\'s dist/cli.mjs');
const OLD = values.old;
const NEW = values.new ?? builtCli(repo);
const ROUNDS = Number(values.rounds ?? 3);
const N = Number(values.items ?? 20_000);
const MODE = values.mode ?? 'sync';
if (MODE !== 'sync' && MODE !== 'async') throw new Error('paired-ingest: --mode is sync or async');
const BATCH = 100;
const BANK = 'peers';

const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const send = (method: string, url: string, body?: string): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
    const req = request(url, { method, agent, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });

interface Run {
  readonly cpuMsPerItem: number;
  readonly wallMs: number;
  readonly peakRssMb: number;
  readonly wall: string;
}

/** Where a batch's wall went, in ms per batch (see the header). */
const wallSplit = (wallMs: number, batches: number, a: ChildSched, b: ChildSched): string => {
  const per = (ms: number): string => (ms / batches).toFixed(2);
  const main = b.mainRunMs - a.mainRunMs;
  const queued = b.mainWaitMs - a.mainWaitMs;
  return `${per(wallMs)} = main ${per(main)} + queued ${per(queued)} + off ${per(wallMs - main - queued)}; helpers ${per(b.allRunMs - a.allRunMs - main)}`;
};

const ingest = async (cli: string, bodies: readonly string[], prof: readonly string[]): Promise<Run> => {
  const dir = await mkdtemp(join(tmpdir(), 'paired-ingest-'));
  try {
    const { child, url } = await startServe(cli, dir, prof);
    const pid = child.pid ?? 0;
    const made = await send('PUT', `${url}/v1/default/banks/${BANK}`, '{}');
    if (made.status !== 200 && made.status !== 201) throw new Error(`creating bank failed with HTTP ${made.status}`);
    const before = childCpuMs(pid);
    const sched = childSched(pid);
    const start = process.hrtime.bigint();
    for (const body of bodies) {
      const { status } = await send('POST', `${url}/v1/default/banks/${BANK}/memories`, MODE === 'async' ? `${body.slice(0, -1)},"async":true}` : body);
      if (status !== 200) throw new Error(`retain failed with HTTP ${status}`);
    }
    if (MODE === 'async') while ((await openRetainOperations(url, BANK, async (u) => JSON.parse((await send('GET', u)).text))) > 0) await new Promise((r) => setTimeout(r, 20));
    // A recall takes in whatever indexing is still queued: every item searchable.
    const recalled = await send('POST', `${url}/v1/default/banks/${BANK}/memories/recall`, JSON.stringify({ query: 'kalo', types: ['world'] }));
    if (recalled.status !== 200) throw new Error(`recall failed with HTTP ${recalled.status}`);
    const wallMs = since(start);
    const used = childCpuMs(pid) - before;
    const wall = wallSplit(wallMs, bodies.length, sched, childSched(pid));
    const rss = childPeakRssMb(pid);
    await stopServe(child);
    return { cpuMsPerItem: used / bodies.length / BATCH, wallMs, peakRssMb: rss, wall };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  const items = syntheticCorpus().items(N).map((i) => JSON.stringify(i));
  const bodies: string[] = [];
  for (let i = 0; i < items.length; i += BATCH) bodies.push(`{"items":[${items.slice(i, i + BATCH).join(',')}]}`);
  console.log(`paired-ingest: ${N} items, ${MODE}, old ${OLD}, new ${NEW}`);
  for (let round = 0; round < ROUNDS; round += 1) {
    const prof = values.prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', values.prof];
    // Alternate which build goes first, so a drift in the load does not favour one.
    const order: readonly ('old' | 'new')[] = round % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
    const runs: Partial<Record<'old' | 'new', Run>> = {};
    for (const which of order) runs[which] = await ingest(which === 'old' ? OLD : NEW, bodies, which === 'new' ? prof : []);
    const o = runs.old;
    const n = runs.new;
    if (o === undefined || n === undefined) throw new Error('paired-ingest: a run is missing');
    console.log(
      `round ${round + 1}: load ${loadavg()[0]?.toFixed(1)}; CPU/item old ${o.cpuMsPerItem.toFixed(4)} new ${n.cpuMsPerItem.toFixed(4)} ms (new/old ${(n.cpuMsPerItem / o.cpuMsPerItem).toFixed(2)}); wall old ${o.wallMs.toFixed(0)} new ${n.wallMs.toFixed(0)} ms; peak RSS old ${o.peakRssMb.toFixed(1)} new ${n.peakRssMb.toFixed(1)} MB`,
    );
    console.log(`  wall/batch ms: old ${o.wall}; new ${n.wall}`);
  }
  agent.destroy();
};

await main();
