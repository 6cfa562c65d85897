/**
 * Installs the package the way a pi user does, with nothing else: the pi entry is built,
 * `npm pack` makes the tarball from the project's package.json, the tarball is unpacked and
 * `pi install <dir>` records that directory in a temp agent dir (no `npm install` runs in it).
 * Then two `pi -p` turns on a project whose memory server is the embedded one: the first is
 * retained, the second's model call carries the recalled block. Runs on both pi lines.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { hostLine } from './hostLine.js';
import { stopChild } from '../../helpers/stopChild.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { piTmpEnv } from '../../helpers/piTmp.js';

const run = promisify(execFile);
const repo = path.resolve(__dirname, '../../..');
const fauxProvider = path.join(repo, 'fixtures/pi/faux-provider.ts');
const RECALL_OPEN = '<memory-recall>';

interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const pi = (cwd: string, env: Record<string, string>, args: readonly string[]): Promise<Result> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [hostLine.cli, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', PI_OFFLINE: '1', ...piTmpEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });

const STALE_CHUNK = 'runtime-STALE000.mjs';

/** Builds the pi entry into a staging copy of the package and packs it; returns the unpacked dir. */
const packAndUnpack = async (root: string): Promise<{ dir: string; tarball: string }> => {
  const staging = path.join(root, 'staging');
  await mkdir(staging, { recursive: true });
  await copyFile(path.join(repo, 'package.json'), path.join(staging, 'package.json'));
  await copyFile(path.join(repo, 'README.md'), path.join(staging, 'README.md'));
  await cp(path.join(repo, 'data'), path.join(staging, 'data'), { recursive: true });
  // A chunk an older build left behind (its hash no longer named by any entry).
  await mkdir(path.join(staging, 'dist', 'pi'), { recursive: true });
  await writeFile(path.join(staging, 'dist', 'pi', STALE_CHUNK), 'export const stale = 1;\n');
  await run(process.execPath, [path.join(repo, 'node_modules/rollup/dist/bin/rollup'), '-c', 'rollup.config.mjs', '--silent'], {
    cwd: repo,
    env: { ...process.env, PI_ONLY: 'true', PI_OUT: path.join(staging, 'dist', 'pi') },
  });
  const packed = await run('npm', ['pack', '--json', '--pack-destination', root], { cwd: staging });
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  if (info === undefined) throw new Error(`npm pack reported nothing: ${packed.stdout}`);
  const tarball = path.join(root, info.filename);
  const unpacked = path.join(root, 'unpacked');
  await mkdir(unpacked);
  await run('tar', ['-xzf', tarball, '-C', unpacked]);
  return { dir: path.join(unpacked, 'package'), tarball };
};

