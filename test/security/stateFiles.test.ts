/**
 * Issue 12.5: a cloned repository commits symbolic links (or devices) in `.pi/memory`. Each
 * attack is run against the real runtime (createMemoryRuntime, the embedded server on
 * loopback, real files): the victim file is untouched, and memory refuses with a reason that
 * names the file. Also: files are created 0600 and the state dir 0700; reads are capped.
 */
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJsonlJournal } from '../../src/adapters/queue/jsonlJournal.js';
import { appendDurable } from '../../src/adapters/queue/queueFiles.js';
import { readJsonFile } from '../../src/adapters/fs/stateFiles.js';
import { readStateFile, readStateFileSync } from '../../src/adapters/fs/safeFile.js';
import { loadConfig } from '../../src/config/load.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import type { HostMessage } from '../../src/effects/session/messages.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';

const user = (text: string, timestamp: number): HostMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp });
const assistant = (text: string, timestamp: number): HostMessage => ({ role: 'assistant', content: [{ type: 'text', text }], timestamp, model: 'm', stopReason: 'stop' });

const VICTIM_TEXT = 'line one of the victim\nline two of the victim\nthe last line, without a newline';
const BASHRC_TEXT = 'export PATH="$HOME/bin:$PATH"\nalias ll="ls -l"\n';

interface Dirs {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly memoryDir: string;
}

let server: TestServer;
const open: MemoryRuntime[] = [];

const project = async (): Promise<Dirs> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-sec-state-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(path.join(home, 'victim.txt'), VICTIM_TEXT);
  await writeFile(path.join(home, '.bashrc'), BASHRC_TEXT);
  // The user trusts the test server, so the only reason memory refuses is the planted state file.
  await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
  await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [server.url] } }));
  await writeFile(
    path.join(cwd, '.pi', 'memory.json'),
    JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'sec-bank' } }, scope: { projectId: 'sec' }, setupComplete: true }),
  );
  return { root, cwd, home, memoryDir: path.join(cwd, '.pi', 'memory') };
};

const start = async (dirs: Dirs): Promise<MemoryRuntime> => {
  const runtime = await createMemoryRuntime({ cwd: dirs.cwd, home: dirs.home, env: { HOME: dirs.home }, shutdownFlushMs: 200 });
  open.push(runtime);
  return runtime;
};

/** Starts a session and offers one turn; returns what retainTurn did (or the error it threw). */
const offerTurn = async (runtime: MemoryRuntime, text: string): Promise<string> => {
  await runtime.send({ type: 'session.started', sessionId: 'attack', reason: 'startup' });
  try {
    const turn = runtime.retainTurn([user(text, 1), assistant('ok', 2)]);
    return `${turn.durable ? 'durable' : 'not durable'}: ${(await turn.settled).outcome}`;
  } catch (error) {
    return `threw: ${error instanceof Error ? error.message : String(error)}`;
  }
};

const refusedNaming = (runtime: MemoryRuntime, file: string): void => {
  const status = runtime.status();
  expect(status.setup.state).toBe('unconfigured');
  expect(status.setup.detail).toContain(file);
  expect(status.setup.detail).toMatch(/symbolic link|not a regular file|device/);
  expect(status.problems.join('\n')).toContain(file);
  expect(runtime.queue).toBeUndefined();
};

beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  for (const runtime of open) await runtime.close();
  await server.dispose();
});

