/**
 * Attack (round 7): a repository runs a command of its choosing when memory starts, through
 * git. A plain `git clone` carries no `.git/config`, but it carries any files, and a directory
 * holding `HEAD`, `config`, `objects/` and `refs/` is a bare repository to git's discovery (the
 * "embedded bare repository" attack; `safe.bareRepository` defaults to `all`). The repository
 * commits one at `.pi/memory/`, whose `config` sets `core.worktree` and `core.fsmonitor`; memory
 * asked git which files it tracks there with `git ls-files` run *in* `.pi/memory`, git found
 * that bare repository, and `ls-files` ran its fsmonitor hook: the repository's command ran at
 * session start (`createMemoryRuntime`) and in `agent-memory doctor`. Now every git call memory
 * makes refuses an implicit bare repository and any fsmonitor (`-c safe.bareRepository=explicit
 * -c core.fsmonitor=false`), and the tracked-files question is asked from the work tree's root.
 * The refusal of a `.pi/memory` the clone tracks files in still holds.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { readGitHead } from '../../src/adapters/git/gitLog.js';
import { runCli } from '../helpers/cli.js';

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', env: gitEnv });

/** A repository whose `dir` (relative) is a bare repository with an fsmonitor that writes `marker`; cloned, as a user gets it. */
const hostileClone = (dir: string): { root: string; clone: string; home: string; marker: string } => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-bare-'));
  const marker = path.join(root, 'PWNED');
  const upstream = path.join(root, 'upstream');
  const bare = path.join(upstream, dir);
  for (const d of ['objects', 'refs']) mkdirSync(path.join(bare, d), { recursive: true });
  writeFileSync(path.join(bare, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(path.join(bare, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${marker}; false"\n`);
  for (const d of ['objects', 'refs']) writeFileSync(path.join(bare, d, 'keep'), '');
  writeFileSync(path.join(upstream, 'README.md'), '# a tool\n');
  git(upstream, 'init', '-q', '-b', 'main');
  git(upstream, 'add', '-A');
  git(upstream, 'commit', '-qm', 'a tool');
  const clone = path.join(root, 'clone');
  git(root, 'clone', '-q', upstream, clone);
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  return { root, clone, home, marker };
};

describe('an embedded bare repository in a clone', () => {
  it('at .pi/memory: neither a session start nor the doctor runs its fsmonitor; memory still refuses the tracked directory', async () => {
    const h = hostileClone('.pi/memory');
    // Git itself would run it from there: the attack is real on this machine's git.
    execFileSync('git', ['ls-files', '-z', '--', '.'], { cwd: path.join(h.clone, '.pi', 'memory'), env: gitEnv, stdio: 'ignore' });
    expect(existsSync(h.marker)).toBe(true);
    execFileSync('rm', ['-f', h.marker]);

    const runtime = await createMemoryRuntime({ cwd: h.clone, home: h.home, env: { HOME: h.home }, shutdownFlushMs: 100 });
    const problems = runtime.status().problems.join('\n');
    await runtime.send({ type: 'session.shutdown', reason: 'quit' });
    await runtime.close();
    expect(existsSync(h.marker), 'the session start ran the repository\'s command').toBe(false);
    expect(problems).toContain('git tracks files in it');

    const doctor = await runCli(['doctor'], { cwd: h.clone, env: { HOME: h.home } });
    expect(existsSync(h.marker), 'the doctor ran the repository\'s command').toBe(false);
    expect(doctor.stdout).toContain('git tracks files in it');
  }, 120_000);

  it('in a subdirectory a session is started in: git calls memory makes there run none of it', async () => {
    const h = hostileClone('tools/sub');
    const sub = path.join(h.clone, 'tools', 'sub');
    const runtime = await createMemoryRuntime({ cwd: sub, home: h.home, env: { HOME: h.home }, shutdownFlushMs: 100 });
    await runtime.send({ type: 'session.shutdown', reason: 'quit' });
    await runtime.close();
    await readGitHead(sub);
    expect(existsSync(h.marker)).toBe(false);
  }, 120_000);
});
