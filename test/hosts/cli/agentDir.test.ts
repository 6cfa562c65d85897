/**
 * The user file lives in pi's agent dir: with PI_CODING_AGENT_DIR set, `agent-memory doctor`
 * reads `$PI_CODING_AGENT_DIR/memory.json` (and not `~/.pi/agent/memory.json`), as pi does
 * for its own settings.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';

describe('agent-memory and PI_CODING_AGENT_DIR', () => {
  let server: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    other = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
    await other.dispose();
  });

  it('reads the user file from PI_CODING_AGENT_DIR, the default agent dir otherwise', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'am-agentdir-'));
    const home = path.join(root, 'home');
    const agentDir = path.join(root, 'custom-agent');
    const project = path.join(root, 'project');
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    await mkdir(agentDir, { recursive: true });
    await mkdir(project, { recursive: true });
    // Each location names a different server, so the output says which file was read.
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: other.url, timeoutMs: 2000 } }));
    await writeFile(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, timeoutMs: 2000 } }));

    const custom = await runCli(['doctor'], { cwd: project, env: { HOME: home, PI_CODING_AGENT_DIR: agentDir } });
    expect(custom.stdout).toContain(`Server: ${server.url} (user file)`);
    expect(custom.stdout).toContain('reachable');

    const fallback = await runCli(['doctor'], { cwd: project, env: { HOME: home } });
    expect(fallback.stdout).toContain(`Server: ${other.url} (user file)`);
    expect(fallback.stdout).not.toContain(server.url);
  }, 60_000);

  it('names the user file where PI_CODING_AGENT_DIR puts it, in every message that sends a person there', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'am-agentdir-msg-'));
    const home = path.join(root, 'home');
    const agentDir = path.join(root, 'custom-agent');
    const project = path.join(root, 'project');
    const userFile = path.join(agentDir, 'memory.json');
    await mkdir(agentDir, { recursive: true });
    await mkdir(path.join(project, '.pi'), { recursive: true });
    await writeFile(userFile, JSON.stringify({ memory: { baseUrl: server.url, timeoutMs: 2000 } }));
    // A project file that moves memory to an origin the user file does not list, and holds a raw key.
    await writeFile(path.join(project, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl: other.url, apiKeyDirect: 'hsk_not_here_0123456789' } }));
    const env = { HOME: home, PI_CODING_AGENT_DIR: agentDir };

    const doctor = await runCli(['doctor'], { cwd: project, env });
    expect(doctor.stdout).toContain(`add "${other.url}" to memory.trustedOrigins in ${userFile}`);
    expect(doctor.stdout).toContain(`only allowed in the user file ${userFile}, refused in a project file`);
    const status = await runCli(['status'], { cwd: project, env });
    expect(status.stdout).toContain(`Setup: untrusted (memory is off for this project: its .pi/memory.json points memory at ${other.url}, which ${userFile} does not trust`);
    for (const out of [doctor.stdout, doctor.stderr, status.stdout, status.stderr]) expect(out).not.toContain('.pi/agent/memory.json');

    // Nothing moved: the verdict says where the server came from, and a switch where it was set, by the real path.
    await writeFile(userFile, JSON.stringify({ memory: { baseUrl: server.url, timeoutMs: 2000 }, retain: { enabled: false } }));
    await writeFile(path.join(project, '.pi', 'memory.json'), JSON.stringify({ scope: { projectId: 'agentdir-msg' } }));
    const trusted = await runCli(['doctor'], { cwd: project, env });
    expect(trusted.stdout).toContain(`comes from ${userFile} or the defaults`);
    expect(trusted.stdout).toContain(`retain.enabled is false in ${userFile}`);
    expect(trusted.stdout).not.toContain('.pi/agent/memory.json');
  }, 60_000);
});