describe('symbolic links planted in .pi/memory', () => {
  it('retain-queue.jsonl -> a victim file: the victim is untouched, nothing is copied from it, memory refuses naming the file', async () => {
    const dirs = await project();
    await mkdir(dirs.memoryDir, { recursive: true });
    const journal = path.join(dirs.memoryDir, 'retain-queue.jsonl');
    await symlink(path.join(dirs.home, 'victim.txt'), journal);
    const runtime = await start(dirs);
    const outcome = await offerTurn(runtime, 'the deploy key rotates monthly');
    refusedNaming(runtime, journal);
    expect(outcome).not.toMatch(/^durable/);
    await runtime.close();
    expect(readFileSync(path.join(dirs.home, 'victim.txt'), 'utf8')).toBe(VICTIM_TEXT);
    // The victim's lines were not copied into the project's quarantine file.
    const quarantine = path.join(dirs.memoryDir, 'retain-queue.quarantine.jsonl');
    expect(existsSync(quarantine) ? readFileSync(quarantine, 'utf8') : '').not.toContain('bGluZSBvbmU');
    expect(lstatSync(journal).isSymbolicLink()).toBe(true);
  });

  it('retain-cursors.json -> a shell start-up file: no JSON (and no prompt) is appended to it', async () => {
    const dirs = await project();
    await mkdir(dirs.memoryDir, { recursive: true });
    const cursors = path.join(dirs.memoryDir, 'retain-cursors.json');
    await symlink(path.join(dirs.home, '.bashrc'), cursors);
    const runtime = await start(dirs);
    const outcome = await offerTurn(runtime, 'hi $(touch PWNED)');
    refusedNaming(runtime, cursors);
    expect(outcome).not.toMatch(/^durable/);
    await runtime.close();
    expect(readFileSync(path.join(dirs.home, '.bashrc'), 'utf8')).toBe(BASHRC_TEXT);
  });

  it('.pi/memory.json -> /dev/zero: refused at once (never read unbounded), memory refuses naming the file', async () => {
    const dirs = await project();
    const config = path.join(dirs.cwd, '.pi', 'memory.json');
    await rm(config);
    await symlink('/dev/zero', config);
    const loaded = loadConfig({ cwd: dirs.cwd, home: dirs.home, env: {} });
    expect(loaded.errors.map((e) => e.message).join('\n')).toMatch(new RegExp(`${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*symbolic link`));
    const runtime = await start(dirs);
    refusedNaming(runtime, config);
  });

  it('a symlinked .pi/memory directory: nothing is written through it, memory refuses naming it', async () => {
    const dirs = await project();
    const elsewhere = path.join(dirs.home, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, dirs.memoryDir);
    const runtime = await start(dirs);
    await offerTurn(runtime, 'a secret plan');
    refusedNaming(runtime, dirs.memoryDir);
    await runtime.close();
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('a FIFO as last-recall.json is refused, never opened for a blocking read', async () => {
    const dirs = await project();
    await mkdir(dirs.memoryDir, { recursive: true });
    const fifo = path.join(dirs.memoryDir, 'last-recall.json');
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [fifo]);
    const runtime = await start(dirs);
    refusedNaming(runtime, fifo);
    expect((await readJsonFile(fifo)).error).toMatch(/named pipe/);
  });
});

describe('the file primitives refuse links themselves', () => {
  it('the queue journal, its appends and sidecar reads refuse a link; the target keeps its bytes', async () => {
    const dirs = await project();
    await mkdir(dirs.memoryDir, { recursive: true });
    const victim = path.join(dirs.home, 'victim.txt');
    const journalPath = path.join(dirs.memoryDir, 'retain-queue.jsonl');
    await symlink(victim, journalPath);
    const journal = await openJsonlJournal({ path: journalPath });
    await expect(journal.load()).rejects.toThrow(/symbolic link/);
    await expect(journal.append([{ type: 'retain.flushRequested', at: new Date().toISOString(), payload: { type: 'retain.flushRequested', at: 1 } }])).rejects.toThrow(/symbolic link/);
    await journal.close();
    await expect(appendDurable(journalPath, Buffer.from('{"x":1}\n'))).rejects.toThrow(new RegExp(`refusing ${journalPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it is a symbolic link`));
    const sidecar = path.join(dirs.memoryDir, 'git-seed-receipt.json');
    await symlink(victim, sidecar);
    expect((await readJsonFile(sidecar)).error).toMatch(/symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('config and sidecar reads are capped at 1 MB: a larger file is refused with a clear error', async () => {
    const dirs = await project();
    const config = path.join(dirs.cwd, '.pi', 'memory.json');
    await writeFile(config, `{"pad": "${'x'.repeat(2 * 1024 * 1024)}"}`);
    const loaded = loadConfig({ cwd: dirs.cwd, home: dirs.home, env: {} });
    expect(loaded.errors.map((e) => e.message).join('\n')).toMatch(/larger than 1024 KB.*not read/);
    expect(() => readStateFileSync(config)).toThrow(/larger than/);
    await expect(readStateFile(config)).rejects.toThrow(/larger than/);
  });
});

describe('owner-only permissions', () => {
  it('the state dir is created 0700 and every file memory writes is 0600', async () => {
    const dirs = await project();
    const runtime = await start(dirs);
    const deadline = Date.now() + 5_000;
    while (runtime.status().setup.state !== 'ready' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await runtime.send({ type: 'session.started', sessionId: 'perm', reason: 'startup' });
    const turn = runtime.retainTurn([user('the staging database is on port 5433', 1), assistant('noted', 2)]);
    expect(turn.durable).toBe(true);
    await turn.settled;
    await runtime.queue!.flush({ deadline: Date.now() + 5_000 });
    await runtime.recallFor([user('which port is the staging database on?', 3)]);
    await runtime.close();
    expect(statSync(dirs.memoryDir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dirs.memoryDir).filter((name) => statSync(path.join(dirs.memoryDir, name)).isFile());
    expect(files).toEqual(expect.arrayContaining(['retain-queue.jsonl', 'retain-cursors.json']));
    for (const name of files) expect({ name, mode: (statSync(path.join(dirs.memoryDir, name)).mode & 0o777).toString(8) }).toEqual({ name, mode: '600' });
  });
});
