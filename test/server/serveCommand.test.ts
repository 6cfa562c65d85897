import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, spawnServerProcess } from '../helpers/embeddedServer.js';

const repoRoot = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const runServe = (args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/hosts/cli/main.ts', 'serve', ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });

describe('agent-memory serve', () => {
  it('refuses bad options with exit code 2 and says what to fix, never printing a key', async () => {
    const mimic = await runServe(['--mimic', 'bogus', '--in-memory']);
    expect(mimic.code).toBe(2);
    expect(mimic.out).toContain('--mimic must be one of 0.9, 0.10, legacy-0.7');
    const key = await runServe(['--api-key-env', 'AM_TEST_UNSET_KEY', '--in-memory'], { AM_TEST_UNSET_KEY: '' });
    expect(key.code).toBe(2);
    expect(key.out).toContain('AM_TEST_UNSET_KEY: that environment variable is not set');
  });

  it('says why it cannot start (a busy port, a data dir that is a file) and what to do, with exit code 1 and no stack trace', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'am-serve-fail-'));
    dirs.push(dir);
    const first = await spawnServerProcess(['--data-dir', join(dir, 'first')]);
    try {
      const port = new URL(first.url).port;
      const busy = await runServe(['--port', port, '--data-dir', join(dir, 'second')]);
      expect(busy.code).toBe(1);
      expect(busy.out).toContain(`agent-memory serve: port ${port} is already in use`);
      expect(busy.out).toContain('choose another port with --port N');
      expect(busy.out).not.toMatch(/^\s+at /m);
      // The data dir it opened before the port was refused is free again.
      expect(await readdir(join(dir, 'second'))).not.toContain('server.lock');
    } finally {
      await first.kill();
    }
    await writeFile(join(dir, 'a-file'), 'not a directory');
    const file = await runServe(['--port', '0', '--data-dir', join(dir, 'a-file')]);
    expect(file.code).toBe(1);
    expect(file.out).toContain(`agent-memory serve: cannot use the data dir ${join(dir, 'a-file')}`);
    expect(file.out).toContain('choose another with --data-dir DIR');
    expect(file.out).not.toMatch(/^\s+at /m);
  });

  it('serves with a key from the environment and closes cleanly on SIGTERM, leaving a snapshot', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'am-serve-'));
    dirs.push(dir);
    const server = await spawnServerProcess(['--data-dir', dir, '--api-key-env', 'AM_TEST_KEY'], { AM_TEST_KEY: 'sk-serve-test-0123456789' });
    try {
      expect((await call(server, 'GET', '/v1/default/banks')).status).toBe(401);
      const ok = await call(server, 'POST', '/v1/default/banks/s/memories', { items: [{ content: 'kept' }] }, { Authorization: 'Bearer sk-serve-test-0123456789' });
      expect(ok.status).toBe(200);
      expect(server.output()).not.toContain('sk-serve-test');
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect((await readdir(dir)).some((n) => /^segment-\d{12}-\d{4}\.seg$/.test(n))).toBe(true);
      expect(await readdir(dir)).not.toContain('server.lock');
    } finally {
      await server.kill();
    }
  });

  it.each(['SIGHUP', 'SIGINT'] as const)('closes cleanly on %s too (its terminal closed, Ctrl+C), leaving a snapshot, so the next start replays nothing', async (signal) => {
    const dir = await mkdtemp(join(tmpdir(), 'am-serve-hup-'));
    dirs.push(dir);
    const server = await spawnServerProcess(['--data-dir', dir]);
    try {
      expect((await call(server, 'POST', '/v1/default/banks/s/memories', { items: [{ content: 'kept across a closed terminal' }] })).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      server.child.kill(signal);
      expect(await exited).toBe(0);
      const files = await readdir(dir);
      expect(files.some((n) => /^segment-\d{12}-\d{4}\.seg$/.test(n))).toBe(true);
      expect(files).not.toContain('server.lock');
    } finally {
      await server.kill();
    }
    const again = await spawnServerProcess(['--data-dir', dir]);
    try {
      const listed = await call(again, 'GET', '/v1/default/banks/s/memories/list');
      expect(JSON.stringify(listed.body)).toContain('kept across a closed terminal');
    } finally {
      await again.kill();
    }
  });

  it('keeps its data in pi\'s agent dir by default, following PI_CODING_AGENT_DIR', async () => {
    const root = await mkdtemp(join(tmpdir(), 'am-serve-agentdir-'));
    dirs.push(root);
    const agentDir = join(root, 'custom-agent');
    const server = await spawnServerProcess([], { HOME: join(root, 'home'), PI_CODING_AGENT_DIR: agentDir });
    try {
      expect((await call(server, 'POST', '/v1/default/banks/s/memories', { items: [{ content: 'kept' }] })).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect((await readdir(join(agentDir, 'memory-server'))).some((n) => /^segment-\d{12}-\d{4}\.seg$/.test(n))).toBe(true);
      expect(await readdir(root)).not.toContain('home');
    } finally {
      await server.kill();
    }
  });
});
