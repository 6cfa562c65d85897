/**
 * Automatic retain on a real full or read-only disk (a small tmpfs, root only): a turn that
 * cannot be made durable is reported (notification, footer, status, the read-only CLI), its
 * messages stay behind the cursor so the next turn carries them, torn lines are never glued
 * onto, no empty temp file is left, and every turn reaches the server exactly once.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import type { HostMessage } from '../../src/effects/session/messages.js';
import { buildStatusReport } from '../../src/tools/statusReport.js';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { markerCounts, notOnce } from './support/markers.js';
import { canMountTmpfs, mountTmpfs, type Tmpfs } from './support/tmpfs.js';
import { waitUntil } from '../helpers/waitUntil.js';

// A real full or read-only disk needs a tmpfs mount (root with CAP_SYS_ADMIN); where this
// process may not mount, these tests cannot make the fault and say so instead of faking it.
const real = canMountTmpfs();
if (!real) console.warn('retainDiskFaults: cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN); the disk-fault tests are skipped');

const user = (text: string, timestamp: number): HostMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp });
const assistant = (text: string, timestamp: number): HostMessage => ({ role: 'assistant', content: [{ type: 'text', text }], timestamp, model: 'm', stopReason: 'stop' });

/** Every file under `dir` (recursively). */
const filesUnder = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)])) : [];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
});

interface Project {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly state: Tmpfs;
  readonly notes: string[];
  readonly cleanups: (() => unknown)[];
}

/** A project whose `.pi` state dir is a tmpfs of `sizeKb`; `extra` goes into the project file. */
const makeProject = async (bank: string, sizeKb: number, extra: Record<string, unknown> = {}): Promise<Project> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-disk-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
  await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, trustedOrigins: [server.url] } }));
  const state = mountTmpfs(path.join(cwd, '.pi'), sizeKb);
  await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: bank } }, scope: { projectId: bank }, ...extra }));
  return { root, cwd, home, state, notes: [], cleanups: [() => rm(root, { recursive: true, force: true }), () => state.dispose()] };
};

const dispose = async (p: Project): Promise<void> => {
  for (const cleanup of p.cleanups.splice(0).reverse()) await cleanup();
};

const open = async (p: Project): Promise<MemoryRuntime> => {
  const runtime = await createMemoryRuntime({ cwd: p.cwd, home: p.home, env: { HOME: p.home }, notify: (_l, t) => p.notes.push(t), shutdownFlushMs: 500 });
  p.cleanups.push(() => runtime.close());
  await waitUntil(() => runtime.status().setup.state === 'ready');
  await runtime.send({ type: 'session.started', sessionId: 'sess-disk', sessionFile: '/tmp/sess-disk.jsonl', reason: 'startup' });
  return runtime;
};

// Larger than the slack of a tmpfs page, so a full disk refuses the record that carries it.
const LONG = ' and the reasons behind it'.repeat(400);
/** The conversation after `n` turns: each turn adds a user line with marker MK<n> (long) and a reply. */
const conversation = (n: number, base = 0): HostMessage[] =>
  Array.from({ length: n }, (_, i) => [user(`turn fact MK${base + i + 1} about the build${LONG}`, 10 * (i + 1)), assistant(`noted ${base + i + 1}`, 10 * (i + 1) + 1)]).flat();

const deliverAll = async (runtime: MemoryRuntime): Promise<void> => {
  await runtime.session.idle();
  await runtime.queue!.flush({ deadline: Date.now() + 5_000 });
  expect(runtime.queue!.status().depth).toBe(0);
};

const cliStatus = (p: Project) => runCli(['status'], { cwd: p.cwd, env: { HOME: p.home } });

