/**
 * Ninth session: secrets that are already in memory. Redaction runs on the way in; a memory the
 * bank holds from before a rule existed (an earlier version kept `DB_PASSWORD="correct horse
 * battery staple"` but its first word, and `redis://:pw@host` whole), or one another client of
 * a shared Hindsight bank stored, comes back through automatic recall and the memory tools.
 * Performed with the real pi CLI (scripted model), the embedded server and real files: the
 * memory is recalled (its other words reach the model), its secrets reach neither the model nor
 * any file pi or memory writes (pi's session file keeps every tool result's details).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { redact } from '../../src/config/redact.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { filesUnder } from './support.js';
import { runPi } from './support/piRun.js';

const BANK = 'sec-recalled';
const PROJECT = 'recalled-app';
// Each shape is one today's rules catch; the bank holds it because it was stored before them.
const SECRETS = {
  passphrase: 'horse battery staple',
  redis: 's3cretRedisPw',
  stripe: `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`,
  github: `ghp_${'R2d2C3poBb8Luke1Leia2Han3Solo4Chewie5'}`,
} as const;
const OLD_MEMORY = [
  `The deploy of the billing service reads DB_PASSWORD="correct ${SECRETS.passphrase}" from the vault.`,
  `Its cache is redis://:${SECRETS.redis}@cache.internal:6379 and payments use ${SECRETS.stripe}.`,
  `The release bot pushes with ${SECRETS.github}.`,
].join(' ');

let server: TestServer;
beforeAll(async () => {
  // What today's redaction does with the memory: it would never be stored this way now.
  for (const secret of Object.values(SECRETS)) expect(redact(OLD_MEMORY)).not.toContain(secret);
  server = await startTestServer({ persist: false });
  const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 5000 });
  const stored = await client.retain(BANK, { items: [{ content: OLD_MEMORY, tags: [`project:${PROJECT}`, 'source:pi', 'harness:pi'] }] })();
  if (E.isLeft(stored)) throw new Error(`seeding failed: ${stored.left._tag}`);
});
afterAll(async () => {
  await server.dispose();
});

const project = (): { root: string; cwd: string; home: string; agentDir: string } => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-recalled-'));
  const cwd = path.join(root, 'billing');
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  for (const dir of [path.join(cwd, '.pi'), home, agentDir]) mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(agentDir, 'memory.json'),
    JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: BANK } }, scope: { projectIdStrategy: 'pin', projectId: PROJECT }, setupComplete: true }),
  );
  return { root, cwd, home, agentDir };
};

const holding = (text: string): string[] => Object.entries(SECRETS).filter(([, secret]) => text.includes(secret)).map(([name]) => name);

describe('a memory stored with secrets before today’s rules', () => {
  it('automatic recall, memory_recall and memory_reflect bring it back without its secrets, to the model and to every file', async () => {
    const p = project();
    const run = await runPi({
      ...p,
      prompt: 'How does the billing service deploy reach its cache and the vault?',
      script: [
        { tool: 'memory_recall', args: { query: 'billing service deploy cache vault redis', includeChunks: true } },
        { tool: 'memory_reflect', args: { query: 'How does the billing deploy reach its cache?' } },
        'It reads its password from the vault.',
      ],
    });
    expect(run.stderr).not.toContain('Extension error');
    expect(run.code).toBe(0);
    const seen = run.seen.flat().join('\n');
    // Recalled: the memory's other words reached the model, automatically and through the tool.
    expect(run.seen[0]?.join('\n')).toContain('cache.internal');
    expect(seen).toContain('billing service');
    expect(holding(seen)).toEqual([]);
    expect(holding(run.stdout)).toEqual([]);
    // pi's session file (tool results with their details), the queue, traces, sidecars.
    const files = [...filesUnder(p.agentDir), ...filesUnder(p.cwd)];
    const sessionFiles = files.filter(({ file }) => file.startsWith(path.join(p.agentDir, 'sessions')));
    // The session file holds both tool results (text and details) with the memory in them.
    expect(sessionFiles.filter(({ text }) => text.includes('memory_reflect') && text.includes('cache.internal'))).toHaveLength(1);
    expect(files.filter(({ text }) => holding(text).length > 0).map(({ file }) => file)).toEqual([]);
  }, 120_000);
});
