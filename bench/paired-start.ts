/**
 * Two builds of `agent-memory serve` started one at a time on the SAME kept bank (server-peers'
 * corpus, 100-item sync retains; 1M by default), old and new interleaved (the order alternates by
 * round): spawn to listening, to the first recall answered, the server's CPU (user + system from
 * /proc) at each (at listening also its main thread's alone), then server-peers' 20 warm-up and 300 timed recalls and the peak RSS (VmHWM).
 * The cheap harness for issue 30's start figures: server-peers at 1M takes ten minutes and
 * writes its bank anew each time.
 *
 *   npx tsx bench/paired-start.ts --old /tmp/old/dist/cli.mjs [--new PATH] [--data DIR] [--items 1000000] [--rounds 3] [--request world|extension] [--prof DIR]
 *
 * `--data DIR` keeps the bank (written by the new build once, then kept; the old build serves a
 * copy, since each build rebuilds an index the other saved under another analyzer fingerprint): the first start after
 * the ingest is not measured (the page cache and the first start's own work). `--request
 * extension`: the extension's own request (all types, prefer_observations, 800 tokens) instead
 * of server-peers' `types: ["world"]`. `--prof DIR`: the new server under `--cpu-prof`.
 * `--same-bank`: both builds serve the one bank (builds whose analyzer fingerprint is the same).
 * Not a `*.bench.ts`: `npm run bench` has no old build to run it with.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawn, type ChildProcess } from 'node:child_process';
import { percentiles } from './lib/harness.js';
import { statusPoster } from './lib/postJson.js';
import { builtCli } from './lib/builtCli.js';
import { stopServe } from './lib/serveCli.js';
import { childCpuMs, childPeakRssMb } from './lib/childStats.js';
import { syntheticCorpus } from '../src/server/syntheticCorpus.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: { old: { type: 'string' }, new: { type: 'string' }, data: { type: 'string' }, rounds: { type: 'string' }, items: { type: 'string' }, request: { type: 'string' }, prof: { type: 'string' }, 'same-bank': { type: 'boolean' } },
});
if (values.old === undefined || !existsSync(values.old)) throw new Error('paired-start: --old must name the old build\'s dist/cli.mjs');
const OLD = values.old;
const NEW = values.new ?? builtCli(repo);
const ROUNDS = Number(values.rounds ?? 3);
const N = Number(values.items ?? 1_000_000);
const BANK = 'peers';
const REQUEST: Record<string, unknown> =
  values.request === 'extension' ? { budget: 'mid', max_tokens: 800, types: ['world', 'experience', 'observation'], prefer_observations: true } : { types: ['world'] };

const since = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

/** CPU (user + system, ms) of a process's main thread alone: what a start waits for when a core is free for the others. */
const mainThreadCpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const { post, fresh: freshAgent } = statusPoster();

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly listeningMs: number;
  readonly listeningCpuMs: number;
  readonly listeningMainCpuMs: number;
  readonly start: bigint;
}

