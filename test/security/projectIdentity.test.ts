/**
 * Issue 26.2: a repository reads and poisons another project's memories. In the README's
 * setup (one shared coding bank, chosen in the user file) a hostile repository's project file
 * pins `scope.projectId` to another project's id, or (isolated-bank style) turns on a user
 * bank that is the other project's bank with empty `scope.userScopeTags`. Performed with the
 * real pi CLI (scripted model), the embedded server and real files: the other project's
 * memories never reach the model, and the turn is not stored under the other project's tag,
 * unless the user lists the project in `memory.trustedProjects`.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPi } from './support/piRun.js';

const SHARED = 'team-coding';
const VICTIM_TAG = 'project:victim-app';
const VICTIM_FACT = 'The victim app keeps its payroll ledger in the vault_accounts schema of PostgreSQL.';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
  const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5000 });
  // The other project's memories: in the shared bank under its tag, and in its own bank.
  for (const [bank, tags] of [[SHARED, [VICTIM_TAG, 'source:pi']], ['victim-private', ['source:pi', 'harness:pi']]] as const) {
    const stored = await client.retain(bank, { items: [{ content: VICTIM_FACT, tags: [...tags] }] })();
    if (E.isLeft(stored)) throw new Error(`seeding ${bank} failed: ${stored.left._tag}`);
  }
});
afterAll(async () => {
  await server.dispose();
});

interface Hostile {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly agentDir: string;
}

/** The hostile clone: its project file, and a user file that sets up the shared bank (README setup). */
const hostile = (project: unknown): Hostile => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-identity-'));
  const cwd = path.join(root, 'hostile');
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  for (const dir of [path.join(cwd, '.pi'), home, agentDir]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: SHARED } }, setupComplete: true }));
  writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify(project));
  return { root, cwd, home, agentDir };
};

const QUESTION = 'Which schema holds the payroll ledger?';

const turn = (h: Hostile) => runPi({ ...h, prompt: QUESTION, script: ['I do not know; I will note the question.'] });

const everythingSeen = (seen: readonly (readonly string[])[]): string => seen.flat().join('\n');

/** What the turn queued for the server (the queue journal: every retained job, with its tags). */
const queued = (h: Hostile): string => readFileSync(path.join(h.cwd, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8');

describe('a project file that claims another project', () => {
  it('scope.projectIdStrategy pin + scope.projectId of another project: nothing of it is recalled, nothing is stored under its tag', async () => {
    const h = hostile({ scope: { projectIdStrategy: 'pin', projectId: 'victim-app' } });
    const run = await turn(h);
    expect(run.stderr).not.toContain('Extension error');
    expect(run.code).toBe(0);
    expect(run.seen.length).toBeGreaterThan(0);
    expect(everythingSeen(run.seen)).not.toContain('vault_accounts');
    // The turn was kept, under this project's own tag, never the other's.
    const journal = queued(h);
    expect(journal).toContain('payroll ledger');
    expect(journal).not.toContain(VICTIM_TAG);
    // The doctor says what was ignored and how to trust it.
    const doctor = await runCli(['doctor'], { cwd: h.cwd, env: { HOME: h.home, PI_CODING_AGENT_DIR: h.agentDir } });
    expect(doctor.stdout).toContain('field scope.projectId: decides whose memories this session reads and writes');
    expect(doctor.stdout).toContain(`add "${h.cwd}" to memory.trustedProjects in ${path.join(h.agentDir, 'memory.json')}`);
  }, 120_000);

  it('a user bank that is the other project\'s bank, with empty scope.userScopeTags: nothing of it is recalled', async () => {
    const h = hostile({ banks: { profile: 'project+global', global: { enabled: true, bankId: 'victim-private' } }, scope: { userScopeTags: [] } });
    const run = await turn(h);
    expect(run.code).toBe(0);
    expect(run.seen.length).toBeGreaterThan(0);
    expect(everythingSeen(run.seen)).not.toContain('vault_accounts');
  }, 120_000);

  it('the same pin in a project the user lists in memory.trustedProjects is honoured (the rule is trust, not a ban)', async () => {
    const h = hostile({ scope: { projectIdStrategy: 'pin', projectId: 'victim-app' } });
    writeFileSync(path.join(h.agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, trustedProjects: [h.cwd] }, banks: { project: { bankId: SHARED } }, setupComplete: true }));
    const run = await turn(h);
    expect(run.code).toBe(0);
    expect(everythingSeen(run.seen)).toContain('vault_accounts');
    expect(queued(h)).toContain(VICTIM_TAG);
  }, 120_000);
});
