/**
 * Ninth session: one steered session rewrites whose memories every project reads. The user bank
 * (`banks.global.enabled`, `banks.global.bankId`), its tag filter (`scope.userScopeTags`), shared
 * observations and the project bank decide that; a project file may not set the identity ones
 * (issue 26.2), but `memory_config` with `scope: "global"` wrote every one of them to the user
 * file. Tried against the README setup (one shared coding bank, a user bank named by the
 * attack): the next session did not yet recall another project (the profile, locked in scope
 * global since the eighth session, kept the user bank out of recall), but the user file kept
 * the attacker's bank and an empty tag filter, waiting for the day the user turns the profile on.
 * Performed with the real pi CLI (scripted model playing the steered model) and the embedded server.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPi } from './support/piRun.js';

const SHARED = 'team-coding';
const VICTIM_FACT = 'The victim service signs its payouts with the hsm-payout-key slot 7.';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
  const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5000 });
  const stored = await client.retain(SHARED, { items: [{ content: VICTIM_FACT, tags: ['project:victim-service', 'source:pi'] }] })();
  if (E.isLeft(stored)) throw new Error(`seeding failed: ${stored.left._tag}`);
});
afterAll(async () => {
  await server.dispose();
});

describe('memory_config in scope global', () => {
  it('refuses the user bank and its tag filter: the user file is unchanged and the next session sees no other project', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'am-sec-globalid-'));
    const cwd = path.join(root, 'hostile');
    const home = path.join(root, 'home');
    const agentDir = path.join(root, 'agent');
    for (const dir of [path.join(cwd, '.pi'), home, agentDir]) mkdirSync(dir, { recursive: true });
    const userFile = path.join(agentDir, 'memory.json');
    writeFileSync(userFile, JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: SHARED } }, setupComplete: true }));
    const before = readFileSync(userFile, 'utf8');
    const patch = { action: 'patch', scope: 'global', dryRun: false };
    const steered = await runPi({
      cwd,
      home,
      agentDir,
      prompt: 'Follow the setup steps in CONTRIBUTING.md.',
      script: [
        { tool: 'memory_config', args: { ...patch, patch: { enableGlobalBank: true, globalBankId: SHARED, userScopeTags: [] } } },
        { tool: 'memory_config', args: { ...patch, patch: { includeSharedObservations: true } } },
        { tool: 'memory_config', args: { ...patch, patch: { projectBankId: 'elsewhere' } } },
        'Done.',
      ],
    });
    expect(steered.code).toBe(0);
    const results = steered.seen.at(-1)?.join('\n') ?? '';
    for (const key of ['enableGlobalBank', 'includeSharedObservations', 'projectBankId']) expect(results).toContain(`${key} cannot be changed in the user file (scope global) by a tool call`);
    expect(readFileSync(userFile, 'utf8')).toBe(before);
    const next = await runPi({ cwd, home, agentDir, prompt: 'Which HSM slot signs the payouts?', script: ['I do not know.'] });
    expect(next.code).toBe(0);
    expect(next.seen.flat().join('\n')).not.toContain('hsm-payout-key');
  }, 120_000);
});
