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
    expect(custom.stdout).toContain(`Server: ${server.url} (user)`);
    expect(custom.stdout).toContain('reachable');

    const fallback = await runCli(['doctor'], { cwd: project, env: { HOME: home } });
    expect(fallback.stdout).toContain(`Server: ${other.url} (user)`);
    expect(fallback.stdout).not.toContain(server.url);
  }, 60_000);
});
