/**
 * A person's seventh pass: a new tab opened on the memory browser had no token (it lives in
 * each tab's sessionStorage since round 12) and told them to "open the address agent-memory
 * ui or agent-memory serve gave", commands on no PATH from a clone. Now a tab without the
 * token asks the page's open tabs for it (a BroadcastChannel: this origin only, nothing
 * stored); with none open, the refusal names the 0600 file the address was written to, and
 * that file's address opens the page. The real CLI (`ui`, `serve`) as a subprocess, a real
 * headless Chromium, the real embedded memory server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portOf } from '../../src/server/http/address.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { makeUiProject, seed, type UiProject } from './project.js';

const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;
const MAIN = path.resolve('src/hosts/cli/main.ts');
const KEY = 'am-another-tab-key-5c1e9a0b7d3f2468';
const BANK = 'tab-bank';
const ANNOUNCED = /memory browser: (http:\/\/127\.0\.0\.1:\d+)\/ui\/ \(the address with its launch token is in (\S+), readable by you only\)/;

const children: ChildProcess[] = [];
let server: TestServer;
let project: UiProject;
let browser: Browser;
let otherOrigin: Server;
let other: string;

beforeAll(async () => {
  server = await startTestServer({ persist: false, apiKey: KEY });
  project = await makeUiProject(server.url, KEY, BANK);
  await seed(server, KEY, BANK, [{ content: 'The nightly backup runs at 03:10 on the build host.', document_id: 'doc-backup' }]);
  browser = await launchBrowser();
  otherOrigin = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>another server</title>'));
  await new Promise<void>((resolve) => otherOrigin.listen(0, '127.0.0.1', resolve));
  other = `http://127.0.0.1:${portOf(otherOrigin.address())}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  otherOrigin?.close();
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await server?.dispose();
  await project?.dispose();
});

const startCli = (args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ base: string; file: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd: project.cwd, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    const guard = setTimeout(() => reject(new Error(`no address within 30 s:\n${out}`)), 30_000);
    const look = (chunk: Buffer): void => {
      out += chunk.toString();
      const match = ANNOUNCED.exec(out);
      if (match !== null) {
        clearTimeout(guard);
        resolve({ base: match[1] ?? '', file: match[2] ?? '' });
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });

describe('another tab on the memory browser', () => {
  for (const [name, args, extraEnv] of [
    ['ui', ['ui'], {}],
    ['serve', ['serve', '--port', '0', '--in-memory'], {}],
  ] as const) {
    it(`${name}: a tab without the address names the file that holds it; a tab opened beside one with it needs nothing`, async () => {
      const { base, file } = await startCli(args, { ...project.env, ...extraEnv });
      // Contexts are left to browser.close: closing one crashed this single-process Chromium.
      const context = await browser.newContext();
      {
        // Alone: the refusal names the file, which exists and holds the address (no command on no PATH).
        const lone = await context.newPage();
        await lone.goto(`${base}/ui/`);
        const said = lone.locator('#notice', { hasText: 'no launch token' });
        await said.waitFor();
        const text = await said.textContent();
        expect(text).toContain(file);
        expect(text).not.toContain('agent-memory ui');
        expect(text).not.toContain('agent-memory serve');
        expect(existsSync(file)).toBe(true);
        const address = readFileSync(file, 'utf8').trim();
        expect(address.startsWith(`${base}/ui/#token=`)).toBe(true);
        await lone.close();

        // The file's address opens the page; a second tab typed as /ui/ asks it and shows the same.
        const first = await context.newPage();
        await first.goto(address);
        if (name === 'ui') await first.locator('#memories li .text', { hasText: 'nightly backup' }).waitFor();
        else await first.locator('#where').filter({ hasText: base }).waitFor();
        const second = await context.newPage();
        await second.goto(`${base}/ui/`);
        if (name === 'ui') await second.locator('#memories li .text', { hasText: 'nightly backup' }).waitFor();
        else await second.locator('#where').filter({ hasText: base }).waitFor();
        expect(await second.locator('#notice').isHidden()).toBe(true);
        expect(second.url()).toBe(`${base}/ui/`);
        // Handed over into that tab's sessionStorage only: no cookie, nothing in the address.
        expect(await context.cookies()).toEqual([]);
        await second.reload();
        await second.locator('#where').filter({ hasText: project.cwd }).waitFor();

        // A page of another origin (another web server on this host, another port) asks on the
        // same channel and is never answered: the channel reaches only this origin's documents.
        const page = await context.newPage();
        await page.goto(`${other}/`);
        const overheard = await page.evaluate(
          () =>
            new Promise<string>((resolve) => {
              const channel = new BroadcastChannel('agent-memory-token');
              channel.onmessage = (e: MessageEvent) => resolve(String((e.data as { token?: unknown }).token));
              channel.postMessage({ type: 'ask' });
              setTimeout(() => resolve('none'), 2000);
            }),
        );
        expect(overheard).toBe('none');
        await page.close();
        await second.close();
        await first.close();
      }
    }, 90_000);
  }
});
