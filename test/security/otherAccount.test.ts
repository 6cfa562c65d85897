/**
 * Ninth session: another account on the machine, and a project directory it may write (a shared
 * or group checkout, a clone under a world-writable directory). It creates `.pi/memory/` before
 * the user's first session there, so the directory is its own. The files memory writes are
 * 0600, but whoever owns a directory may rename its entries: after the user's first turn it
 * moves the queue journal away and leaves an empty world-readable file of its own at that path
 * (the owner mark, an HMAC of the path, still fits), and the user's next turn is appended to a
 * file the other account reads. Performed with the real pi CLI (scripted model) as the user
 * and shell commands run as uid 65534 (root only can act as another account; as any user, a
 * state directory writable by others is refused the same way).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPi } from './support/piRun.js';

const asRoot = process.getuid?.() === 0;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
});

/** A project directory any account may write, and the user's own home and pi agent dir. */
const sharedProject = (): { cwd: string; home: string; agentDir: string; memoryDir: string } => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-account-'));
  chmodSync(root, 0o711);
  const cwd = path.join(root, 'shared-project');
  mkdirSync(cwd);
  chmodSync(cwd, 0o777);
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  for (const dir of [home, agentDir]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'sec-account' } }, setupComplete: true }));
  return { cwd, home, agentDir, memoryDir: path.join(cwd, '.pi', 'memory') };
};

/** A shell command run as uid 65534 in `cwd`. */
const asOther = (cwd: string, command: string): string => execFileSync('sh', ['-c', command], { cwd, uid: 65534, gid: 65534, encoding: 'utf8' });

const turn = (p: { cwd: string; home: string; agentDir: string }, text: string) => runPi({ ...p, prompt: text, script: ['Noted.'] });

describe('a state directory another account can write', () => {
  it.runIf(asRoot)('another account that made .pi/memory reads none of the user’s turns, and memory says why it is off', async () => {
    const p = sharedProject();
    asOther(p.cwd, 'mkdir -p .pi/memory && chmod 0777 .pi .pi/memory');
    const first = await turn(p, 'Remember that the build uses pnpm.');
    expect(first.code).toBe(0);
    // Its directory: the user's journal moved away, an empty file of its own left readable at the path.
    asOther(p.cwd, 'cd .pi/memory; [ -e retain-queue.jsonl ] && mv retain-queue.jsonl moved.jsonl; : > retain-queue.jsonl; chmod 0666 retain-queue.jsonl; true');
    const second = await turn(p, 'Remember that the release signing passphrase hint is the old office street.');
    expect(second.code).toBe(0);
    expect(asOther(p.cwd, 'cat .pi/memory/retain-queue.jsonl')).not.toContain('office street');
    const doctor = await runCli(['doctor'], { cwd: p.cwd, env: { HOME: p.home, PI_CODING_AGENT_DIR: p.agentDir } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`refusing ${p.memoryDir}: it belongs to another account (uid 65534)`);
  }, 120_000);

  it('a .pi/memory that every account may write is refused: nothing is written in it, and the doctor says what to do', async () => {
    const p = sharedProject();
    mkdirSync(p.memoryDir, { recursive: true });
    chmodSync(p.memoryDir, 0o777);
    const run = await turn(p, 'Remember that the staging cluster is in eu-west.');
    expect(run.code).toBe(0);
    expect(existsSync(path.join(p.memoryDir, 'retain-queue.jsonl'))).toBe(false);
    const doctor = await runCli(['doctor'], { cwd: p.cwd, env: { HOME: p.home, PI_CODING_AGENT_DIR: p.agentDir } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`refusing ${p.memoryDir}: other accounts may write in it (mode 0777)`);
    // Once the user takes it back (owner-only), memory keeps the turn.
    chmodSync(p.memoryDir, 0o700);
    const again = await turn(p, 'Remember that the staging cluster is in eu-west.');
    expect(again.code).toBe(0);
    expect(readFileSync(path.join(p.memoryDir, 'retain-queue.jsonl'), 'utf8')).toContain('eu-west');
  }, 120_000);
});
