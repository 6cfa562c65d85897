/**
 * The memory browser from the command line, as a user starts it: `agent-memory ui` prints a
 * URL with this launch's token and serves the page only with it; `agent-memory serve` serves
 * the same browser at /ui of the embedded server (its own API still asks for its key), and
 * `--no-ui` leaves it out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { makeUiProject, seed, type UiProject } from './project.js';
import { openLaunchAddress } from '../helpers/uiLaunch.js';

const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;
const MAIN = path.resolve('src/hosts/cli/main.ts');
const KEY = 'am-ui-cli-key-0b9e4d21c7a8f365';

const children: ChildProcess[] = [];
const projects: UiProject[] = [];
let server: TestServer | undefined;
afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) resolve();
          else {
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }
        }),
    ),
  );
  await server?.dispose();
  for (const project of projects) await project.dispose();
});

/** Starts the CLI and resolves with its output once `pattern` appears in it. */
const startCli = (args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, pattern: RegExp): Promise<{ match: RegExpExecArray; child: ChildProcess; output: () => string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const guard = setTimeout(() => reject(new Error(`no ${String(pattern)} within 30 s:\n${out}`)), 30_000);
    const look = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match !== null) {
        clearTimeout(guard);
        resolve({ match, child, output: () => out });
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code} before ${String(pattern)}:\n${out}`)));
  });

/** What the CLI prints when its output is not a terminal: the page without its token, and the 0600 file holding it (test/security/browserToken.test.ts). */
const ANNOUNCED = /memory browser: (http:\/\/127\.0\.0\.1:\d+)\/ui\/ \(the address with its launch token is in (\S+), readable by you only\)/;
const tokenIn = (file: string | undefined): string => /#token=([\w-]+)/.exec(readFileSync(file ?? '', 'utf8'))?.[1] ?? '';

describe('agent-memory ui', () => {
  it('prints a URL with a launch token and serves the page only with it', async () => {
    server = await startTestServer({ persist: false, apiKey: KEY });
    const project = await makeUiProject(server.url, KEY, 'cli-bank');
    projects.push(project);
    await seed(server, KEY, 'cli-bank', [{ content: 'The staging cluster lives in eu-west-1.', document_id: 'doc-staging' }]);
    // It says how to stop it, and Ctrl+C (SIGINT) does: it exits 0.
    const { match, child } = await startCli(['ui', '--cwd', project.cwd], project.cwd, project.env, new RegExp(`${ANNOUNCED.source}\nOpen it in a browser on this machine; press Ctrl\\+C to stop\\.`));
    const [, base, file] = match;
    const token = tokenIn(file);
    expect((await fetch(`${base}/ui/api/where`)).status).toBe(401);
    const { page } = await openLaunchAddress(`${base}/ui/#token=${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const banks = await fetch(`${base}/ui/api/memories?bank=cli-bank`, { headers: { 'x-agent-memory-token': token! } });
    const text = await banks.text();
    expect(text).toContain('eu-west-1');
    expect(text).not.toContain(KEY);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 60_000);
});

describe('agent-memory serve /ui', () => {
  it('serves the browser over its own embedded server, behind the token; the API keeps its key', async () => {
    const project = await makeUiProject('http://127.0.0.1:9', KEY, 'serve-bank');
    projects.push(project);
    const { match } = await startCli(['serve', '--port', '0', '--in-memory', '--api-key-env', 'AM_SERVE_KEY'], project.cwd, { ...project.env, AM_SERVE_KEY: KEY }, ANNOUNCED);
    const [, base, file] = match;
    const token = tokenIn(file);
    await seed({ url: base! }, KEY, 'serve-bank', [{ content: 'Release notes are drafted on Thursdays.', document_id: 'doc-notes' }]);
    expect((await fetch(`${base}/ui/api/banks`)).status).toBe(401);
    expect((await call({ url: base! }, 'GET', '/v1/default/banks')).status).toBe(401);
    const listed = await fetch(`${base}/ui/api/memories?bank=serve-bank`, { headers: { 'x-agent-memory-token': token! } });
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).toContain('Release notes');
    expect(text).not.toContain(KEY);
    expect((await fetch(`${base}/ui/api/banks`, { headers: { 'x-agent-memory-token': token!, Origin: 'http://evil.example' } })).status).toBe(403);
  }, 60_000);

  it('leaves the browser out with --no-ui', async () => {
    const project = await makeUiProject('http://127.0.0.1:9', KEY, 'serve-bank');
    projects.push(project);
    const { match, output } = await startCli(['serve', '--port', '0', '--in-memory', '--no-ui'], project.cwd, project.env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(output()).not.toContain('memory browser');
    expect((await fetch(`${match[1]}/ui/`)).status).toBe(404);
  }, 60_000);
});
