/**
 * Issue 11.6: the circuit breaker is shared between host processes through
 * `{state_dir}/memory/server-health.json`. Two runtimes run one after the other in separate
 * processes against a loopback server that accepts requests and answers none in time (slower
 * than every deadline). The first pays the deadlines and opens the breaker (slow counts, not
 * only dead); the second starts with it open and sends at most one probe instead of paying again.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;
const CHILD = path.resolve('test/hosts/support/recallChild.ts');

interface ChildReport {
  readonly atStart: { readonly state: string; readonly failures: number };
  readonly atEnd: { readonly state: string; readonly failures: number };
  readonly outcomes: readonly string[];
}

let slow: Server;
let requests = 0;
const sockets = new Set<Socket>();
let root: string;
let cwd: string;
let home: string;

const host = async (recalls: number): Promise<ChildReport> => {
  const { stdout } = await run(process.execPath, ['--import', TSX, CHILD, cwd, String(recalls)], { cwd, env: { PATH: process.env['PATH'] ?? '', HOME: home } });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildReport;
};

beforeAll(async () => {
  // Reads every request and never answers: slower than any deadline, though it is up.
  slow = createServer((req) => {
    requests += 1;
    req.resume();
  });
  slow.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', () => resolve()));
  root = await mkdtemp(path.join(tmpdir(), 'am-breaker-'));
  cwd = path.join(root, 'project');
  home = path.join(root, 'home');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
  const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: url, timeoutMs: 400 }, recall: { timeoutMs: 300 } }));
  await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: 'breaker-bank' } }, scope: { projectId: 'breaker' }, setupComplete: true }));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => slow.close(() => resolve()));
  await rm(root, { recursive: true, force: true });
});

describe('breaker state shared between processes', () => {
  it('a second process does not pay a server the first one found too slow', async () => {
    // Each recall returns at its 300 ms deadline and its request times out just after; by the
    // end of the fourth, three timeouts have been counted (threshold 3).
    const first = await host(4);
    expect(first.atStart.state).toBe('closed');
    expect(first.atEnd.state).toBe('open');
    expect(first.outcomes.every((o) => o.startsWith('timedOut') || o.startsWith('failed'))).toBe(true);
    const paid = requests;
    expect(paid).toBeGreaterThanOrEqual(1);

    const healthFile = path.join(cwd, '.pi', 'memory', 'server-health.json');
    const saved = JSON.parse(readFileSync(healthFile, 'utf8')) as { state: { state: string; failures: number } };
    expect(saved.state.state).toBe('open');
    expect(statSync(healthFile).mode & 0o777).toBe(0o600);

    const second = await host(3);
    // It started from the shared state (open, the first process's failure count) ...
    expect(second.atStart.failures).toBeGreaterThanOrEqual(first.atEnd.failures);
    expect(second.atEnd.state).toBe('open');
    // ... so at most one half-open probe reached the server (when the cool-down had passed),
    // where a fresh breaker would have sent its set-up probes and every recall again.
    expect(requests - paid).toBeLessThanOrEqual(1);
  }, 120_000);
});
