/**
 * The memory browser's routes on the embedded server at 10k and 100k memories, read back from
 * a data dir after a restart (the facts are then stored in segment files, as on a real bank):
 * the list the browser polls once a second (newest 100), the list filtered by type, tag, state
 * and text and paged deep, the entities, documents and graph routes. Each is the median of
 * repeated calls after a first one (the first is reported too: it builds what the route reads).
 * Baseline in the same run: `GET {bank}/stats`, which reads only the facts' heads. The old
 * build's figures come from running this file over that build's tree (docs/server.md).
 */
import { Agent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeResult } from './lib/harness.js';
import type { Figure } from './lib/harness.js';
import { startEmbeddedServer } from '../src/server/index.js';
import { syntheticCorpus, seededRandom } from '../src/server/syntheticCorpus.js';

const SIZES = [10_000, 100_000];
/** Texts searched one after another, none within another (no search narrows the last one's). */
const SEARCHED = ['kalo', 'mire', 'tusha', 'vone', 'pidor', 'quazel', 'figar', 'huix', 'renka', 'lomi', 'shavo', 'nepi', 'dorqua', 'zelfi', 'garhu', 'ixren', 'kamiren'];
const CALLS = 15;
const BATCH = 500;

let agent = new Agent({ keepAlive: true, maxSockets: 1 });
const otherAgent = new Agent({ keepAlive: true, maxSockets: 1 });
const heldByRoutes: string[] = [];

/** Heap in use after a full collection, when run with `--expose-gc` (bench/run.ts does not: then undefined). */
const heapAfterGc = (): number | undefined => {
  const collect = globalThis.gc;
  if (collect === undefined) return undefined;
  collect();
  return process.memoryUsage().heapUsed;
};

const call = (method: string, url: string, value?: unknown): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const body = value === undefined ? undefined : JSON.stringify(value);
    const headers: Record<string, string | number> = body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
    const req = request(url, { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });

/** The same request over its own connection. */
const callOther = (method: string, url: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method, agent: otherAgent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end();
  });

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const timed = async (url: string, via = call): Promise<number> => {
  const start = process.hrtime.bigint();
  const answer = await via('GET', url);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (answer.status !== 200) throw new Error(`GET ${url} answered HTTP ${answer.status}: ${answer.body.slice(0, 200)}`);
  return ms;
};

/** A bank of `count` memories with dates, tags and named entities (some in another case). */
const build = async (dataDir: string, count: number): Promise<string[]> => {
  const corpus = syntheticCorpus(7);
  const random = seededRandom(3);
  const names = Array.from({ length: 2_000 }, (_, i) => `Person${i}`);
  const server = await startEmbeddedServer({ port: 0, dataDir });
  const bank = `${server.url}/v1/default/banks/bench`;
  const start = Date.UTC(2025, 0, 1);
  for (let offset = 0; offset < count; offset += BATCH) {
    const items = corpus.items(Math.min(BATCH, count - offset), offset).map((item, i) => {
      const n = Math.floor(random() * 3);
      const entities = Array.from({ length: n }, () => {
        const name = names[Math.floor(names.length * random() ** 2)] ?? 'Person0';
        return { text: random() < 0.1 ? name.toLowerCase() : name };
      });
      return { ...item, timestamp: new Date(start + (offset + i) * 60_000).toISOString(), entities };
    });
    const answer = await call('POST', `${bank}/memories`, { items });
    if (answer.status !== 200) throw new Error(`retain failed with HTTP ${answer.status}`);
  }
  // Some invalidated memories, for the state filter.
  const listed = await call('GET', `${bank}/memories/list?limit=200&type=world`);
  const ids = (JSON.parse(listed.body) as { items: { id: string }[] }).items.map((item) => item.id);
  for (const id of ids.filter((_, i) => i % 4 === 0)) await call('PATCH', `${bank}/memories/${id}`, { state: 'invalidated', reason: 'bench' });
  await server.close();
  return ids;
};

