/**
 * Issue 26.1: a repository makes memory write outside it. It commits a directory symlink
 * (`.pi/link -> ../../outside`, or one inside `.pi/memory`) and a project file whose
 * `retain.queuePath`, `import.manifestPath` or `import.checkpointPath` runs through it; one pi
 * turn, `agent-memory flush` or `agent-memory import` then rewrote a file outside the project.
 * Performed for real: the real pi CLI (scripted model), the CLI in child processes, the
 * embedded server, real files and real links. Every victim file stays byte-identical, and the
 * refusal names the field.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { piSessionDir } from '../../src/adapters/sessions/piSessionFiles.js';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPi } from './support/piRun.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/pi/sessions');
const VICTIM = 'line one of a file outside the project\nline two\nthe last line\n';

interface Repo {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly agentDir: string;
  readonly outside: string;
  /** Files outside the project, each with the text it must keep. */
  readonly victims: readonly string[];
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
});

/**
 * A cloned repository: its `.pi/memory.json` (`project`) and a committed link at `link` (under
 * `.pi`) pointing at `<root>/outside`, where the victim files live. The user file trusts the
 * test server, so memory would otherwise run.
 */
const clone = (project: unknown, link: string, victims: readonly string[]): Repo => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-paths-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  const outside = path.join(root, 'outside');
  for (const dir of [path.join(cwd, '.pi'), home, agentDir, path.join(outside, 'victim-dir')]) mkdirSync(dir, { recursive: true });
  const files = victims.map((name) => path.join(outside, 'victim-dir', name));
  for (const file of files) writeFileSync(file, VICTIM);
  writeFileSync(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'paths-bank' } }, setupComplete: true }));
  writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify(project));
  const at = path.join(cwd, '.pi', link);
  mkdirSync(path.dirname(at), { recursive: true });
  // Relative, as a repository commits it: `<root>/outside` seen from the link's directory.
  symlinkSync(path.relative(path.dirname(at), outside), at, 'dir');
  return { root, cwd, home, agentDir, outside, victims: files };
};

const cli = (repo: Repo, args: string[]) => runCli(args, { cwd: repo.cwd, env: { HOME: repo.home, PI_CODING_AGENT_DIR: repo.agentDir } });

const expectUntouched = (repo: Repo): void => {
  for (const file of repo.victims) expect(readFileSync(file, 'utf8'), file).toBe(VICTIM);
  // Nothing was created beside them either (no quarantine, lock, receipts or temp file).
  expect(readdirSync(path.join(repo.outside, 'victim-dir')).sort()).toEqual(repo.victims.map((f) => path.basename(f)).sort());
};

