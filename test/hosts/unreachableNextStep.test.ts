/**
 * A memory server that does not answer: every place a person reads it (the setup gate's
 * detail, which the hub's first lines show; the status lines; the doctor's error line, in pi
 * and in a shell) names the next step from one describer: the command that starts the
 * embedded server where the URL points, or another server in pi's /memory settings. The fifth
 * pass found the hub saying only "check that it is running and that memory.baseUrl is right".
 * The command named is run here, and the server it starts answers the doctor.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureText, type ServerFailure } from '../../src/effects/ports/serverFailure.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { hubGlance } from '../../src/hosts/pi/hubGlance.js';
import { HUB_ACTIONS } from '../../src/tools/commands/memoryHub.js';
import { runCli } from '../helpers/cli.js';
import { stopChild } from '../helpers/stopChild.js';
import { waitUntil } from '../helpers/waitUntil.js';

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });

const FAILURES: readonly ServerFailure[] = [
  { _tag: 'unreachable', message: 'GET /version: ECONNREFUSED' },
  { _tag: 'circuitOpen', retryAt: 0 },
  { _tag: 'timeout', message: 'GET /version: 1500 ms' },
  { _tag: 'unauthorized' },
  { _tag: 'notFound' },
  { _tag: 'badResponse', detail: 'not JSON' },
  { _tag: 'responseTooLarge', route: 'POST /recall', limitBytes: 8 << 20 },
];

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'am-next-step-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('one describer names the next step', () => {
  it('every slash command a failure names is one /memory has; no failure says "memory.baseUrl is right"', () => {
    const actions = new Set(HUB_ACTIONS.map((a) => a.usage.split(' ')[1]));
    for (const f of FAILURES) {
      const text = failureText(f, 'node /x/serve.mjs --port 9');
      for (const named of `${text.what} ${text.next ?? ''}`.matchAll(/\/memory (\w[\w-]*)/g)) expect(actions.has(named[1])).toBe(true);
      expect(text.next ?? '').not.toMatch(/baseUrl is right|fix memory\.baseUrl/);
    }
    // Marked offline after repeated failures, the hub said only "calls resume after a short cool-down" (sixth pass, pi 1.6).
    expect(failureText({ _tag: 'circuitOpen', retryAt: 0 }, 'node /x/serve.mjs --port 9').next).toBe("start it with node /x/serve.mjs --port 9, or choose another server in pi's /memory settings");
    expect(failureText(FAILURES[0]!, 'node /x/serve.mjs --port 9')).toEqual({
      what: 'memory server unreachable (connection refused)',
      next: "start it with node /x/serve.mjs --port 9, or choose another server in pi's /memory settings",
    });
  });

  it("pi's hub: the setup gate's detail, shown at the top of the hub, names the command that starts the server", async () => {
    const port = await freePort();
    const cwd = path.join(root, 'hub', 'project');
    const home = path.join(root, 'hub', 'home');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1500 }, banks: { project: { bankId: 'next-step' } }, setupComplete: true }));
    const runtime: MemoryRuntime = await createMemoryRuntime({ cwd, home, env: { HOME: home }, notify: () => undefined, shutdownFlushMs: 200, serverCommand: 'node /opt/am/dist/pi/serve.mjs' });
    try {
      await waitUntil(() => runtime.status().setup.state === 'degraded');
      const detail = runtime.status().setup.detail ?? '';
      const glance = hubGlance({ state: 'degraded', detail, bank: 'next-step', tag: 'project:x', setupEntry: 'Set up memory (guided)' });
      const said = glance.replace(/\n/g, ' ');
      expect(said).toContain(`start it with node /opt/am/dist/pi/serve.mjs --port ${port}`);
      expect(said).toContain("another server in pi's /memory settings");
      expect(glance.split('\n').length).toBeLessThanOrEqual(4);
      for (const line of glance.split('\n')) expect([...line].length).toBeLessThanOrEqual(78);
    } finally {
      await runtime.close();
    }
  }, 30_000);

  it("the shell's doctor names a command that exists: run, it starts a server the doctor then finds", async () => {
    const port = await freePort();
    const cwd = path.join(root, 'shell', 'project');
    const home = path.join(root, 'shell', 'home');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1500 } }));
    const env = { HOME: home, COLUMNS: '400' };
    const down = await runCli(['doctor'], { cwd, env });
    expect(down.code).toBe(1);
    const error = down.stdout.split('\n').find((l) => l.startsWith('error: server unreachable')) ?? '';
    expect(error).toContain("or choose another server in pi's /memory settings");
    // "agent-memory serve" before: on no PATH when the CLI runs from a clone.
    const command = /start it with (.+?), or choose/.exec(error)?.[1] ?? '';
    expect(command).toMatch(new RegExp(`^node .+ serve --port ${port}$`));
    const status = await runCli(['status'], { cwd, env });
    expect(status.stdout).toContain(`! Health: unreachable (connection refused); start it with ${command}, or choose another server in pi's /memory settings`);
    const words = command.split(' ').map((w) => w.replace(/^"(.*)"$/, '$1'));
    const child: ChildProcess = spawn(words[0] ?? 'node', [...words.slice(1), '--data-dir', path.join(root, 'shell', 'data')], { cwd: root, stdio: 'ignore', env: { ...process.env, HOME: home } });
    try {
      await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/version`).then((r) => r.ok, () => false)), 30_000, 'the started server answers');
      const up = await runCli(['doctor'], { cwd, env });
      expect(up.stdout).not.toContain('error: server unreachable');
    } finally {
      await stopChild(child);
    }
  }, 90_000);

  it("the shell's import and flush stopped by no answer say so as the doctor does, with the command that starts the server; run, the next flush delivers", async () => {
    const port = await freePort();
    const base = path.join(root, 'queue');
    const cwd = path.join(base, 'project');
    const home = path.join(base, 'home');
    const sessions = path.join(base, 'sessions');
    for (const dir of [path.join(cwd, '.pi'), path.join(home, '.pi', 'agent'), sessions]) await mkdir(dir, { recursive: true });
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1500 } }));
    await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: 'next-step-queue' } }, scope: { projectId: 'next-step-queue' }, setupComplete: true }));
    const lines = (await readFile(path.resolve('fixtures/pi/sessions/pi073-linear.jsonl'), 'utf8')).split('\n').filter((l) => l !== '');
    await writeFile(path.join(sessions, 'a.jsonl'), `${[JSON.stringify({ ...(JSON.parse(lines[0] ?? '{}') as object), cwd }), ...lines.slice(1)].join('\n')}\n`);
    const env = { HOME: home };
    const doctor = (await runCli(['doctor'], { cwd, env: { ...env, COLUMNS: '400' } })).stdout.split('\n').find((l) => l.startsWith('error: server unreachable')) ?? '';
    const said = doctor.replace(/^error: s/, 'S');
    expect(said).toMatch(new RegExp(`^Server unreachable at http://127\\.0\\.0\\.1:${port}: start it with node .+ serve --port ${port}, or choose another server in pi's /memory settings$`));

    const imported = await runCli(['import', sessions], { cwd, env });
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('The import is paused: the memory server is not answering');
    // The doctor's sentence, word for word, and what to do after it.
    expect(imported.stdout).toContain(`${said}; then resume as below.`);
    const flushed = await runCli(['flush', '--timeout-ms', '2000'], { cwd, env });
    expect(flushed.code).toBe(1);
    expect(flushed.stdout).toContain('still queued 1');
    expect(flushed.stdout).toContain(`${said}; then flush again.`);

    const command = /start it with (.+?), or choose/.exec(said)?.[1] ?? '';
    const words = command.split(' ').map((w) => w.replace(/^"(.*)"$/, '$1'));
    const child: ChildProcess = spawn(words[0] ?? 'node', [...words.slice(1), '--data-dir', path.join(base, 'data')], { cwd: base, stdio: 'ignore', env: { ...process.env, HOME: home } });
    try {
      await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/version`).then((r) => r.ok, () => false)), 30_000, 'the started server answers');
      const again = await runCli(['flush', '--timeout-ms', '10000'], { cwd, env });
      expect(again.stdout, again.stderr).toContain('delivered 1');
      expect(again.code).toBe(0);
    } finally {
      await stopChild(child);
    }
  }, 120_000);
});
