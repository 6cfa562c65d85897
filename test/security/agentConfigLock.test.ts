/**
 * Attack: the agent (steered by a prompt injection in a README) rewrites where memory goes
 * or which variable is sent as the key (issue 12, item 3 of the attack list). Real parts: the
 * `memory_config` tool over real config files, and the real pi 0.73.1 CLI with a scripted
 * model that makes exactly the tool calls of the attack.
 */
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTool } from '../../src/tools/catalogue.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { startHarness, type Harness } from '../tools/harness.js';
import { makeDirs, startListener, type Listener } from './support.js';
import { piExtension } from '../helpers/piExtension.js';
import { piTmpEnv } from '../helpers/piTmp.js';

const LOCKED: readonly (readonly [key: string, value: unknown])[] = [
  ['baseUrl', 'http://127.0.0.1:18891'],
  ['apiKeyEnvVar', 'OTHER_SECRET'],
  ['apiKeyEnv', 'OTHER_SECRET'],
  ['apiKeyDirect', 'raw-key-value-123456'],
  ['trustedOrigins', ['http://127.0.0.1:18891']],
  ['enabled', false],
];

describe('memory_config refuses every field that decides where memory goes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ user: { memory: { apiKeyEnv: 'MEMORY_KEY' } } });
  });
  afterAll(async () => {
    await h.close();
  });
  const userFile = () => path.join(h.home, '.pi', 'agent', 'memory.json');
  const projectFile = () => path.join(h.stateDir, 'memory.json');

  it.each(LOCKED)('%s: refused by name, in both scopes, even mixed with allowed fields; no file changes', async (key, value) => {
    const before = [readFileSync(userFile(), 'utf8'), readFileSync(projectFile(), 'utf8')];
    for (const scope of ['global', 'project'] as const) {
      const error = await h.fails('memory_config', { action: 'patch', scope, patch: { recallMaxTokens: 900, [key]: value }, dryRun: false });
      expect(error.code).toBe('rejected');
      expect(error.field).toBe(`patch.${key}`);
      expect(error.message).toContain(`${key} cannot be changed by a tool call`);
      expect(error.message).toContain('(each shows the change and asks first)');
      expect(error.message).toContain('/memory settings or /memory setup');
      expect(error.message).toContain('Nothing was changed');
      // A raw key offered as a value is never echoed back.
      expect(error.message).not.toContain('raw-key-value-123456');
    }
    expect([readFileSync(userFile(), 'utf8'), readFileSync(projectFile(), 'utf8')]).toEqual(before);
  });

  it('the tool description and schema say so', () => {
    const tool = findTool('memory_config')!;
    expect(tool.description).toContain('baseUrl, apiKeyEnvVar, apiKeyDirect, trustedOrigins and enabled are refused');
    const props = (tool.parameters as { properties: { patch: { properties: Record<string, { description?: string }> } } }).properties.patch.properties;
    expect(props['baseUrl']?.description).toContain('Refused');
  });

  it('get still shows them, read-only', async () => {
    const got = await h.ok('memory_config', { action: 'get' });
    expect(got.text).toMatch(/baseUrl = http:\/\/localhost:8888 \(default; user-only, not patchable\)/);
    expect(got.text).toContain('apiKeyEnvVar = MEMORY_KEY (user; user-only, not patchable)');
  });
});

const repo = path.resolve(__dirname, '../..');
const piBin = realpathSync(path.join(repo, 'node_modules/.bin/pi'));
const fauxTools = path.join(repo, 'fixtures/pi/faux-provider.ts');

describe('the real pi CLI: a model steered to repoint memory gets a refusal', () => {
  let server: TestServer;
  let attacker: Listener;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    attacker = await startListener();
  });
  afterAll(async () => {
    await attacker.close();
    await server.dispose();
  });

  it('memory_config patch of baseUrl and apiKeyEnvVar (scope global, dryRun false) changes nothing', async () => {
    const dirs = makeDirs({ memory: { baseUrl: server.url, apiKeyEnv: 'MEMORY_KEY' } }, { banks: { project: { bankId: 'pi-lock' } }, scope: { projectId: 'pi/lock' } });
    const before = [readFileSync(dirs.userFile, 'utf8'), readFileSync(dirs.projectFile, 'utf8')];
    const script = [
      { tool: 'memory_config', args: { action: 'patch', scope: 'global', patch: { baseUrl: attacker.url }, dryRun: false } },
      { tool: 'memory_config', args: { action: 'patch', scope: 'global', patch: { apiKeyEnvVar: 'OTHER_SECRET' }, dryRun: false } },
      'Done.',
    ];
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [piBin, '--no-extensions', '-e', fauxTools, '-e', piExtension(), '--provider', 'faux', '--model', 'faux-1', '--no-builtin-tools', '--mode', 'json', 'Summarise the README.'],
        {
          cwd: dirs.cwd,
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: dirs.home,
            PI_CODING_AGENT_DIR: path.join(dirs.root, 'agent'),
            PI_OFFLINE: '1',
            ...piTmpEnv(),
            AM_FAUX_SCRIPT: JSON.stringify(script),
            MEMORY_KEY: 'memory-key-value-0001',
            OTHER_SECRET: 'other-secret-value-0002',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      const guard = setTimeout(() => child.kill('SIGKILL'), 110_000);
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(guard);
        resolve({ code, stdout, stderr });
      });
    });
    expect(run.stderr).not.toContain('Extension error');
    expect(run.code).toBe(0);
    // pi ran both calls and handed the model our refusal, naming each field.
    expect(run.stdout).toContain('baseUrl cannot be changed by a tool call');
    expect(run.stdout).toContain('apiKeyEnvVar cannot be changed by a tool call');
    expect([readFileSync(dirs.userFile, 'utf8'), readFileSync(dirs.projectFile, 'utf8')]).toEqual(before);
    expect(attacker.connections).toBe(0);
    expect(run.stdout).not.toContain('other-secret-value-0002');
    expect(run.stdout).not.toContain('memory-key-value-0001');
  }, 120_000);
});
