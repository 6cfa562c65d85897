/**
 * Issue 27: `agent-memory status` and pi's footer decide "is setup done" by one rule. For each
 * project below, a real runtime (what pi runs) and the real CLI (a child process) look at the
 * same files and the same embedded server, and must name the same setup state.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRuntime, type MemoryRuntime } from '../../../src/hosts/memoryRuntime.js';
import { runCli } from '../../helpers/cli.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';

let server: TestServer;
const open: MemoryRuntime[] = [];

beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  for (const runtime of open) await runtime.close();
  await server.dispose();
});

const project = async (projectFile: Record<string, unknown> | undefined): Promise<{ cwd: string; home: string }> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-agree-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
  await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
  if (projectFile !== undefined) await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify(projectFile));
  return { cwd, home };
};

const settled = async (runtime: MemoryRuntime): Promise<void> => {
  const end = Date.now() + 8_000;
  while (['probing', 'bankMissing'].includes(runtime.status().setup.state) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
};

describe('setup state: the CLI and the footer agree', () => {
  const cases: readonly { name: string; file: Record<string, unknown> | undefined; state: string; footer: string; line: string; complete: boolean }[] = [
    // The case issue 27 found: a named bank without setupComplete works, and the CLI said "required".
    { name: 'a named bank, setupComplete not set', file: { banks: { project: { bankId: 'agree-a' } }, scope: { projectId: 'agree-a' } }, state: 'ready', footer: 'memory: ready', line: 'Setup: ready', complete: true },
    { name: 'setupComplete and a named bank', file: { banks: { project: { bankId: 'agree-b' } }, scope: { projectId: 'agree-b' }, setupComplete: true }, state: 'ready', footer: 'memory: ready', line: 'Setup: ready', complete: true },
    { name: 'no project file', file: undefined, state: 'unconfigured', footer: 'memory: setup needed', line: 'Setup: setup needed (memory is not set up in this project yet', complete: false },
    { name: 'disabled', file: { enabled: false, banks: { project: { bankId: 'agree-c' } } }, state: 'disabled', footer: 'memory: off', line: 'Setup: off', complete: true },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const dirs = await project(c.file);
      const runtime = await createMemoryRuntime({ cwd: dirs.cwd, home: dirs.home, env: { HOME: dirs.home }, notify: () => undefined, shutdownFlushMs: 200 });
      open.push(runtime);
      await settled(runtime);
      expect(runtime.status().setup.state).toBe(c.state);
      expect(runtime.status().footer).toBe(c.footer);

      const json = await runCli(['status', '--json'], { cwd: dirs.cwd, env: { HOME: dirs.home } });
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout) as { setup: { state: string }; setupComplete: boolean };
      expect(report.setup.state).toBe(runtime.status().setup.state);
      expect(report.setupComplete).toBe(c.complete);

      const text = await runCli(['status'], { cwd: dirs.cwd, env: { HOME: dirs.home } });
      expect(text.stdout).toContain(c.line);
      expect(text.stdout).not.toContain('required');
      // Internal words stay out of what a person reads; the mode's value is explained.
      if (c.state !== 'disabled') expect(text.stdout).toContain('Scope mode: domain-tagged (one bank for all your projects, each kept apart by its project tag)');
      expect(text.stdout).toContain('Personal bank: disabled');
      expect(text.stdout).not.toMatch(/Life bank|shared coding bank|domain-tagged mode|git_seed_|queue_/);
    }, 30_000);
  }
});
