/**
 * Issue 11.5: `agent-memory status` and `doctor` through the real CLI (a child process) against
 * the embedded server, a stopped server, a hung loopback listener, a server refusing the key,
 * and broken state dirs (read-only, symlinked, corrupt, missing). Both always print and never
 * change a byte of the state dir; doctor exits 1 on every error finding and 0 otherwise.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { openRetainQueue } from '../../../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../../../src/hosts/retainQueueStore.js';
import type { BankId, DocumentId } from '../../../src/codecs/codecs.js';
import { bundleScript } from '../../helpers/bundleScript.js';
import { runCli, type CliResult } from '../../helpers/cli.js';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { systemNode } from '../../helpers/systemNode.js';

const KEY = 'hsk_diag_test_0123456789abcdef';
const BANK = 'diag-bank';

let server: TestServer;
let hung: Server;
let hungUrl: string;
const hungSockets = new Set<Socket>();
let root: string;

interface Project {
  readonly cwd: string;
  readonly home: string;
  readonly memoryDir: string;
  readonly env: Record<string, string>;
}

const project = async (name: string, baseUrl: string, key = KEY): Promise<Project> => {
  const cwd = path.join(root, name, 'project');
  const home = path.join(root, name, 'home');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
  await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl, apiKeyEnv: 'DIAG_KEY', timeoutMs: 1500 } }));
  await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: BANK } }, scope: { projectId: 'diag' }, setupComplete: true }));
  return { cwd, home, memoryDir: path.join(cwd, '.pi', 'memory'), env: { HOME: home, DIAG_KEY: key } };
};

const cli = (p: Project, args: string[]): Promise<CliResult> => runCli(args, { cwd: p.cwd, env: p.env });

/** Every entry under the state dir with its bytes (or link target): what "changed nothing" compares. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    const stat = lstatSync(file);
    out[name] = stat.isSymbolicLink() ? `link` : stat.isFile() ? readFileSync(file, 'base64') : 'dir';
  }
  return out;
};

/** Three jobs queued while the server refused them: the journal holds them, nothing delivered. */
const queueThreeJobs = async (p: Project): Promise<void> => {
  const dead = createMemoryServer({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 200 });
  const queue = await openRetainQueue({ ...fileRetainQueuePorts({ queuePath: path.join(p.memoryDir, 'retain-queue.jsonl') }), server: dead, mode: 'immediate', flushIntervalMs: 0 });
  await queue.enqueue([1, 2, 3].map((n) => ({ bankId: BANK as BankId, documentId: `diag-${n}` as DocumentId, updateMode: 'append' as const, item: { content: `DIAGFACT number ${n}` } })));
  await queue.close({ deadline: Date.now() + 500, flush: false });
};

const serverFacts = async (): Promise<number> => {
  const res = await call(server, 'GET', `/v1/default/banks/${BANK}/memories/list?limit=100`, undefined, { Authorization: `Bearer ${KEY}` });
  return res.status === 200 ? JSON.stringify(res.body).split('DIAGFACT').length - 1 : 0;
};

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'am-diag-'));
  server = await startTestServer({ persist: false, apiKey: KEY });
  // Accepts connections and never answers.
  hung = createServer(() => undefined);
  hung.on('connection', (s) => {
    hungSockets.add(s);
    s.on('close', () => hungSockets.delete(s));
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', () => resolve()));
  hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of hungSockets) s.destroy();
  await new Promise<void>((resolve) => hung.close(() => resolve()));
  await server.dispose();
  chmodSync(root, 0o700);
  await rm(root, { recursive: true, force: true });
});