describe.runIf(real)('automatic retain on a full disk (tmpfs, ENOSPC)', () => {
  it('says so everywhere, keeps the cursor, and the next turn carries the unsaved messages: each turn on the server once', async () => {
    const p = await makeProject('disk-full', 512);
    try {
      const runtime = await open(p);
      const first = runtime.retainTurn(conversation(1));
      expect(first.durable).toBe(true);
      expect((await first.settled).outcome).toBe('queued');
      await deliverAll(runtime);

      p.state.fill();
      const second = runtime.retainTurn(conversation(2));
      expect(second.durable).toBe(false);
      expect((await second.settled).outcome).toBe('failed');
      expect(p.notes.join('\n')).toMatch(/could not save this turn.*(ENOSPC|no space)/i);
      expect(runtime.status().retainFailing).toMatch(/ENOSPC|no space/i);
      expect(runtime.status().footer).toMatch(/retain failing/);
      const report = await buildStatusReport(await runtime.toolContext());
      expect(report.fields.find((f) => f.key === 'queue')?.value).toMatch(/^retain failing: .*(ENOSPC|no space)/i);
      expect(report.sync.reasons).toContain('retain_failing');
      const cli = await cliStatus(p);
      expect(cli.stdout, cli.stdout).toMatch(/Queue\s*:?\s*retain failing: /);
      const doctor = await runCli(['doctor'], { cwd: p.cwd, env: { HOME: p.home } });
      expect(doctor.stdout).toMatch(/error: retain failing: .*(ENOSPC|no space)/i);
      expect(doctor.code).toBe(1);

      p.state.free();
      const third = runtime.retainTurn(conversation(3));
      expect(third.durable).toBe(true);
      expect(await third.settled).toMatchObject({ outcome: 'queued', messages: 4 });
      await deliverAll(runtime);
      expect(runtime.status().retainFailing).toBeUndefined();
      expect(runtime.status().footer).not.toMatch(/retain failing/);
      expect((await cliStatus(p)).stdout).not.toMatch(/retain failing/);

      expect(notOnce(await markerCounts(server, 'disk-full'), [1, 2, 3])).toEqual([]);
      // No empty temp file, and nothing waits in the queue.
      const stray = filesUnder(p.state.dir).filter((f) => f.endsWith('.tmp') && statSync(f).size === 0);
      expect(stray).toEqual([]);
      expect(runtime.status().queue?.depth).toBe(0);
    } finally {
      await dispose(p);
    }
  }, 60_000);

  it('a turn whose queue append hit ENOSPC is carried by the next turn, once', async () => {
    // The queue on its own small disk: the state dir has room, the queue record does not. (A
    // project file may name only files inside .pi/memory, so the small disk is mounted there.)
    const p = await makeProject('queue-full', 512, { retain: { queuePath: 'memory/q/retain-queue.jsonl' } });
    const queueDisk = mountTmpfs(path.join(p.cwd, '.pi', 'memory', 'q'), 256);
    p.cleanups.push(() => queueDisk.dispose());
    try {
      const runtime = await open(p);
      const first = runtime.retainTurn(conversation(1, 10));
      expect((await first.settled).outcome).toBe('queued');
      await deliverAll(runtime);

      queueDisk.fill();
      const second = runtime.retainTurn(conversation(2, 10));
      // The journal is the one record of a job: a failed append leaves nothing durable, and the
      // cursor stays, so the next turn offers these messages again.
      expect(second.durable).toBe(false);
      expect((await second.settled).outcome).toBe('failed');
      expect(runtime.status().retainFailing).toMatch(/disk is full|ENOSPC|no space/i);
      expect(runtime.status().footer).toMatch(/retain failing/);

      queueDisk.free();
      const third = runtime.retainTurn(conversation(3, 10));
      expect((await third.settled).outcome).toBe('queued');
      await deliverAll(runtime);
      expect(runtime.status().retainFailing).toBeUndefined();
      expect(notOnce(await markerCounts(server, 'queue-full'), [11, 12, 13])).toEqual([]);
      expect(runtime.status().queue?.depth).toBe(0);
    } finally {
      await dispose(p);
    }
  }, 60_000);
});

describe.runIf(real)('automatic retain on a read-only state dir (tmpfs remounted ro, EROFS)', () => {
  it('reports the turn as not saved, status and doctor still print, and after rw the next turn carries it', async () => {
    const p = await makeProject('disk-ro', 1024);
    try {
      const runtime = await open(p);
      expect((await runtime.retainTurn(conversation(1, 20)).settled).outcome).toBe('queued');
      await deliverAll(runtime);

      p.state.readOnly(true);
      const second = runtime.retainTurn(conversation(2, 20));
      expect(second.durable).toBe(false);
      expect((await second.settled).outcome).toBe('failed');
      expect(p.notes.join('\n')).toMatch(/could not save this turn.*EROFS/i);
      expect(runtime.status().footer).toMatch(/retain failing/);
      const status = await cliStatus(p);
      expect(status.stdout).toMatch(/Queue\s*:?\s*retain failing: .*read-only/i);
      const doctor = await runCli(['doctor'], { cwd: p.cwd, env: { HOME: p.home } });
      expect(doctor.stdout + doctor.stderr).not.toMatch(/EROFS.*\n\s+at /);
      expect(doctor.stdout.length).toBeGreaterThan(0);

      p.state.readOnly(false);
      const third = runtime.retainTurn(conversation(3, 20));
      expect(third.durable).toBe(true);
      const settled = await third.settled;
      expect(settled.outcome, settled.reason).toBe('queued');
      await deliverAll(runtime);
      expect(runtime.status().retainFailing).toBeUndefined();
      expect(notOnce(await markerCounts(server, 'disk-ro'), [21, 22, 23])).toEqual([]);
    } finally {
      await dispose(p);
    }
  }, 60_000);
});
