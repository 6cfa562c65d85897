/**
 * End-to-end import into the embedded server: generated pi sessions (IMPORT_E2E_MB, default 40)
 * scanned, planned, redacted, queued durably and delivered; reported as MB/s and documents/s
 * beside a raw read of the same files, twice: with the server in the importer's own process (in
 * memory, on loopback: its indexing shares the importer's one thread), and with the server as a
 * user runs it, `agent-memory serve` in its own process with a data dir (durable writes), where it
 * also reports the time until every imported document is searchable (the server's operations all
 * finished: the acknowledged rate is not its indexing speed). Then the peak RSS of the built CLI,
 * `agent-memory import <dir> --json` as a user runs it, importing a large set (IMPORT_RSS_MB,
 * default 1024) into a server that keeps nothing. Target: under 200 MB.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMemoryRuntime } from '../src/hosts/memoryRuntime.js';
import { openImporter } from '../src/hosts/importer.js';
import { startEmbeddedServer } from '../src/server/index.js';
import { writeResult, type Figure } from './lib/harness.js';
import { startRetainSink } from './lib/retainSink.js';
import { writeSessionSet } from './lib/sessionData.js';
import { builtCli } from './lib/builtCli.js';
import { openRetainOperations } from './lib/childStats.js';

const E2E = Number(process.env['IMPORT_E2E_MB'] ?? 40) * 1e6;
const RSS = Number(process.env['IMPORT_RSS_MB'] ?? 1024) * 1e6;

const projectIn = (dir: string, baseUrl: string): { cwd: string; home: string; sessions: string } => {
  const cwd = join(dir, 'project');
  const home = join(dir, 'home');
  const sessions = join(dir, 'sessions');
  for (const d of [join(cwd, '.pi'), home, sessions]) mkdirSync(d, { recursive: true });
  mkdirSync(join(home, '.pi', 'agent'), { recursive: true });
  writeFileSync(join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl } }));
  writeFileSync(join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl, timeoutMs: 60_000 }, banks: { project: { bankId: 'bench-import' } }, scope: { projectId: 'bench' }, setupComplete: true }));
  return { cwd, home, sessions };
};

const figures: Figure[] = [];
const notes: string[] = [];
const repo = fileURLToPath(new URL('..', import.meta.url));

/** `agent-memory serve` in its own process with a data dir, as a user runs it; resolves once it listens. */
const serveProcess = async (dataDir: string): Promise<{ readonly url: string; close(): Promise<void> }> => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repo, 'src', 'hosts', 'cli', 'main.ts'), 'serve', '--port', '0', '--data-dir', dataDir], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`agent-memory serve exited ${code} before listening: ${out}`)));
  });
  return {
    url,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
};

/**
 * Imports a fresh set of generated sessions into the server at `url`: documents, bytes and
 * seconds until every document is acknowledged (the import's own end), and, with
 * `untilSearchable`, until the server has finished every operation, polled every 20 ms (an
 * acknowledged async retain is in the server's log, not yet searchable).
 */
