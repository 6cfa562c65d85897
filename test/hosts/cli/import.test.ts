/**
 * `agent-memory import` as a user runs it: argument errors, a dry run as JSON, an import
 * with its summary table, Ctrl+C (SIGINT) leaving a resumable checkpoint and saying how to
 * resume, the resumed run finishing the rest, and the import state in `agent-memory status`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runShell } from '../../helpers/cli.js';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { loadConfig } from '../../../src/config/load.js';
import { watchLiveRuns } from '../../../src/hosts/ui/liveRuns.js';

const FIXTURES = path.resolve(__dirname, '../../../fixtures/pi/sessions');
const root = mkdtempSync(path.join(tmpdir(), 'am-cli-import-'));
const project = path.join(root, 'project');
const home = path.join(root, 'home');
const sessions = path.join(root, 'sessions');
let server: TestServer;

const cli = (args: string[]) => runCli(args, { cwd: project, env: { HOME: home } });
/** A command line as a person pastes it into a shell in the project. */
const shell = (line: string) => runShell(line, { cwd: project, env: { PATH: process.env['PATH'] ?? '', HOME: home } });
const checkpoint = path.join(project, '.pi', 'memory', 'import-checkpoint.json');

beforeAll(async () => {
  server = await startTestServer({ persist: false });
  for (const d of [path.join(project, '.pi'), home, sessions]) mkdirSync(d, { recursive: true });
  // The user file names the server: a project file alone may not pick where memory goes.
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
  writeFileSync(path.join(project, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'cli-import' } }, scope: { projectId: 'cli-import' }, setupComplete: true }));
  const lines = readFileSync(path.join(FIXTURES, 'pi073-linear.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  const head = JSON.parse(lines[0]!) as Record<string, unknown>;
  for (let i = 0; i < 120; i += 1) {
    const id = `01a20b10-0000-7000-8000-${String(i).padStart(12, '0')}`;
    writeFileSync(path.join(sessions, `s${String(i).padStart(4, '0')}.jsonl`), `${[JSON.stringify({ ...head, id, cwd: project }), ...lines.slice(1)].join('\n')}\n`);
  }
});
afterAll(async () => {
  await server.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('agent-memory import', () => {
  it('refuses bad arguments with what to do', async () => {
    const none = await cli(['import']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--all');
    const since = await cli(['import', '--all', '--since', 'yesterday-ish']);
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since needs a date');
  });

  it('a dry run as JSON: the plan, and nothing written', async () => {
    const { code, stdout } = await cli(['import', sessions, '--dry-run', '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { state: string; sessions: number; documents: number; tokens: number; estimatedMs: number };
    expect(result).toMatchObject({ state: 'planned', sessions: 120, documents: 120 });
    expect(result.tokens).toBeGreaterThan(0);
    expect(existsSync(checkpoint)).toBe(false);
  });

  it('--cwd names the project from elsewhere (as status, doctor and flush take it); a path that is not a directory is refused', async () => {
    const fromRoot = (args: string[]) => runCli(args, { cwd: root, env: { HOME: home } });
    const here = JSON.parse((await fromRoot(['import', sessions, '--dry-run', '--json'])).stdout) as { documents: number };
    expect(here.documents).toBe(0); // the sessions are the project's, not this directory's
    const there = await fromRoot(['import', sessions, '--dry-run', '--json', '--cwd', project]);
    expect(there.code).toBe(0);
    expect(JSON.parse(there.stdout)).toMatchObject({ state: 'planned', sessions: 120, documents: 120 });
    const bad = await fromRoot(['import', '--all', '--cwd', path.join(root, 'no-such-dir')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a directory');
    expect(existsSync(checkpoint)).toBe(false);
  });

  it('Ctrl+C leaves a resumable checkpoint and says how to resume; running it again finishes', async () => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href, path.resolve('src/hosts/cli/main.ts'), 'import', sessions], {
      cwd: project,
      env: { PATH: process.env['PATH'] ?? '', HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    // Interrupt once the plan has recorded documents (sent to the server, or queued when it
    // does not answer): it records them as it reads the sessions.
    const poll = setInterval(() => {
      if (existsSync(checkpoint) && readFileSync(checkpoint, 'utf8').includes('documents.queued')) {
        clearInterval(poll);
        child.kill('SIGINT');
      }
    }, 5);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearInterval(poll);
    expect(code).toBe(130);
    expect(stdout).toContain('The import is paused: interrupted');
    // The command it names runs as printed ("agent-memory import" before: on no PATH from a clone).
    const resumeWith = /^Resume with: (.+)$/m.exec(stdout)?.[1] ?? '';
    expect(resumeWith).toMatch(/^node .+ import /);
    expect(resumeWith.endsWith(` import ${sessions} --cwd ${project}`)).toBe(true);

    const status = await cli(['status']);
    expect(status.stdout).toMatch(/Import: paused at \d+\/\d+ \(/);

    const resumed = await shell(resumeWith);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/State\s+done: (\d+ sent to the server, )?\d+ queued, \d+ skipped of 120 document/);
    // The skips in words ("already-imported: N" before).
    expect(resumed.stdout).toMatch(/Skipped\s+\d+ \(.*already imported: \d+/);
    const docs = await call(server, 'GET', '/v1/default/banks/cli-import/documents?limit=1000');
    expect(docs.body.total).toBe(120);
    // The state is said once ("Import: done: done: ..." before).
    const after = await cli(['status']);
    expect(after.stdout).toMatch(/Import: done: (\d+ sent to the server, )?\d+ queued, \d+ skipped of 120 document\(s\)/);
  }, 120_000);

  // Thirteenth session: the bar said "0/1 docs" for a session it then skipped, ran past 80
  // columns (its ETA cut off in a terminal), and the import's journals made it a "pid N" run in
  // the memory browser's Machines tab, as if a pi session.
  it("a session of another project: the bar says nothing is imported and why, within 80 columns; the browser names the run as the import", async () => {
    const elsewhere = path.join(root, 'elsewhere');
    mkdirSync(elsewhere, { recursive: true });
    const lines = readFileSync(path.join(FIXTURES, 'pi073-linear.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
    const head = JSON.parse(lines[0]!) as Record<string, unknown>;
    writeFileSync(path.join(elsewhere, 'other.jsonl'), `${[JSON.stringify({ ...head, id: '01a20b10-0000-7000-8000-ffffffffffff', cwd: '/another/project' }), ...lines.slice(1)].join('\n')}\n`);
    const run = await runCli(['import', elsewhere], { cwd: project, env: { HOME: home, COLUMNS: '80' } });
    expect(run.code).toBe(0);
    // The table too, wrapped under its values; only a path longer than a line stands alone.
    for (const line of run.stdout.split('\n')) if (line.trim().includes(' ')) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(run.stdout).toMatch(/^Messages {10}0 read, 0 items kept, .*\n {18}\S/m);
    // The terminal's escape sequences (cursor, line wrap) take no column.
    const bar = stripVTControlCharacters(run.stderr).split(/[\r\n]+/).filter((l) => l.trim() !== '');
    expect(bar.length).toBeGreaterThan(0);
    expect(run.stderr).not.toMatch(/\b0\/1 docs/);
    expect(bar.at(-1)).toMatch(/^done \[.*\] nothing to import \(1 file skipped\) \|/);
    for (const line of bar) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(run.stdout).toContain("another project's session: 1");

    const traceDir = path.join(project, '.pi', 'memory', 'trace');
    expect(readdirSync(traceDir).filter((n) => n.includes('.journal.')).every((n) => /-\d+\.import(-dry-run)?\.jsonl$/.test(n))).toBe(true);
    const live = watchLiveRuns(loadConfig({ cwd: project, home, env: {} }));
    try {
      await waitUntil(() => live.runs().some((r) => r.run !== 'project'), 5_000, 'the import runs read');
      const names = live.runs().map((r) => r.run).filter((r) => r !== 'project');
      for (const name of names) expect(name).toMatch(/^agent-memory import( --dry-run)? · pid \d+$/);
      expect(live.runs().find((r) => r.run !== 'project')).toMatchObject({ running: false });
    } finally {
      live.close();
    }
  }, 60_000);
});
