import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRuntime } from '../../../src/hosts/memoryRuntime.js';
import type { BankId, DocumentId } from '../../../src/codecs/codecs.js';
import { runCli } from '../../helpers/cli.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';

const KEY = 'hsk_cli_test_0123456789abcdef';
const root = mkdtempSync(path.join(tmpdir(), 'am-cli-rt-'));
const project = path.join(root, 'project');
const home = path.join(root, 'home');
let server: TestServer;

const cli = (args: string[]) => runCli(args, { cwd: project, env: { HOME: home, CLI_TEST_KEY: KEY } });

beforeAll(async () => {
  server = await startTestServer({ persist: false, apiKey: KEY });
  mkdirSync(path.join(project, '.pi'), { recursive: true });
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  // The key's variable is named in the user file: a project file may not pick where the key goes.
  writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, apiKeyEnv: 'CLI_TEST_KEY' } }));
  writeFileSync(path.join(project, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: 'cli-bank' } }, scope: { projectId: 'cli/project' } }));
});
afterAll(async () => {
  await server.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('agent-memory doctor, status and flush', () => {
  it('doctor reports a reachable server above the floor, and never the key', async () => {
    const { code, stdout } = await cli(['doctor']);
    expect(stdout).not.toContain(KEY);
    expect(stdout).toMatch(/0\.9\.1/);
    expect(code).toBe(0);
  });

  it('flush delivers what a server outage left in the queue, with progress, then status shows an empty queue', async () => {
    server.setFaults([{ method: 'POST', path: '*/memories', kind: 'status', status: 503 }]);
    const runtime = await createMemoryRuntime({ cwd: project, home, env: { HOME: home, CLI_TEST_KEY: KEY } });
    await runtime.queue!.enqueue(
      [1, 2, 3].map((n) => ({ bankId: 'cli-bank' as BankId, documentId: `doc-${n}` as DocumentId, updateMode: 'append' as const, item: { content: `queued fact number ${n}` } })),
    );
    await runtime.queue!.flush({ deadline: Date.now() + 1_000 });
    expect(runtime.queue!.status().depth).toBe(3);
    await runtime.close();
    server.setFaults([]);

    // From another directory, naming the project (tenth session: --cwd was passed over, and the
    // current directory's empty queue answered "Nothing queued.").
    const flushed = await runCli(['flush', '--cwd', project, '--timeout-ms', '10000'], { cwd: root, env: { HOME: home, CLI_TEST_KEY: KEY } });
    expect(flushed.stdout).toContain('delivered 3, dead-lettered 0, still queued 0');
    // The progress bar is drawn on stderr, so piped output stays clean.
    expect(flushed.stderr).toMatch(/delivering \[.*\] 3\/3 jobs/);
    expect(flushed.code).toBe(0);

    const status = await cli(['status']);
    expect(status.stdout).not.toContain(KEY);
    expect(status.stdout).toMatch(/cli-bank/);
  });

  it('flush and dead-letters refuse an option they do not take, with the usage; dead-letters takes --cwd', async () => {
    const flush = await cli(['flush', '--timeot-ms', '5']);
    expect(flush.code).toBe(2);
    expect(flush.stderr).toContain("agent-memory flush: Unknown option '--timeot-ms'");
    expect(flush.stderr).toContain('usage: agent-memory flush [--cwd DIR]');
    const letters = await cli(['dead-letters', 'list', '--verbose']);
    expect(letters.code).toBe(2);
    expect(letters.stderr).toContain("agent-memory dead-letters: Unknown option '--verbose'");
    const elsewhere = await runCli(['dead-letters', 'list', '--cwd', project, '--json'], { cwd: root, env: { HOME: home, CLI_TEST_KEY: KEY } });
    expect(elsewhere.code).toBe(0);
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ deadLetters: [] });
    const missing = await runCli(['flush', '--cwd', path.join(root, 'nowhere')], { cwd: root, env: { HOME: home } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('is not a directory');
    // Four CLI processes: past the 30 s default at load average 60 (16 s alone).
  }, 90_000);

  it('flush explains when nothing is queued', async () => {
    const { code, stdout } = await cli(['flush']);
    expect(stdout).toContain('Nothing queued.');
    expect(code).toBe(0);
  });
});