const importInto = async (
  dir: string,
  url: string,
  untilSearchable = false,
): Promise<{ documents: number; bytes: number; files: number; seconds: number; searchableSeconds: number; rawSeconds: number }> => {
  const project = projectIn(dir, url);
  const set = writeSessionSet(project.sessions, project.cwd, E2E, 400_000);
  for (const name of await readdir(project.sessions)) await readFile(join(project.sessions, name));
  const rawStart = process.hrtime.bigint();
  for (const name of await readdir(project.sessions)) await readFile(join(project.sessions, name));
  const rawSeconds = Number(process.hrtime.bigint() - rawStart) / 1e9;
  const runtime = await createMemoryRuntime({ cwd: project.cwd, home: project.home, env: { HOME: project.home } });
  const importer = await openImporter(runtime, { home: project.home, env: { HOME: project.home } });
  const start = process.hrtime.bigint();
  const view = await importer.gate.run({ sources: [project.sessions], options: importer.options({ dryRun: false }) });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (untilSearchable) while ((await openRetainOperations(url, 'bench-import', async (u) => (await fetch(u)).json())) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const searchableSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  await importer.close();
  await runtime.close();
  if (view.state !== 'done' || view.queued + view.sent !== view.documents) throw new Error(`import ended ${view.state}: ${view.sent} sent and ${view.queued} queued of ${view.documents}`);
  return { documents: view.documents, bytes: set.bytes, files: set.files, seconds, searchableSeconds, rawSeconds };
};

const e2eDir = await mkdtemp(join(tmpdir(), 'am-bench-import-e2e-'));
try {
  const server = await startEmbeddedServer({ port: 0, host: '127.0.0.1' });
  try {
    const run = await importInto(join(e2eDir, 'in-process'), server.url);
    figures.push(
      { name: `end-to-end import of ${(run.bytes / 1e6).toFixed(0)} MB (${run.files} sessions) into the embedded server`, unit: 'MB/s', value: run.bytes / 1e6 / run.seconds, baseline: { name: 'raw read of the same files', value: run.bytes / 1e6 / run.rawSeconds } },
      { name: `end-to-end import: documents per second (${run.documents} documents)`, unit: 'items/s', value: run.documents / run.seconds },
    );
  } finally {
    await server.close();
  }
  const served = await serveProcess(join(e2eDir, 'server-data'));
  try {
    const run = await importInto(join(e2eDir, 'own-process'), served.url, true);
    figures.push(
      {
        name: `end-to-end import into \`agent-memory serve\` in its own process (data dir): documents per second (${run.documents} documents, ${(run.bytes / 1e6).toFixed(0)} MB)`,
        unit: 'items/s',
        value: run.documents / run.seconds,
        target: '>= 1,000 (issue 30)',
        pass: run.documents / run.seconds >= 1000,
      },
      // The figure above ends at the last acknowledgement; the server indexes after it.
      {
        name: `same import, until every imported document is searchable (all of the server's operations finished): documents per second`,
        unit: 'items/s',
        value: run.documents / run.searchableSeconds,
      },
    );
    notes.push(`into \`agent-memory serve\`: ${run.seconds.toFixed(2)} s to the last acknowledgement, ${run.searchableSeconds.toFixed(2)} s until every operation finished`);
  } finally {
    await served.close();
  }
} finally {
  await rm(e2eDir, { recursive: true, force: true });
}

// The measured process is the built CLI (no tsx in it), rebuilt when the sources are newer.
const cli = builtCli(repo);
const rssDir = await mkdtemp(join(tmpdir(), 'am-bench-import-rss-'));
const sink = await startRetainSink('bench-import');
try {
  const project = projectIn(rssDir, sink.url);
  const set = writeSessionSet(project.sessions, project.cwd, RSS, 2_000_000);
  const rssOut = join(rssDir, 'peak-rss');
  const started = process.hrtime.bigint();
  // Asynchronous: the sink answers from this process while the CLI runs.
  const child = spawn(process.execPath, ['--import', pathToFileURL(join(repo, 'bench', 'lib', 'peakRss.mjs')).href, cli, 'import', project.sessions, '--json'], {
    cwd: project.cwd,
    env: { ...process.env, HOME: project.home, PEAK_RSS_OUT: rssOut, PI_CODING_AGENT_DIR: join(project.home, '.pi', 'agent') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (status !== 0) throw new Error(`agent-memory import exited ${status}: ${stderr} ${stdout.slice(0, 2000)}`);
  const result = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { state?: string; documents?: number };
  if (result.state !== 'done') throw new Error(`large import ended ${result.state ?? 'unknown'}: ${stdout.slice(0, 500)}`);
  const maxRssMb = Number(await readFile(rssOut, 'utf8'));
  figures.push({ name: `peak RSS of \`agent-memory import\` importing ${(set.bytes / 1e6).toFixed(0)} MB (${set.files} sessions, ${result.documents ?? '?'} documents)`, unit: 'MB', value: maxRssMb, target: '< 200 MB', pass: maxRssMb < 200 });
  notes.push(`large import took ${seconds.toFixed(0)} s (${(set.bytes / 1e6 / seconds).toFixed(1)} MB/s) into a loopback server that acknowledges and keeps nothing`);
} finally {
  sink.server.close();
  await rm(rssDir, { recursive: true, force: true });
}

writeResult('import-e2e', figures, ['curated mode, current branch; generated data in temp dirs, removed after the run', ...notes]);