/** Spawns `cli serve`; resolves when it prints where it listens, with its CPU at that moment. */
const startServe = (cli: string, dataDir: string, nodeArgs: readonly string[] = []): Promise<Started> =>
  new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve({ child, url, listeningMs: since(start), listeningCpuMs: childCpuMs(child.pid ?? 0), listeningMainCpuMs: mainThreadCpuMs(child.pid ?? 0), start });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${cli} serve exited ${code} before listening`)));
  });

const main = async (): Promise<void> => {
  const dir = values.data ?? (await mkdtemp(join(tmpdir(), 'am-paired-start-')));
  const bankDir = join(dir, 'bank');
  // The old build's copy: its analyzer's fingerprint may differ, and a build that finds the
  // other's saved index rebuilds it (a minute at 1M), so each keeps its own.
  const oldBankDir = values['same-bank'] === true ? bankDir : join(dir, 'bank-old');
  const corpus = syntheticCorpus(11);
  const queries = Array.from({ length: 300 }, () => corpus.query());
  try {
    if (!existsSync(join(dir, 'written'))) {
      await rm(bankDir, { recursive: true, force: true });
      await mkdir(bankDir, { recursive: true });
      const builder = await startServe(NEW, bankDir);
      const t = process.hrtime.bigint();
      for (let offset = 0; offset < N; offset += 10_000) {
        const items = corpus.items(Math.min(10_000, N - offset), offset).map((item) => JSON.stringify(item));
        for (let i = 0; i < items.length; i += 100) {
          const status = await post(`${builder.url}/v1/default/banks/${BANK}/memories`, `{"items":[${items.slice(i, i + 100).join(',')}]}`);
          if (status !== 200) throw new Error(`ingest failed with HTTP ${status}`);
        }
      }
      console.log(`ingested ${N} in ${(since(t) / 1000).toFixed(0)} s`);
      await stopServe(builder.child);
      // The first start after the ingest: not measured (cold page cache, first-start work).
      const primer = await startServe(NEW, bankDir);
      await post(`${primer.url}/v1/default/banks/${BANK}/memories/recall`, JSON.stringify({ query: queries[0], ...REQUEST }));
      await stopServe(primer.child);
      await writeFile(join(dir, 'written'), `${N}\n`);
    }
    if (oldBankDir !== bankDir && !existsSync(join(dir, 'copied'))) {
      await rm(oldBankDir, { recursive: true, force: true });
      await cp(bankDir, oldBankDir, { recursive: true });
      // Each build's first start on its copy (an index rebuilt if the fingerprint moved): not measured.
      for (const [cli, at] of [[OLD, oldBankDir], [NEW, bankDir]] as const) {
        const primer = await startServe(cli, at);
        await post(`${primer.url}/v1/default/banks/${BANK}/memories/recall`, JSON.stringify({ query: queries[0], ...REQUEST }));
        await stopServe(primer.child);
        freshAgent();
      }
      await writeFile(join(dir, 'copied'), 'yes\n');
    }
    const body = (q: string): string => JSON.stringify({ query: q, ...REQUEST });
    const recall = (url: string): string => `${url}/v1/default/banks/${BANK}/memories/recall`;
    console.log(`old ${OLD}, new ${NEW}, bank ${bankDir}, request ${JSON.stringify(REQUEST)}, ${ROUNDS} rounds`);
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const);
      for (const name of order) {
        const load = loadavg()[0] ?? 0;
        const profArgs = name === 'new' && values.prof !== undefined ? ['--cpu-prof', '--cpu-prof-interval', '500', '--cpu-prof-dir', values.prof] : [];
        const s = await startServe(name === 'old' ? OLD : NEW, name === 'old' ? oldBankDir : bankDir, profArgs);
        const pid = s.child.pid ?? 0;
        const status = await post(recall(s.url), body(queries[0] ?? ''));
        const firstMs = since(s.start);
        const firstCpu = childCpuMs(pid);
        const firstPeak = childPeakRssMb(pid);
        if (status !== 200) throw new Error(`${name}: first recall failed with HTTP ${status}`);
        for (let i = 0; i < 20; i += 1) await post(recall(s.url), body(queries[i] ?? ''));
        const latencies: number[] = [];
        for (const q of queries) {
          const t = process.hrtime.bigint();
          await post(recall(s.url), body(q));
          latencies.push(since(t));
        }
        const peak = childPeakRssMb(pid);
        await stopServe(s.child);
        freshAgent();
        console.log(
          `round ${round + 1} ${name} (load ${load.toFixed(1)}): listening ${s.listeningMs.toFixed(0)} ms (CPU ${s.listeningCpuMs}, main thread ${s.listeningMainCpuMs}), ` +
            `first recall ${firstMs.toFixed(0)} ms (CPU ${firstCpu}), peak RSS at first ${firstPeak.toFixed(1)} MB, after 320 ${peak.toFixed(1)} MB, p50 ${percentiles(latencies).p50.toFixed(2)} ms`,
        );
      }
    }
  } finally {
    freshAgent();
    if (values.data === undefined) await rm(dir, { recursive: true, force: true });
  }
};

await main();
