/**
 * Attack (round 7): `agent-memory serve --api-key-env K` keeps other accounts out of the
 * memories, but printed the memory browser's launch token on stdout; whoever reads that output
 * opens the browser, which calls the server with its key. `nohup agent-memory serve … &` writes
 * stdout to `nohup.out` in the working directory (0644 under the usual umask 022); a service's
 * journal, a CI log or a log file collected elsewhere holds it the same way. Now the token is
 * printed only when stdout is a terminal, and always written to a file only this account reads
 * (`<agent dir>/memory-browser-<port>.url`, 0600), which is removed when the server stops.
 * Real `serve` and `ui` processes, stdout redirected to a file as nohup does, and under a
 * pseudo-terminal (`script`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stopChild } from '../helpers/stopChild.js';
import { waitUntil } from '../helpers/waitUntil.js';
import { openLaunchAddress } from '../helpers/uiLaunch.js';

const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;
const MAIN = path.resolve('src/hosts/cli/main.ts');
const KEY = 'am-browser-token-key-7c1d93e0a4b2f658';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

const workspace = (): { root: string; agentDir: string; env: Record<string, string> } => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-token-'));
  const home = path.join(root, 'home');
  const agentDir = path.join(home, '.pi', 'agent');
  mkdirSync(agentDir, { recursive: true });
  return { root, agentDir, env: { PATH: process.env['PATH'] ?? '', HOME: home, AM_TOKEN_KEY: KEY } };
};

/** Starts the CLI with stdout and stderr appended to `log` (what `nohup` does) and waits for `pattern` in it. */
const startLogged = async (args: readonly string[], cwd: string, env: Record<string, string>, log: string, pattern: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> => {
  const fd = openSync(log, 'a', 0o644);
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd, env, stdio: ['ignore', fd, fd] });
  children.push(child);
  let match: RegExpExecArray | null = null;
  await waitUntil(() => {
    match = pattern.exec(readFileSync(log, 'utf8'));
    return match !== null || child.exitCode !== null;
  }, 30_000);
  if (match === null) throw new Error(`no ${String(pattern)} in:\n${readFileSync(log, 'utf8')}`);
  return { child, match };
};

/** The page's shell from the address, then a data route with the address's token, as the page asks it. */
const opensData = async (url: string, base: string): Promise<Response> => {
  const launched = await openLaunchAddress(url);
  expect(launched.page.status).toBe(200);
  return fetch(`${base}/ui/api/where`, { headers: launched.headers });
};

