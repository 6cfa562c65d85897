/**
 * Round 12: another web server on this host read the memory browser's credential and replayed
 * it. The page's session was a cookie (HttpOnly, SameSite=Strict, Path=/ui), and cookies are
 * kept per host, not per port (RFC 6265 §8.5): any server on 127.0.0.1 the person's browser
 * visits under `/ui/` (another account's, a cloned repository's dev server) received it, and
 * could send it from outside a browser to every API route (the memories, edits, deletes, the
 * retain queue), which call the memory server with its key. Now the address carries the token
 * after `#`, the page keeps it in `sessionStorage` (per origin: the port is part of it) and
 * sends it as a header; no cookie is set, and a request with only a cookie is refused. The
 * real `agent-memory ui` server, a real headless Chromium, a real second HTTP server.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../src/hosts/ui/uiServer.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { makeUiProject, seed, type UiProject } from '../ui/project.js';

const KEY = 'port-replay-key-0123456789abcdef';
const BANK = 'replay-bank';

let server: TestServer;
let project: UiProject;
let ui: UiServer;
let other: Server;
let browser: Browser;
/** Every request the other server received: what the person's browser sent it. */
const seen: { path: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = await startTestServer({ persist: false, apiKey: KEY });
  project = await makeUiProject(server.url, KEY, BANK);
  await seed(server, KEY, BANK, [{ content: 'The canary deploy goes out at 09:00.', document_id: 'doc-canary' }]);
  ui = await startUiServer({ cwd: project.cwd, env: project.env });
  other = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><p>a local dev server</p>');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => other?.close(resolve));
  await ui?.close();
  await server?.dispose();
  await project?.dispose();
});

describe('a web server on another port of this host', () => {
  it('receives nothing from the memory browser that opens its API, and cannot read its token (real Chromium)', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(ui.url);
      await page.locator('#memories li .text', { hasText: 'canary deploy' }).waitFor({ timeout: 20_000 });
      // The person then visits another local server, under the memory browser's own paths.
      const otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const visit = await context.newPage();
      for (const path of ['/ui/', '/ui/api/banks', `/ui/api/memories?bank=${BANK}`]) await visit.goto(`${otherBase}${path}`);
      expect(seen.length).toBeGreaterThanOrEqual(3);
      // Its own script sees no credential of the other origin.
      expect(await visit.evaluate('[document.cookie, sessionStorage.length]')).toEqual(['', 0]);
      const uiBase = new URL(ui.url).origin;
      for (const request of seen) {
        expect(JSON.stringify(request.headers), request.path).not.toContain(ui.token);
        // Replayed from outside a browser, with everything it was sent: refused.
        const replayed = await fetch(`${uiBase}/ui/api/memories?bank=${BANK}`, { headers: { ...(request.headers.cookie === undefined ? {} : { cookie: request.headers.cookie }) } });
        expect(replayed.status, `${request.path} cookie ${request.headers.cookie ?? '(none)'}`).toBe(401);
        expect(await replayed.text()).not.toContain('canary');
      }
      // The person's own tab still works, reload included.
      await page.reload();
      await page.locator('#memories li .text', { hasText: 'canary deploy' }).waitFor({ timeout: 20_000 });
    } finally {
      await context.close();
    }
  }, 60_000);
});