describe(`npm pack tarball installed with pi ${hostLine.version} install <dir>`, () => {
  let server: TestServer;
  let root: string;
  let pkg: { dir: string; tarball: string };
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    root = await mkdtemp(path.join(tmpdir(), 'am-pack-'));
    pkg = await packAndUnpack(root);
  }, 180_000);
  afterAll(async () => {
    await server.dispose();
  });

  it('installs with no npm install, loads, retains a turn and recalls it in the next', async () => {
    // The tarball holds the built entry and no node_modules: the bundle must carry its dependencies.
    expect(existsSync(path.join(pkg.dir, 'dist', 'pi', 'index.mjs'))).toBe(true);
    expect(existsSync(path.join(pkg.dir, 'node_modules'))).toBe(false);
    // No source maps: they were two thirds of the unpacked package.
    expect((await readdir(pkg.dir, { recursive: true })).filter((f) => f.endsWith('.map'))).toEqual([]);
    // The build removed the chunk an older build left, so the tarball ships only what the entry loads.
    expect(await readdir(path.join(pkg.dir, 'dist', 'pi'))).not.toContain(STALE_CHUNK);
    // The word-neighbour table the embedded server searches in conversations ships beside dist/.
    expect(existsSync(path.join(pkg.dir, 'data', 'word-neighbours.txt'))).toBe(true);

    const agentDir = path.join(root, 'agent');
    const home = path.join(root, 'home');
    const cwd = path.join(root, 'project');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(
      path.join(cwd, '.pi', 'memory.json'),
      JSON.stringify({ memory: { baseUrl: server.url, timeoutMs: 5000 }, banks: { project: { bankId: 'pack-test' } }, scope: { projectId: 'pack-test' } }),
    );
    // The user trusts the test server: a project file may only point memory at a trusted origin.
    await mkdir(agentDir, { recursive: true });
    // The user file lives in pi's agent dir (PI_CODING_AGENT_DIR) and trusts the test server.
    await writeFile(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [server.url] } }));
    const env = { HOME: home, PI_CODING_AGENT_DIR: agentDir };

    const install = await pi(cwd, env, ['install', pkg.dir]);
    expect(install.code, install.stderr).toBe(0);
    const settings = JSON.parse(await readFile(path.join(agentDir, 'settings.json'), 'utf8')) as { packages?: unknown[] };
    expect(settings.packages).toHaveLength(1);
    expect(existsSync(path.join(pkg.dir, 'node_modules'))).toBe(false);

    const turn = (answer: string, prompt: string, seen?: string): Promise<Result> =>
      pi(cwd, { ...env, AM_FAUX_SCRIPT: JSON.stringify([answer]), ...(seen === undefined ? {} : { AM_FAUX_SEEN: seen }) }, [
        '-e',
        fauxProvider,
        '--provider',
        'faux',
        '--model',
        'faux-1',
        '--no-builtin-tools',
        '-p',
        prompt,
      ]);

    const first = await turn('Noted: the release train leaves every Tuesday at 14:00.', 'Remember: the release train leaves every Tuesday at 14:00.');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/Extension error|Failed to load/);
    expect(first.stdout).toContain('Noted: the release train');
    // Our extension ran from the installed directory: it made the project's memory state dir.
    expect((await readdir(path.join(cwd, '.pi', 'memory'))).some((n) => n.startsWith('retain-queue'))).toBe(true);

    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 2_000 });
    await waitUntil(async () => {
      const r = await client.recall('pack-test', { query: 'release train Tuesday' })();
      return E.isRight(r) && r.right.results.some((hit) => hit.text.includes('Tuesday'));
    }, 30_000);

    const seen = path.join(root, 'seen.jsonl');
    const second = await turn('It leaves on Tuesday.', 'When does the release train leave?', seen);
    expect(second.code, second.stderr).toBe(0);
    const calls = (await readFile(seen, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as string[]);
    const texts = calls[0] ?? [];
    const block = texts.findIndex((t) => t.startsWith(RECALL_OPEN));
    expect(block, texts.join('\n---\n')).toBeGreaterThanOrEqual(0);
    expect(texts[block]).toContain('Tuesday');
    // Inserted right before the last user message.
    expect(texts[block + 1]).toContain('When does the release train leave?');
    expect(block + 1).toBe(texts.length - 1);
  }, 240_000);

  it('the embedded server starts with the command the installed extension names, from a person\'s project', async () => {
    // The command guided setup prints when nothing answers: `node <extension>/dist/pi/serve.mjs`.
    const { embeddedServerCommand } = await import('../../../src/hosts/pi/serverCommand.js');
    const command = embeddedServerCommand(pathToFileURL(path.join(pkg.dir, 'dist', 'pi', 'index.mjs')).href);
    const serve = path.join(pkg.dir, 'dist', 'pi', 'serve.mjs');
    expect(command).toBe(`node ${serve}`);
    const cwd = path.join(root, 'another-project');
    await mkdir(cwd, { recursive: true });
    // Run from the project, with no node_modules anywhere near: the bundle carries the server.
    const child = spawn(process.execPath, [serve, '--port', '0', '--in-memory'], { cwd, env: { PATH: process.env['PATH'] ?? '', HOME: path.join(root, 'home') }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      await waitUntil(() => Promise.resolve(/listening on (http:\/\/\S+)/.test(out)), 20_000);
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '';
      const caps = await createMemoryServer({ baseUrl: url, timeoutMs: 2_000 }).capabilities()();
      expect(E.isRight(caps) && caps.right.embedded).toBe(true);
    } finally {
      await stopChild(child);
    }
  }, 60_000);
});