describe('status and doctor are read-only', () => {
  it('with jobs queued and the server up: status shows them and delivers nothing; doctor exits 0; not a byte changes', async () => {
    const p = await project('queued', server.url);
    await queueThreeJobs(p);
    const before = snapshot(p.memoryDir);
    const status = await cli(p, ['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Queue: 3 pending/);
    expect(status.stdout).not.toContain(KEY);
    const json = JSON.parse((await cli(p, ['status', '--json'])).stdout) as { queue: { depth: number } };
    expect(json.queue.depth).toBe(3);
    const doctor = await cli(p, ['doctor']);
    expect(doctor.stdout).toMatch(/0\.9\.1/);
    expect(doctor.stdout).not.toContain(KEY);
    expect(doctor.code).toBe(0);
    const doctorJson = JSON.parse((await cli(p, ['doctor', '--json'])).stdout) as { errors: string[] };
    expect(doctorJson.errors).toEqual([]);
    expect(snapshot(p.memoryDir)).toEqual(before);
    expect(await serverFacts()).toBe(0);
  }, 120_000);

  it('a missing state dir: both print, doctor exits 0 with a reachable server, and nothing is created', async () => {
    const p = await project('missing', server.url);
    const status = await cli(p, ['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Queue: 0 pending/);
    const doctor = await cli(p, ['doctor']);
    expect(doctor.stdout).toMatch(/State dir: .*\(not created yet; when memory creates it, it writes a \.gitignore in it/);
    expect(doctor.code).toBe(0);
    expect(existsSync(p.memoryDir)).toBe(false);
  }, 60_000);
});

describe('doctor exits 1 on every error finding, and both always print', () => {
  it('a stopped server', async () => {
    const p = await project('stopped', 'http://127.0.0.1:9');
    const status = await cli(p, ['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Health: unreachable/);
    // Set up, yet memory cannot work now: marked as needing attention (it had no marker).
    expect(status.stdout).toMatch(/^! Setup: degraded \(the server did not answer\)$/m);
    const doctor = await cli(p, ['doctor']);
    expect(doctor.stdout).toMatch(/^! Setup: degraded \(the server did not answer\)$/m);
    // The command starts a server where memory.baseUrl points (the default port is 8888).
    expect(doctor.stdout).toMatch(/error: server unreachable at http:\/\/127\.0\.0\.1:9: start it with node .+ serve --port 9, or choose another server in pi's \/memory settings/);
    expect(doctor.code).toBe(1);
    const json = JSON.parse((await cli(p, ['doctor', '--json'])).stdout) as { errors: string[] };
    expect(json.errors.join('\n')).toMatch(/unreachable/);
  }, 60_000);

  it('a hung server (accepts, never answers): doctor finishes, names it and exits 1', async () => {
    const p = await project('hung', hungUrl);
    const doctor = await cli(p, ['doctor']);
    expect(doctor.stdout).toMatch(/did not answer within the probe deadline/);
    expect(doctor.code).toBe(1);
    expect((await cli(p, ['status'])).code).toBe(0);
  }, 60_000);

  it('a server refusing the key (401)', async () => {
    const p = await project('unauthorized', server.url, 'hsk_wrong_key_0000000000');
    const doctor = await cli(p, ['doctor']);
    expect(doctor.stdout).toMatch(/error: server refused the API key \(HTTP 401\)/);
    expect(doctor.stdout).not.toContain('hsk_wrong_key_0000000000');
    expect(doctor.code).toBe(1);
  }, 60_000);

  it('a server below the version floor', async () => {
    const legacy = await startTestServer({ persist: false, mimic: 'legacy-0.7' });
    try {
      const p = await project('legacy', legacy.url);
      const doctor = await cli(p, ['doctor']);
      expect(doctor.stdout).toMatch(/error: server is below the floor/);
      expect(doctor.code).toBe(1);
    } finally {
      await legacy.dispose();
    }
  }, 60_000);

  it('a symlinked queue file: both print naming it, doctor exits 1, the target is untouched', async () => {
    const p = await project('symlinked', server.url);
    await mkdir(p.memoryDir, { recursive: true });
    const victim = path.join(p.home, 'victim.txt');
    await writeFile(victim, 'keep me\nexactly');
    const journal = path.join(p.memoryDir, 'retain-queue.jsonl');
    await symlink(victim, journal);
    const status = await cli(p, ['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(journal);
    const doctor = await cli(p, ['doctor']);
    expect(doctor.stdout).toMatch(new RegExp(`error: state dir: refusing ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it is a symbolic link`));
    expect(doctor.code).toBe(1);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\nexactly');
  }, 60_000);

  it('a corrupt journal (a damaged line and a torn tail): reported, never repaired by a look', async () => {
    const p = await project('corrupt', server.url);
    await queueThreeJobs(p);
    const journal = path.join(p.memoryDir, 'retain-queue.jsonl');
    await appendFile(journal, '{"v":1,"seq":99,"garbage\n{"v":1,"seq":100,"type":"retain.flushReq');
    const before = snapshot(p.memoryDir);
    const status = await cli(p, ['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Queue: 3 pending/);
    const doctor = await cli(p, ['doctor']);
    expect(doctor.stdout).toMatch(/error: state dir: 2 damaged record\(s\)/);
    expect(doctor.code).toBe(1);
    expect(snapshot(p.memoryDir)).toEqual(before);
  }, 60_000);

  it('a read-only state dir: status prints, doctor names it and exits 1, nothing is written', async () => {
    const p = await project('readonly', server.url);
    await queueThreeJobs(p);
    const before = snapshot(p.memoryDir);
    // As root, permissions do not bind: run the CLI as `nobody` over a tree it may read but not
    // write. `nobody` may not enter this checkout (a clone in a private directory), so the CLI
    // runs as one bundled script from the test's own temp tree, on the machine's Node.
    const asRoot = process.getuid?.() === 0;
    const script = asRoot ? await bundleScript(path.resolve('src/hosts/cli/main.ts'), path.join(root, 'cli', 'agent-memory.mjs'), { external: ['@mariozechner/*', '@earendil-works/*', 'typebox'] }) : undefined;
    const run = async (args: string[]): Promise<CliResult> => {
      if (script === undefined) return cli(p, args);
      return promisify(execFile)(systemNode(), [script, ...args], {
        cwd: p.cwd,
        env: { PATH: process.env['PATH'] ?? '', ...p.env },
        uid: 65534,
        gid: 65534,
      }).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: CliResult) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    };
    const tree = [root, ...(script === undefined ? [] : [path.join(root, 'cli')]), path.join(root, 'readonly'), p.cwd, path.join(p.cwd, '.pi'), p.memoryDir, p.home, path.join(p.home, '.pi'), path.join(p.home, '.pi', 'agent')];
    for (const dir of tree) chmodSync(dir, asRoot ? 0o755 : dir === p.memoryDir ? 0o555 : statSync(dir).mode & 0o777);
    for (const name of readdirSync(p.memoryDir)) chmodSync(path.join(p.memoryDir, name), 0o644);
    chmodSync(path.join(p.cwd, '.pi', 'memory.json'), 0o644);
    chmodSync(path.join(p.home, '.pi', 'agent', 'memory.json'), 0o644);
    try {
      const status = await run(['status']);
      // Turns cannot be saved here: the queue line says so first, then what is pending.
      expect(status.stdout).toMatch(/Queue: retain failing: .* is not writable \((EACCES|EROFS)\); 3 pending/);
      expect(status.code).toBe(0);
      const doctor = await run(['doctor']);
      expect(doctor.stdout).toMatch(/error: state dir: .* is not writable \((EACCES|EROFS)\)/);
      expect(doctor.code).toBe(1);
    } finally {
      chmodSync(p.memoryDir, 0o700);
    }
    expect(snapshot(p.memoryDir)).toEqual(before);
    expect(await serverFacts()).toBe(0);
  }, 60_000);
});
