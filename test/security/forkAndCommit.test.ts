/**
 * Issue 26.9 (seed) and 26.11. A fork shares its upstream's commits and often the shared coding
 * bank: its `memory_seed_git` replaced the upstream's seed document, whose id named only the
 * HEAD. And `.pi/memory/` (the queue journal holds conversation text) appeared in any repository
 * with no ignore file, so `git add -A` committed the conversation. Performed for real: two git
 * repositories, the tools over the embedded server, and a real pi turn in a git repository.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/effects/ports/clock.js';
import { createToolContext } from '../../src/hosts/toolContext.js';
import { findTool } from '../../src/tools/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { CODING_BANK, git, startHarness, type Harness } from '../tools/harness.js';
import { runPi } from './support/piRun.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe("a fork's seed never replaces the upstream's", () => {
  it('upstream and fork seed the same HEAD into one bank: two documents, each with its own project tag', async () => {
    // The fork: a clone of the same commits whose origin is the forker's.
    const fork = path.join(h.root, 'fork');
    execFileSync('git', ['clone', '-q', h.cwd, fork]);
    git(fork, 'remote', 'set-url', 'origin', 'git@github.com:mallory/widgets.git');
    mkdirSync(path.join(fork, '.pi'), { recursive: true });
    writeFileSync(path.join(fork, '.pi', 'memory.json'), JSON.stringify({ setupComplete: true, banks: { project: { bankId: CODING_BANK } } }));
    expect(git(fork, 'rev-parse', 'HEAD')).toBe(git(h.cwd, 'rev-parse', 'HEAD'));

    await h.ok('memory_seed_git', { dryRun: false });
    const seed = findTool('memory_seed_git');
    if (seed === undefined) throw new Error('no memory_seed_git');
    const forkContext = await createToolContext({ cwd: fork, home: h.home, env: { HOME: h.home }, server: h.client, queue: h.queue, clock: systemClock });
    const forked = await seed.run({ dryRun: false }, forkContext);
    if (!forked.ok) throw new Error(forked.error.message);
    await h.queue.flush({ deadline: Date.now() + 5000 });

    const listed = await h.client.listDocuments(CODING_BANK, { limit: 100 })();
    if (E.isLeft(listed)) throw new Error(listed.left._tag);
    const seeds = listed.right.items.filter((d) => d.id.startsWith('pi-gitlog:'));
    expect(seeds).toHaveLength(2);
    const tags = seeds.map((d) => (d.tags ?? []).filter((t) => t.startsWith('project:')).sort());
    expect(tags).toEqual(expect.arrayContaining([['project:github.com/acme/widgets'], ['project:github.com/mallory/widgets']]));
  });
});

describe('.pi/memory carries its own .gitignore', () => {
  it('after a real pi turn in a git repository, git sees nothing under .pi/memory; the doctor says why', async () => {
    const agentDir = path.join(h.root, 'agent');
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: h.url } }));
    const run = await runPi({ cwd: h.cwd, home: h.home, agentDir, prompt: 'Remember that the deploy key lives in the vault.', script: ['Noted.'] });
    expect(run.code).toBe(0);
    // The turn is on disk, conversation text included ...
    expect(readFileSync(path.join(h.stateDir, 'memory', 'retain-queue.jsonl'), 'utf8')).toContain('deploy key');
    expect(readFileSync(path.join(h.stateDir, 'memory', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    // ... and `git add -A` would take nothing of it.
    const untracked = git(h.cwd, 'status', '--porcelain', '--untracked-files=all');
    expect(untracked.split('\n').filter((line) => line.includes('.pi/memory/'))).toEqual([]);
    git(h.cwd, 'add', '-A');
    expect(git(h.cwd, 'diff', '--cached', '--name-only').split('\n').filter((f) => f.startsWith('.pi/memory/'))).toEqual([]);
    const doctor = await runCli(['doctor'], { cwd: h.cwd, env: { HOME: h.home, PI_CODING_AGENT_DIR: agentDir } });
    expect(doctor.stdout).toContain('its .gitignore keeps it out of git');
  }, 120_000);
});
