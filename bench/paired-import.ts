/**
 * Two source trees importing the same generated sessions (IMPORT_E2E_MB's shape, default 40 MB)
 * into `agent-memory serve` in its own process with a data dir, interleaved round by round, each
 * into a fresh server and project: on a shared machine the load moves wall times, so the figures
 * read beside them are the importer's CPU (its process, over the run) and the server's (from
 * /proc). Each run is `bench/lib/importOnce.ts` in a child of its own, as the bench imports
 * (under tsx, the importer in the bench's process); `--prof DIR` runs the
 * new tree's importer under `--cpu-prof` into DIR. `--old-serve` runs the old side's server from
 * another build (a change to the server itself, with the same importer on both sides: `--old .`),
 * and `--serve-prof DIR` runs the new side's server under `--cpu-prof` into DIR.
 *
 *   npx tsx bench/paired-import.ts --old /tmp/old-worktree [--new DIR] [--rounds 3] [--mb 40] [--serve dist/cli.mjs] [--old-serve PATH] [--prof DIR] [--serve-prof DIR]
 *
 * `IMPORT_WRAP='strace -f -c -e trace=fsync -o FILE'` runs each importer under that command (its
 * fsyncs counted, say).
 *
 * Not a `*.bench.ts`: `npm run bench` has no old tree to run it with.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { builtCli } from './lib/builtCli.js';
import { startServe, stopServe } from './lib/serveCli.js';
import { writeSessionSet } from './lib/sessionData.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { old: { type: 'string' }, new: { type: 'string' }, rounds: { type: 'string' }, mb: { type: 'string' }, serve: { type: 'string' }, 'old-serve': { type: 'string' }, prof: { type: 'string' }, 'serve-prof': { type: 'string' } } });
if (values.old === undefined || !existsSync(join(values.old, 'src'))) throw new Error('paired-import: --old must name the old source tree (a worktree with its node_modules)');
const OLD = values.old;
const NEW = values.new ?? repo;
const ROUNDS = Number(values.rounds ?? 3);
const BYTES = Number(values.mb ?? 40) * 1e6;
const SERVE = values.serve ?? builtCli(repo);
const OLD_SERVE = values['old-serve'] ?? SERVE;

interface Run {
  readonly documents: number;
  readonly seconds: number;
  readonly searchableSeconds: number;
  readonly importerCpuMs: number;
  readonly serverCpuMs: number;
  readonly serverCpuSearchableMs: number;
  /** What the server wrote until every operation finished (wchar: its log and segments, and its answers). */
  readonly serverWrittenMb?: number;
}

const importRun = async (tree: string, serve: string, prof: readonly string[], serveProf: readonly string[]): Promise<Run> => {
  const dir = await mkdtemp(join(tmpdir(), 'paired-import-'));
  try {
    const { child, url } = await startServe(serve, join(dir, 'server-data'), serveProf);
    try {
      const cwd = join(dir, 'project');
      const home = join(dir, 'home');
      const sessions = join(dir, 'sessions');
      for (const d of [join(cwd, '.pi'), join(home, '.pi', 'agent'), sessions]) mkdirSync(d, { recursive: true });
      writeFileSync(join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: url } }));
      writeFileSync(join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl: url, timeoutMs: 60_000 }, banks: { project: { bankId: 'bench-import' } }, scope: { projectId: 'bench' }, setupComplete: true }));
      writeSessionSet(sessions, cwd, BYTES, 400_000);
      const wrap = process.env['IMPORT_WRAP']?.split(' ') ?? [];
      const out = execFileSync(wrap[0] ?? process.execPath, [...wrap.slice(1), ...(wrap.length > 0 ? [process.execPath] : []), ...prof, '--import', 'tsx', join(repo, 'bench', 'lib', 'importOnce.ts'), '--tree', tree, '--dir', dir, '--url', url, '--server-pid', String(child.pid)], { cwd: tree, encoding: 'utf8' });
      const line = out.trim().split('\n').at(-1) ?? '';
      const run: Run = JSON.parse(line);
      if (prof.length > 0) console.log(`profiled run: ${line}`);
      return run;
    } finally {
      await stopServe(child);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

console.log(`paired-import: ${BYTES / 1e6} MB, old ${OLD} (serve ${OLD_SERVE}), new ${NEW} (serve ${SERVE})`);
const fmt = (r: Run): string =>
  `${(r.documents / r.seconds).toFixed(0)} docs/s acked (${r.seconds.toFixed(2)} s), ${(r.documents / r.searchableSeconds).toFixed(0)} searchable; importer ${r.importerCpuMs.toFixed(0)} ms, server ${r.serverCpuMs.toFixed(0)}/${r.serverCpuSearchableMs.toFixed(0)} ms, wrote ${r.serverWrittenMb?.toFixed(1) ?? '?'} MB`;
for (let round = 0; round < ROUNDS; round += 1) {
  const order: readonly ('old' | 'new')[] = round % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
  const runs: Partial<Record<'old' | 'new', Run>> = {};
  const prof = values.prof === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', values.prof];
  const serveProf = values['serve-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', values['serve-prof']];
  for (const which of order) runs[which] = which === 'old' ? await importRun(OLD, OLD_SERVE, [], []) : await importRun(NEW, SERVE, prof, serveProf);
  const o = runs.old;
  const n = runs.new;
  if (o === undefined || n === undefined) throw new Error('paired-import: a run is missing');
  console.log(`round ${round + 1} (load ${loadavg()[0]?.toFixed(1)}): old ${fmt(o)} | new ${fmt(n)} | wall new/old ${(n.seconds / o.seconds).toFixed(2)}, importer CPU new/old ${(n.importerCpuMs / o.importerCpuMs).toFixed(2)}`);
}