describe("the memory browser's launch token", () => {
  it('serve with its output in a log file: the log holds no token; a 0600 file does, and is removed at stop', async () => {
    const w = workspace();
    const log = path.join(w.root, 'nohup.out');
    const { child, match } = await startLogged(['serve', '--port', '0', '--in-memory', '--api-key-env', 'AM_TOKEN_KEY'], w.root, w.env, log, /memory browser: (http:\/\/127\.0\.0\.1:(\d+))\/ui\/.*\n/);
    const [, base, port] = match;
    const printed = readFileSync(log, 'utf8');
    expect(printed).not.toMatch(/token=/);
    const file = path.join(w.agentDir, `memory-browser-${port}.url`);
    expect(printed).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const url = readFileSync(file, 'utf8').trim();
    expect(url).toMatch(new RegExp(`^${base}/ui/#token=[\\w-]{32}$`));
    // The file's address opens the page and its data; the printed one only the shell, which holds none.
    expect((await opensData(url, base ?? '')).status).toBe(200);
    expect((await fetch(`${base}/ui/api/where`)).status).toBe(401);
    await stopChild(child);
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it('ui with its output in a log file: the same', async () => {
    const w = workspace();
    const log = path.join(w.root, 'ui.log');
    const { child, match } = await startLogged(['ui', '--cwd', w.root], w.root, w.env, log, /memory browser: (http:\/\/127\.0\.0\.1:(\d+))\/ui\/.*\n/);
    const [, base, port] = match;
    expect(readFileSync(log, 'utf8')).not.toMatch(/token=/);
    const url = readFileSync(path.join(w.agentDir, `memory-browser-${port}.url`), 'utf8').trim();
    expect((await opensData(url, base ?? '')).status).toBe(200);
    expect((await fetch(`${base}/ui/api/where`)).status).toBe(401);
    await stopChild(child);
  }, 60_000);

  it('a launch killed with SIGKILL leaves its address file; the next launch removes it, never a live launch\'s', async () => {
    const w = workspace();
    const launch = async (name: string): Promise<{ child: ChildProcess; url: string; pid: string }> => {
      const { child, match } = await startLogged(['ui', '--cwd', w.root], w.root, w.env, path.join(w.root, `${name}.log`), /memory browser: http:\/\/127\.0\.0\.1:(\d+)\/ui\/.*\n/);
      return { child, url: path.join(w.agentDir, `memory-browser-${match[1]}.url`), pid: path.join(w.agentDir, `memory-browser-${match[1]}.pid`) };
    };
    const live = await launch('live');
    const killed = await launch('killed');
    // Beside each address, its launch's pid, 0600.
    expect(readFileSync(killed.pid, 'utf8').trim()).toBe(String(killed.child.pid));
    expect(statSync(killed.pid).mode & 0o777).toBe(0o600);
    await new Promise<void>((resolve) => {
      killed.child.once('exit', () => resolve());
      killed.child.kill('SIGKILL');
    });
    // SIGKILL runs no clean-up: both stay, and before this fix they piled up.
    expect(existsSync(killed.url)).toBe(true);
    expect(existsSync(killed.pid)).toBe(true);
    const next = await launch('next');
    expect(existsSync(killed.url)).toBe(false);
    expect(existsSync(killed.pid)).toBe(false);
    // The live launch's address still opens its page and data.
    expect(existsSync(live.url)).toBe(true);
    const liveBase = readFileSync(live.url, 'utf8').trim().replace(/\/ui\/#.*$/, '');
    expect((await opensData(readFileSync(live.url, 'utf8').trim(), liveBase)).status).toBe(200);
    expect(existsSync(next.url)).toBe(true);
    // A file an earlier version wrote (no pid beside it) cannot be judged: it stays.
    const older = path.join(w.agentDir, 'memory-browser-1.url');
    writeFileSync(older, 'http://127.0.0.1:1/ui/#token=x\n', { mode: 0o600 });
    await stopChild(next.child);
    await launch('last').then((last) => stopChild(last.child));
    expect(existsSync(older)).toBe(true);
    expect(existsSync(live.url)).toBe(true);
    await stopChild(live.child);
    expect(readdirSync(w.agentDir).filter((f) => f.startsWith('memory-browser-'))).toEqual(['memory-browser-1.url']);
  }, 120_000);

  it('serve in a terminal prints the address with its token, as before', async () => {
    const w = workspace();
    const log = path.join(w.root, 'typescript.log');
    // `script` gives the child a pseudo-terminal and copies what it shows to the log.
    const command = [process.execPath, '--import', TSX, MAIN, 'serve', '--port', '0', '--in-memory'].map((a) => `'${a}'`).join(' ');
    const term = spawn('script', ['-qfec', command, log], { cwd: w.root, env: w.env, stdio: ['ignore', 'ignore', 'ignore'] });
    children.push(term);
    let found: RegExpExecArray | null = null;
    await waitUntil(() => {
      found = /memory browser: ((http:\/\/127\.0\.0\.1:\d+)\/ui\/#token=[\w-]+)/.exec(existsSync(log) ? readFileSync(log, 'utf8') : '');
      return found !== null;
    }, 30_000);
    expect(found).not.toBeNull();
    const shown = found as unknown as RegExpExecArray;
    expect((await opensData(shown[1] ?? '', shown[2] ?? '')).status).toBe(200);
    term.kill('SIGTERM');
  }, 60_000);
});
