/**
 * What a person reads from `agent-memory status` and `doctor` (the real CLI, a child process,
 * against the embedded server): both take `--cwd DIR` as `ui` does, so a project is inspected
 * from anywhere, and refuse a `--cwd` that is not a directory; the doctor says each thing once
 * (the server, its health and version, trust, and what to do about setup) and explains every
 * marker its status lines use, as `status` does.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';

const run = promisify(execFile);
let server: TestServer;
let root: string;

interface Project {
  readonly cwd: string;
  readonly env: Record<string, string>;
}

/** A project on the embedded server; `config` is its `.pi/memory.json` (none: memory not set up). */
const project = async (name: string, config?: Record<string, unknown>): Promise<Project> => {
  const cwd = path.join(root, name, 'project');
  const home = path.join(root, name, 'home');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
  await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, timeoutMs: 1500 } }));
  if (config !== undefined) await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify(config));
  // COLUMNS: the output wrapped as for an 80-column terminal (a pipe keeps whole lines otherwise).
  return { cwd, env: { HOME: home, COLUMNS: '80' } };
};

/** A wrapped line's rest: indented, and not a status line (`  Recall: on`). */
const continues = (line: string): boolean => /^ {2}/.test(line) && !/^ {2}[A-Z][\w ]*: /.test(line);
/** The lines a person reads, without the blank ones; a line wrapped for 80 columns read whole. */
const linesOf = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .reduce<string[]>((out, l) => (continues(l) && out.length > 0 ? [...out.slice(0, -1), `${out.at(-1) ?? ''} ${l.trim()}`] : [...out, l]), []);
/** Every line fits an 80-column terminal; only a word longer than a line (a temp dir's path) stands alone. */
const expectFits = (text: string): void => {
  for (const line of text.split('\n')) if (line.trim().includes(' ')) expect([...line].length, line).toBeLessThanOrEqual(80);
};
const MEANINGS: Record<string, string> = { '!': 'needs attention', '*': 'set differently from the default', '-': 'off on purpose', '~': 'not done yet' };
/** Each marker a status line starts with is named in the output's legend line. */
const expectMarkersExplained = (text: string): void => {
  const lines = linesOf(text);
  const legend = lines.find((l) => l.startsWith('(') && Object.values(MEANINGS).some((m) => l.includes(m)));
  const used = new Set(lines.flatMap((l) => (/^[!*~-] [A-Z][\w ]*: /.test(l) ? [l.charAt(0)] : [])));
  expect(used.size).toBeGreaterThan(0);
  for (const marker of used) expect(legend, `marker ${marker}`).toContain(`${marker} ${MEANINGS[marker]}`);
};