/** A pi session of this project, as pi writes it, so `agent-memory import` has work to do. */
const writeSession = (repo: Repo, header: (head: Record<string, unknown>) => Record<string, unknown>, name = 'session.jsonl'): string => {
  const lines = readFileSync(path.join(FIXTURES, 'pi073-linear.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  const head = JSON.parse(lines[0] as string) as Record<string, unknown>;
  const dir = piSessionDir(repo.cwd, { PI_CODING_AGENT_DIR: repo.agentDir }, repo.home);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, `${[JSON.stringify(header({ ...head, cwd: repo.cwd })), ...lines.slice(1)].join('\n')}\n`);
  return file;
};

/** An import over a linked manifest/checkpoint directory: nothing outside changes, the link is named, doctor names both files. */
const expectImportRefusedAtLink = async (repo: Repo): Promise<void> => {
  writeSession(repo, (head) => head);
  const imported = await cli(repo, ['import', '--all']);
  expectUntouched(repo);
  expect(`${imported.stdout}\n${imported.stderr}`).toMatch(/symbolic link/);
  const doctor = await cli(repo, ['doctor']);
  expect(doctor.stdout).toContain('(the file import.checkpointPath names)');
  expect(doctor.stdout).toContain('(the file import.manifestPath names)');
};

describe('a committed directory link and a project file path through it', () => {
  it('one real pi turn with retain.queuePath "link/victim-dir/notes.txt" (.pi/link -> ../../outside) leaves the file outside untouched', async () => {
    const repo = clone({ retain: { queuePath: 'link/victim-dir/notes.txt' } }, 'link', ['notes.txt']);
    const run = await runPi({ ...repo, prompt: 'Remember that the build uses pnpm.', script: ['Noted: the build uses pnpm.'] });
    expect(run.stderr).not.toContain('Extension error');
    expect(run.code).toBe(0);
    expectUntouched(repo);
    // The turn went to the queue memory keeps itself, inside the project.
    expect(readFileSync(path.join(repo.cwd, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8')).toContain('pnpm');
    // The doctor says which field was refused and why.
    const doctor = await cli(repo, ['doctor']);
    expect(doctor.stdout).toContain('field retain.queuePath: a project file may only name a file inside');
  }, 120_000);

  it('a link inside .pi/memory (memory/q -> outside): agent-memory flush refuses, naming retain.queuePath, and writes nothing outside', async () => {
    const repo = clone({ retain: { queuePath: 'memory/q/victim-dir/notes.txt' } }, 'memory/q', ['notes.txt']);
    const flush = await cli(repo, ['flush', '--timeout-ms', '2000']);
    expectUntouched(repo);
    expect(`${flush.stdout}\n${flush.stderr}`).toMatch(/symbolic link/);
    const doctor = await cli(repo, ['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`${path.join(repo.cwd, '.pi', 'memory', 'q')} is a symbolic link`);
    expect(doctor.stdout).toContain('(the file retain.queuePath names)');
    expectUntouched(repo);
  }, 60_000);

  it('the same link named by the user file is refused as well: no component under the state dir may be a link', async () => {
    const repo = clone({}, 'memory/q', ['notes.txt']);
    writeFileSync(path.join(repo.agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'paths-bank' } }, setupComplete: true, retain: { queuePath: '{state_dir}/memory/q/victim-dir/notes.txt' } }));
    const run = await runPi({ ...repo, prompt: 'Remember that the tests run with vitest.', script: ['Noted.'] });
    expect(run.code).toBe(0);
    expectUntouched(repo);
    const doctor = await cli(repo, ['doctor']);
    expect(doctor.stdout).toContain('(the file retain.queuePath names)');
  }, 120_000);

  it('import.manifestPath and import.checkpointPath through the link: agent-memory import writes nothing outside', async () => {
    const repo = clone(
      { import: { manifestPath: 'memory/q/victim-dir/manifest.json', checkpointPath: 'memory/q/victim-dir/checkpoint.json' } },
      'memory/q',
      ['manifest.json', 'checkpoint.json'],
    );
    await expectImportRefusedAtLink(repo);
  }, 60_000);

  it('a project file naming those paths outside .pi/memory is refused by field, and memory keeps its own files', async () => {
    const repo = clone({ import: { manifestPath: 'link/victim-dir/manifest.json', checkpointPath: '../../outside/victim-dir/checkpoint.json' } }, 'link', ['manifest.json', 'checkpoint.json']);
    writeSession(repo, (head) => head);
    const imported = await cli(repo, ['import', '--all']);
    expect(imported.code).toBe(0);
    expectUntouched(repo);
    expect(existsSync(path.join(repo.cwd, '.pi', 'memory', 'import-checkpoint.json'))).toBe(true);
    const doctor = await cli(repo, ['doctor']);
    expect(doctor.stdout).toContain('field import.manifestPath: a project file may only name a file inside');
    expect(doctor.stdout).toContain('field import.checkpointPath: a project file may only name a file inside');
  }, 60_000);
});

/**
 * The user file names a path in the project but outside `.pi/memory` (`{state_dir}/shared/...`,
 * one setting for every project). A repository commits `.pi/shared -> ../../outside`: only the
 * file's own directory was checked (`.pi/shared/victim-dir`, a real directory once the link is
 * followed), so memory wrote outside the project. Every directory from the project down is
 * checked now.
 */
describe('a user-file path inside the project, through a link the repository planted deeper than its directory', () => {
  const userFile = (repo: Repo, paths: Record<string, unknown>): void =>
    writeFileSync(path.join(repo.agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'paths-bank' } }, setupComplete: true, ...paths }));

  it('retain.queuePath "{state_dir}/shared/victim-dir/notes.txt" (.pi/shared -> ../../outside): one real pi turn leaves the file outside untouched', async () => {
    const repo = clone({}, 'shared', ['notes.txt']);
    userFile(repo, { retain: { queuePath: '{state_dir}/shared/victim-dir/notes.txt' } });
    const run = await runPi({ ...repo, prompt: 'Remember that the build uses pnpm.', script: ['Noted: the build uses pnpm.'] });
    expect(run.code).toBe(0);
    expectUntouched(repo);
    const doctor = await cli(repo, ['doctor']);
    expect(doctor.stdout).toContain(`${path.join(repo.cwd, '.pi', 'shared')} is a symbolic link`);
    expect(doctor.stdout).toContain('(the file retain.queuePath names)');
    const flush = await cli(repo, ['flush', '--timeout-ms', '2000']);
    expect(`${flush.stdout}\n${flush.stderr}`).toMatch(/symbolic link/);
    expectUntouched(repo);
  }, 120_000);

  it('an absolute user-file queue path into the project through a link in a subdirectory (vendor/cache -> outside) is refused the same way', async () => {
    const repo = clone({}, 'unused', ['notes.txt']);
    mkdirSync(path.join(repo.cwd, 'vendor'), { recursive: true });
    symlinkSync(path.relative(path.join(repo.cwd, 'vendor'), repo.outside), path.join(repo.cwd, 'vendor', 'cache'), 'dir');
    userFile(repo, { retain: { queuePath: path.join(repo.cwd, 'vendor', 'cache', 'victim-dir', 'notes.txt') } });
    const flush = await cli(repo, ['flush', '--timeout-ms', '2000']);
    expect(`${flush.stdout}\n${flush.stderr}`).toContain(`${path.join(repo.cwd, 'vendor', 'cache')} is a symbolic link`);
    expectUntouched(repo);
  }, 60_000);

  it('import.manifestPath and import.checkpointPath "{state_dir}/shared/victim-dir/...": agent-memory import writes nothing outside, naming the link', async () => {
    const repo = clone({}, 'shared', ['manifest.json', 'checkpoint.json']);
    userFile(repo, { import: { manifestPath: '{state_dir}/shared/victim-dir/manifest.json', checkpointPath: '{state_dir}/shared/victim-dir/checkpoint.json' } });
    await expectImportRefusedAtLink(repo);
  }, 60_000);
});

describe('sessions that record no directory (issue 26.9)', () => {
  it('agent-memory import skips them, says why, and sends nothing', async () => {
    const repo = clone({}, 'unused-link', []);
    const file = writeSession(repo, ({ cwd: _cwd, ...head }) => ({ ...head, id: '01a2031b-0000-7000-8000-00000000c0d0' }), 'no-cwd.jsonl');
    const imported = await cli(repo, ['import', file, '--json']);
    const result = JSON.parse(imported.stdout) as { skippedSources: { path: string; reason: string }[]; queued: number };
    expect(result.skippedSources).toEqual([expect.objectContaining({ path: file, reason: 'no-directory' })]);
    expect(result.queued).toBe(0);
    const human = await cli(repo, ['import', file]);
    expect(human.stdout).toContain('no working directory recorded: 1');
    expect(human.stdout).toContain('its header and entries record no working directory');
  }, 60_000);
});
