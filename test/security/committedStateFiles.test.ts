/**
 * Ninth session: a repository that commits files under `.pi/memory/`. Memory writes a
 * `.gitignore` of `*` there, but kept one that was already there, and git never ignores a file
 * it tracks. So a hostile upstream that commits `.pi/memory/.gitignore` saying `!*`, or commits
 * the state files themselves (`last-recall.json`, `retain-cursors.json`, the queue journal:
 * `git add -f`), gets the contributor's conversation in the next pull request made with
 * `git add -A` or `git commit -a`. Performed for real: a git repository, a real pi turn
 * (scripted model) with the embedded server, then git's own view of what it would commit.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPi } from './support/piRun.js';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' }).trim();

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
});

const PRIVATE = 'the staging database password rotates on Fridays';

/** A clone of a repository whose upstream committed `files` under `.pi/memory/`, and a user file pointing at the server. */
const hostileClone = (files: Record<string, string>): { cwd: string; home: string; agentDir: string } => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-committed-'));
  const upstream = path.join(root, 'upstream');
  mkdirSync(path.join(upstream, '.pi', 'memory'), { recursive: true });
  git(upstream, 'init', '-q');
  writeFileSync(path.join(upstream, 'README.md'), '# widgets\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(upstream, '.pi', 'memory', name), text);
  git(upstream, 'add', '-A');
  git(upstream, 'add', '-f', '.pi/memory');
  git(upstream, 'commit', '-q', '-m', 'initial');
  const cwd = path.join(root, 'clone');
  execFileSync('git', ['clone', '-q', upstream, cwd]);
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  for (const dir of [home, agentDir]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'sec-committed' } }, setupComplete: true }));
  return { cwd, home, agentDir };
};

/** Everything `git add -A` would put in the next commit, as text. */
const wouldCommit = (cwd: string): string => {
  git(cwd, 'add', '-A');
  return git(cwd, 'diff', '--cached');
};

const turn = (c: { cwd: string; home: string; agentDir: string }) => runPi({ ...c, prompt: `Remember that ${PRIVATE}.`, script: ['Noted.'] });

describe('a repository that commits files under .pi/memory', () => {
  it('a committed .gitignore that ignores nothing: the turn is kept and git would commit none of it', async () => {
    const c = hostileClone({ '.gitignore': '!*\n' });
    const run = await turn(c);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('Extension error');
    // Memory stayed on: the turn is in the queue journal, and the ignore file ignores everything again.
    expect(readFileSync(path.join(c.cwd, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8')).toContain('staging database');
    expect(readFileSync(path.join(c.cwd, '.pi', 'memory', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    const staged = wouldCommit(c.cwd);
    expect(staged).not.toContain('staging database');
    expect(git(c.cwd, 'diff', '--cached', '--name-only').split('\n').filter((f) => f.startsWith('.pi/memory/') && f !== '.pi/memory/.gitignore')).toEqual([]);
  }, 120_000);

  it('committed state files (last recall, cursors, queue journal): git would commit none of the conversation, and the doctor says what to do', async () => {
    const c = hostileClone({ 'last-recall.json': '{}\n', 'retain-cursors.json': '{}\n', 'retain-queue.jsonl': '', 'server-health.json': '{}\n' });
    const run = await turn(c);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('Extension error');
    // Memory refused the directory: every tracked file is as committed, and nothing would be committed.
    expect(git(c.cwd, 'status', '--porcelain', '--', '.pi/memory')).toBe('');
    expect(wouldCommit(c.cwd)).not.toContain('staging database');
    const doctor = await runCli(['doctor'], { cwd: c.cwd, env: { HOME: c.home, PI_CODING_AGENT_DIR: c.agentDir } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('git tracks files in it (last-recall.json, retain-cursors.json, retain-queue.jsonl and 1 more)');
    expect(doctor.stdout).toContain('run git rm -r --cached .pi/memory in');
    // Untracked as the doctor says: the next turn is kept, and git still takes none of it.
    git(c.cwd, 'rm', '-q', '-r', '--cached', '.pi/memory');
    git(c.cwd, 'commit', '-q', '-m', 'untrack memory state');
    const again = await turn(c);
    expect(again.code).toBe(0);
    expect(readFileSync(path.join(c.cwd, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8')).toContain('staging database');
    expect(wouldCommit(c.cwd)).not.toContain('staging database');
  }, 120_000);
});