beforeAll(async () => {
  server = await startTestServer({ persist: false });
  root = await mkdtemp(path.join(tmpdir(), 'am-cli-status-'));
});
afterAll(async () => {
  await server.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('status and doctor take --cwd', () => {
  it('inspect the project named by --cwd from another directory, the same as from inside it', async () => {
    const p = await project('cwd', { banks: { project: { bankId: 'cwd-bank' } }, setupComplete: true });
    const inside = await runCli(['status'], { cwd: p.cwd, env: p.env });
    const elsewhere = await runCli(['status', '--cwd', p.cwd], { cwd: root, env: p.env });
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.stdout).toContain('Coding bank: cwd-bank');
    expect(elsewhere.stdout).toBe(inside.stdout);
    const json = JSON.parse((await runCli(['status', '--cwd', p.cwd, '--json'], { cwd: root, env: p.env })).stdout) as { stateDir: { memoryDir: string } };
    expect(json.stateDir.memoryDir).toBe(path.join(p.cwd, '.pi', 'memory'));
    const doctor = await runCli(['doctor', '--cwd', p.cwd], { cwd: root, env: p.env });
    expect(doctor.code).toBe(0);
    expect(linesOf(doctor.stdout).join('\n')).toContain(`State dir: ${path.join(p.cwd, '.pi', 'memory')}`);
  }, 60_000);

  it('refuse a --cwd that is not a directory, and an unknown option, with the usage', async () => {
    const p = await project('bad', { banks: { project: { bankId: 'bad-bank' } }, setupComplete: true });
    const missing = await runCli(['status', '--cwd', path.join(root, 'no-such-dir')], { cwd: p.cwd, env: p.env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('agent-memory status: --cwd');
    expect(missing.stderr).toContain('is not a directory');
    const bare = await runCli(['doctor', '--cwd'], { cwd: p.cwd, env: p.env });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('usage: agent-memory doctor [--cwd DIR] [--json]');
    const unknown = await runCli(['status', '--verbose'], { cwd: p.cwd, env: p.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('usage: agent-memory status [--cwd DIR] [--json]');
    // A command that reads its options with parseArgs says the same (tenth session: `viz --cwd x` printed only "Unknown option").
    const viz = await runCli(['viz', '--cwd', p.cwd], { cwd: p.cwd, env: p.env });
    expect(viz.code).toBe(2);
    expect(viz.stderr).toContain("agent-memory viz: Unknown option '--cwd'");
    expect(viz.stderr).toContain('usage: agent-memory viz');
    const help = await runCli(['status', '--help'], { cwd: p.cwd, env: p.env });
    expect(help.stdout).toContain('--cwd DIR');
    expect(help.stdout).toContain('! marks what needs attention');
  }, 60_000);
});

describe('the doctor says each thing once and explains its markers', () => {
  it('a server that does not answer: the Server line says why in a few words, the error line what to do; every line fits 80 columns', async () => {
    const p = await project('closed');
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
      });
    });
    await writeFile(path.join(p.env['HOME'] ?? '', '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: `http://127.0.0.1:${closed}`, timeoutMs: 1500 } }));
    const doctor = await runCli(['doctor'], { cwd: p.cwd, env: p.env });
    expect(doctor.code).toBe(1);
    const lines = linesOf(doctor.stdout);
    // "— unreachable: memory server unreachable (GET /version: ECONNREFUSED); check that…" before.
    expect(lines).toContain(`Server: http://127.0.0.1:${closed} (user file) — unreachable (connection refused)`);
    expect(lines.find((l) => l.startsWith('Server version: '))).toMatch(/^Server version: unknown \(no answer\)/);
    expect(lines.filter((l) => l.startsWith('error: server unreachable'))).toHaveLength(1);
    expectFits(doctor.stdout);
    const status = await runCli(['status'], { cwd: p.cwd, env: p.env });
    // The next step names the command that starts a server there, and where to choose another ("memory.baseUrl is right" before).
    const health = linesOf(status.stdout).find((l) => l.startsWith('! Health: ')) ?? '';
    expect(health).toMatch(new RegExp(`^! Health: unreachable \\(connection refused\\); start it with node .+ serve --port ${closed}, or choose another server in pi's /memory settings$`));
    expectFits(status.stdout);
  }, 60_000);

  it('a project not set up: the server, trust and what to do are each said once; every marker is explained', async () => {
    const p = await project('fresh');
    const { code, stdout } = await runCli(['doctor'], { cwd: p.cwd, env: p.env });
    expect(code).toBe(0);
    const lines = linesOf(stdout);
    expect(lines.length).toBe(new Set(lines).size);
    expect(lines.filter((l) => l.includes(server.url))).toHaveLength(2); // the Server line, and the trust rule naming where it came from
    expect(lines.filter((l) => /^\W?\s*Server: /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /^\W?\s*Server version: /.test(l))).toHaveLength(1);
    expect(lines.some((l) => /^\W?\s*Health: /.test(l))).toBe(false);
    expect(lines.some((l) => /^\W?\s*Enabled: /.test(l))).toBe(false);
    expect(lines.filter((l) => /^Trust/.test(l))).toHaveLength(1);
    // No session in a shell: the doctor does not report one's (missing) recall and retain.
    expect(stdout).not.toContain('Activity (this session)');
    // Setup: one line says it and what to do.
    expect(lines.join('\n').split('run /memory setup').length - 1).toBe(1);
    // No key is said once ("no API key (no API key configured)" before).
    expect(stdout).toMatch(/^Authentication: no API key configured$/m);
    expect(lines.filter((l) => l.includes("the bank that holds all your projects' memory"))).toHaveLength(1);
    // Thirteenth session: the Profile line named the placeholder bank its Setup line says nothing
    // goes to, and the Setup line ran to 194 characters.
    const profile = lines.find((l) => l.startsWith('Profile: ')) ?? '';
    expect(profile).toContain('not set up, so nothing is recalled or saved (see Setup)');
    expect(profile).not.toContain('pi-project-');
    expect(lines.find((l) => l.includes('Coding bank: '))).toMatch(/Coding bank: not chosen yet \(setup chooses it; pi-project-\S+ is a placeholder\)/);
    expectFits(stdout);
    const status = await runCli(['status'], { cwd: p.cwd, env: p.env });
    expectFits(status.stdout);
    expect(linesOf(status.stdout).find((l) => l.includes('Coding bank: '))).toContain('not chosen yet');
    // "Recall: on" read as if recall happened before setup.
    expect(linesOf(status.stdout)).toContain('  Recall: on, once set up');
    expect(linesOf(status.stdout)).toContain('  Retain: on, once set up');
    expectMarkersExplained(stdout);
    // The path-derived bank `scope` shows is a placeholder, said as one (tenth session: "until then this folder's path names a bank").
    const scope = await runCli(['scope', '--cwd', p.cwd], { cwd: root, env: p.env });
    expect(linesOf(scope.stdout).join('\n')).toContain("the bank shown until then is only named from this folder's path, and nothing is recalled or saved automatically");
    // The note was one line of 400 characters (npm start ends with this report too).
    expectFits(scope.stdout);
  }, 60_000);

  it('status explains its markers too', async () => {
    const p = await project('markers', { banks: { project: { bankId: 'markers-bank' } }, setupComplete: true, mentalModels: { inject: false } });
    await run('git', ['init', '-q'], { cwd: p.cwd });
    await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'start'], { cwd: p.cwd });
    const { code, stdout } = await runCli(['status'], { cwd: p.cwd, env: p.env });
    expect(code).toBe(0);
    expect(stdout).toContain('- Mental models: inject off');
    // Git history not imported yet is not a setting: it is marked "not done yet", not "set differently" (tenth session).
    expect(stdout).toMatch(/^~ Sync: git history not imported yet/m);
    expect(stdout).toContain('~ not done yet');
    expectMarkersExplained(stdout);
  }, 60_000);
});
