/**
 * Round 10: the memory browser's session cookie and other ports of this host. Browsers keep
 * cookies apart by host, not by port (RFC 6265 §8.5), so any web server on 127.0.0.1 the person
 * visits (another account's, a dev server of a cloned repository) may set a cookie under this
 * page's cookie name with a longer path, which the browser sends first on every API call: the
 * page read only the first value of its name and refused the person's own ("cookie tossing":
 * the browser locked out until its cookies were cleared). Round 10 tried every value of the
 * name; since round 12 the page sets and reads no cookie at all (its token is a header from
 * `sessionStorage`, `portReplay.test.ts`), and tossed cookies still lock nobody out.
 * The real `agent-memory ui` server, a real headless Chromium, a real second HTTP server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../src/hosts/ui/uiServer.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { makeUiProject, seed, type UiProject } from '../ui/project.js';

const KEY = 'cookie-tossing-key-0123456789';
const BANK = 'tossing-bank';

let server: TestServer;
let project: UiProject;
let ui: UiServer;
let other: Server;
let browser: Browser;

const portOf = (url: string): number => Number(new URL(url).port);

beforeAll(async () => {
  server = await startTestServer({ persist: false, apiKey: KEY });
  project = await makeUiProject(server.url, KEY, BANK);
  await seed(server, KEY, BANK, [{ content: 'The nightly backup runs at 02:00 UTC.', document_id: 'doc-backup' }]);
  ui = await startUiServer({ cwd: project.cwd, env: project.env });
  // Another server on this host: it sets a cookie of the memory browser's old name, for a longer path.
  const name = `agent-memory-ui-${portOf(ui.url)}`;
  other = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html', 'Set-Cookie': [`${name}=tossed; Path=/ui/api`, `${name}=tossed-page; Path=/ui/`] });
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

describe("another port's cookie of the same name", () => {
  it('does not lock the person out of the page, its API calls or its streams (real Chromium)', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      await page.goto(ui.url);
      await page.locator('#memories li .text', { hasText: 'nightly backup' }).waitFor({ timeout: 20_000 });
      // The tossed cookies are there, and sent first on the page's requests.
      const names = (await context.cookies(`${ui.url.replace(/#.*$/, '')}api/banks`)).map((c) => c.value);
      expect(names).toContain('tossed');
      await page.reload();
      await page.locator('#memories li .text', { hasText: 'nightly backup' }).waitFor({ timeout: 20_000 });
    } finally {
      await context.close();
    }
  }, 60_000);
});