const measure = async (count: number): Promise<Figure[]> => {
  const dir = await mkdtemp(join(tmpdir(), 'am-bench-browse-'));
  const dataDir = join(dir, 'server');
  try {
    await build(dataDir, count);
    agent.destroy();
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const server = await startEmbeddedServer({ port: 0, dataDir });
    const bank = `${server.url}/v1/default/banks/bench`;
    // A read that wants observations starts the bank's background pass (seconds at 100k): it is
    // let run to its end first, so it does not land in the routes' figures.
    await call('POST', `${bank}/memories/recall`, { query: 'kalo', types: ['observation'] });
    for (;;) {
      const stats = JSON.parse((await call('GET', `${bank}/stats`)).body) as { total_observations: number };
      if (stats.total_observations > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const heapBefore = heapAfterGc();
    // Each route's URL for call i (the same but for the text searched anew each call).
    const routes: [string, (i: number) => string][] = [
      ['memory list, newest 100 (the browser poll)', () => `${bank}/memories/list?limit=100`],
      ['memory list, type world, 50 from offset 50', () => `${bank}/memories/list?type=world&limit=50&offset=50`],
      ['memory list, tag user:alice (all)', () => `${bank}/memories/list?tags=user:alice&tags_match=all&limit=50`],
      ['memory list, state invalidated', () => `${bank}/memories/list?state=invalidated&limit=50`],
      ['memory list, text filter, the same text paged', (i) => `${bank}/memories/list?q=ka&limit=50&offset=${((i + 5) % 5) * 50}`],
      ['memory list, text filter, a new text each call', (i) => `${bank}/memories/list?q=${SEARCHED[(i + 1) % SEARCHED.length] ?? 'ka'}&limit=50`],
      ['memory list, last page', () => `${bank}/memories/list?limit=50&offset=${count - 20}`],
      ['entities', () => `${bank}/entities?limit=100`],
      ['documents', () => `${bank}/documents?limit=100`],
      ['graph', () => `${bank}/graph`],
    ];
    const stats = `${bank}/stats`;
    const figures: Figure[] = [];
    const statsRuns: number[] = [];
    for (const [label, url] of routes) {
      // Another client's requests meanwhile (the agent's recalls): the longest wait they see is
      // how long the first call, which builds what the route reads, holds the server.
      let building = true;
      const others: number[] = [];
      const other = (async () => {
        while (building) others.push(await timed(`${server.url}/version`, callOther));
      })();
      const first = await timed(url(-1));
      building = false;
      await other;
      figures.push({ name: `${label}: longest other request during the first call, ${count} memories`, unit: 'ms', value: Math.max(...others) });
      const runs: number[] = [];
      for (let i = 0; i < CALLS; i += 1) {
        // Interleaved with the baseline, so both see the same load.
        statsRuns.push(await timed(stats));
        runs.push(await timed(url(i)));
      }
      figures.push({ name: `${label}: first call, ${count} memories`, unit: 'ms', value: first });
      figures.push({ name: `${label}: median, ${count} memories`, unit: 'ms', value: median(runs) });
    }
    const baseline = { name: `GET {bank}/stats median, ${count} memories`, value: median(statsRuns) };
    const heapAfter = heapAfterGc();
    if (heapBefore !== undefined && heapAfter !== undefined) heldByRoutes.push(`${count} memories: heap after a full GC ${(heapBefore / 1e6).toFixed(1)} MB before the routes' first calls, ${(heapAfter / 1e6).toFixed(1)} MB after them (what the routes keep)`);
    await server.close();
    return figures.map((f) => (f.name.includes('median') ? { ...f, baseline, target: '< 50', pass: f.value < 50 } : f));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  const sizes = process.argv.includes('--quick') ? [10_000] : SIZES;
  const figures: Figure[] = [];
  for (const count of sizes) figures.push(...(await measure(count)));
  writeResult('browse-routes', figures, [
    `load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    `each median of ${CALLS} calls interleaved with the stats baseline; banks read back from a data dir after a restart, the observation pass run first`,
    ...heldByRoutes,
  ]);
  agent.destroy();
  otherAgent.destroy();
};

await main();
