/**
 * End-to-end import into the embedded server (in-process, on loopback): generated pi sessions
 * (IMPORT_E2E_MB, default 40) scanned, planned, redacted, queued durably, delivered and
 * indexed; reported as MB/s and documents/s beside a raw read of the same files. Then the
 * peak RSS of the built CLI, `agent-memory import <dir> --json` as a user runs it, importing a
 * large set (IMPORT_RSS_MB, default 1024) into a server that keeps nothing. Target: under 200 MB.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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

const e2eDir = await mkdtemp(join(tmpdir(), 'am-bench-import-e2e-'));
const server = await startEmbeddedServer({ port: 0, host: '127.0.0.1' });
try {
  const project = projectIn(e2eDir, server.url);
  const set = writeSessionSet(project.sessions, project.cwd, E2E, 400_000);
  for (const name of await readdir(project.sessions)) await readFile(join(project.sessions, name));
  const rawStart = process.hrtime.bigint();
  for (const name of await readdir(project.sessions)) await readFile(join(project.sessions, name));
  const rawMs = Number(process.hrtime.bigint() - rawStart) / 1e6;

  const runtime = await createMemoryRuntime({ cwd: project.cwd, home: project.home, env: { HOME: project.home } });
  const importer = await openImporter(runtime, { home: project.home, env: { HOME: project.home } });
  const start = process.hrtime.bigint();
  const view = await importer.gate.run({ sources: [project.sessions], options: importer.options({ dryRun: false }) });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  await importer.close();
  await runtime.close();
  if (view.state !== 'done' || view.queued !== view.documents) throw new Error(`import ended ${view.state}: ${view.queued}/${view.documents} queued`);
  const seconds = ms / 1000;
  figures.push(
    { name: `end-to-end import of ${(set.bytes / 1e6).toFixed(0)} MB (${set.files} sessions) into the embedded server`, unit: 'MB/s', value: set.bytes / 1e6 / seconds, baseline: { name: 'raw read of the same files', value: set.bytes / 1e6 / (rawMs / 1000) } },
    { name: `end-to-end import: documents per second (${view.documents} documents)`, unit: 'items/s', value: view.documents / seconds },
  );
} finally {
  await server.close();
  await rm(e2eDir, { recursive: true, force: true });
}

// The measured process is the built CLI (no tsx in it); build it when this checkout has none.
const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = join(repo, 'dist', 'cli.mjs');
if (!existsSync(cli)) {
  const build = spawnSync('npm', ['run', '--silent', 'build:js'], { cwd: repo, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build:js failed');
}
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
