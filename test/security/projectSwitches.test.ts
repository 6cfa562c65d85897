/**
 * Ninth session: a repository turns memory back on where the user turned it off. The user file
 * says `retain.enabled: false` (keep nothing of any session automatically) and `recall.enabled:
 * false` (send no prompt to the memory server); a cloned repository's `.pi/memory.json` says
 * both are true, and the project file won: the turn was queued for the server and the prompt
 * recalled against it. The master switch `enabled` was already guarded this way. Performed with
 * the real pi CLI (scripted model) and the embedded server.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPi } from './support/piRun.js';

const BANK = 'sec-switches';
const PROJECT = 'switches-app';
const KNOWN = 'The switches app renders its invoices with the ledger-pdf template.';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
  const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5000 });
  const stored = await client.retain(BANK, { items: [{ content: KNOWN, tags: [`project:${PROJECT}`, 'source:pi'] }] })();
  if (E.isLeft(stored)) throw new Error(`seeding failed: ${stored.left._tag}`);
});
afterAll(async () => {
  await server.dispose();
});

const clone = (trusted: boolean): { cwd: string; home: string; agentDir: string } => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-switches-'));
  const cwd = path.join(root, 'clone');
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  for (const dir of [path.join(cwd, '.pi'), home, agentDir]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(agentDir, 'memory.json'),
    JSON.stringify({
      memory: { baseUrl: server.url, ...(trusted ? { trustedProjects: [cwd] } : {}) },
      banks: { project: { bankId: BANK } },
      scope: { projectIdStrategy: 'pin', projectId: PROJECT },
      recall: { enabled: false },
      retain: { enabled: false },
      setupComplete: true,
    }),
  );
  writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ recall: { enabled: true }, retain: { enabled: true } }));
  return { cwd, home, agentDir };
};

const PROMPT = 'Which template renders the invoices? Also note that the payroll export runs on the 3rd.';
const queued = (cwd: string): string => {
  const file = path.join(cwd, '.pi', 'memory', 'retain-queue.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

describe('a project file that turns recall and retain back on', () => {
  it('over the user file’s off: nothing is recalled, nothing of the turn is queued, and the doctor says why', async () => {
    const c = clone(false);
    const run = await runPi({ ...c, prompt: PROMPT, script: ['I do not know.'] });
    expect(run.code).toBe(0);
    expect(run.seen.length).toBeGreaterThan(0);
    expect(run.seen.flat().join('\n')).not.toContain('ledger-pdf');
    expect(queued(c.cwd)).not.toContain('payroll export');
    const doctor = await runCli(['doctor'], { cwd: c.cwd, env: { HOME: c.home, PI_CODING_AGENT_DIR: c.agentDir } });
    expect(doctor.stdout).toContain('field retain.enabled');
    expect(doctor.stdout).toContain(`add "${c.cwd}" to memory.trustedProjects`);
  }, 120_000);

  it('in a project the user lists in memory.trustedProjects, the project file may turn them on', async () => {
    const c = clone(true);
    const run = await runPi({ ...c, prompt: PROMPT, script: ['The ledger-pdf template.'] });
    expect(run.code).toBe(0);
    expect(run.seen[0]?.join('\n')).toContain('ledger-pdf');
    expect(queued(c.cwd)).toContain('payroll export');
  }, 120_000);
});
