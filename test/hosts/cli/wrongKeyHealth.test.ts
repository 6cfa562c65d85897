/**
 * A person's seventh pass: with a wrong API key the doctor said "Server: … — unreachable:
 * memory server rejected the API key": the server answered (401), and "unreachable" sent the
 * person to start a server that was running. The real embedded server with a key, the doctor
 * and status as subprocesses.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';

const root = mkdtempSync(path.join(tmpdir(), 'am-wrong-key-'));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false, apiKey: 'the-right-key-0123456789abcdef' });
}, 60_000);
afterAll(async () => {
  await server?.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('a wrong API key', () => {
  it('is said as the server answering and refusing the key, never as unreachable', async () => {
    const project = path.join(root, 'project');
    const home = path.join(root, 'home');
    mkdirSync(project, { recursive: true });
    mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
    writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, apiKeyEnv: 'AM_WRONG_KEY' }, banks: { project: { bankId: 'k' } }, setupComplete: true }));
    const env = { HOME: home, AM_WRONG_KEY: 'a-wrong-key-fedcba9876543210' };
    const doctor = await runCli(['doctor'], { cwd: project, env });
    const serverLine = doctor.stdout.split('\n').find((l) => l.startsWith('Server: ')) ?? '';
    expect(serverLine).toContain('answers, but: memory server rejected the API key (HTTP 401');
    expect(serverLine).not.toContain('unreachable');
    expect(doctor.code).toBe(1);
    // The doctor knows the variable: it names it, and says whether it is set.
    expect(doctor.stdout).toContain('error: server refused the API key (HTTP 401): set AM_WRONG_KEY to the key the server was started with (here it is set to another key)');
    const unset = await runCli(['doctor'], { cwd: project, env: { HOME: home } });
    expect(unset.stdout).toContain('set AM_WRONG_KEY to the key the server was started with (here it is not set)');
    const status = await runCli(['status'], { cwd: project, env });
    const health = status.stdout.split('\n').find((l) => l.includes('Health: ')) ?? '';
    expect(health).toContain('answers, but: memory server rejected the API key');
  }, 60_000);
});
