/**
 * Attack (round 8): the memory browser's launch token stayed in the browser. The page was
 * served at `/ui/?token=…` and read the token from its own address, so the address bar, the
 * session history and any bookmark kept the credential that opens the page (which calls the
 * memory server with its key) for as long as the launch ran. Round 8 exchanged it for a
 * session cookie; round 12 dropped the cookie (another port of this host could read and replay
 * it: `portReplay.test.ts`): the address carries the token after `#`, the page moves it into
 * `sessionStorage` and takes it off the address, and sends it as a header. The real
 * `agent-memory ui` server, a real headless Chromium, the real embedded memory server with a key.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../src/hosts/ui/uiServer.js';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { openLaunchAddress } from '../helpers/uiLaunch.js';
import { makeUiProject, seed, type UiProject } from '../ui/project.js';

const KEY = 'browser-history-key-0123456789';
const BANK = 'history-bank';
const MEMORY = 'The release train leaves every second Thursday.';

let server: TestServer;
let project: UiProject;
let ui: UiServer;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  server = await startTestServer({ persist: false, apiKey: KEY });
  project = await makeUiProject(server.url, KEY, BANK);
  await seed(server, KEY, BANK, [{ content: MEMORY, document_id: 'doc-train' }]);
  ui = await startUiServer({ cwd: project.cwd, env: project.env });
  browser = await launchBrowser();
  context = await browser.newContext();
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await ui?.close();
  await server?.dispose();
  await project?.dispose();
});

const base = (): string => ui.url.replace(/\/ui\/#token=.*$/, '');

describe('the memory browser keeps its launch token out of the address and the history', () => {
  it('the launch address becomes /ui/ with the token in sessionStorage; no history entry, cookie or page markup holds it', async () => {
    expect(ui.url).toBe(`${base()}/ui/#token=${ui.token}`);
    const page = await context.newPage();
    await page.goto(`${ui.url}&memories`);
    await page.locator('#memories li .text', { hasText: 'release train' }).waitFor();
    expect(page.url()).toBe(`${base()}/ui/#memories`);
    expect(await page.evaluate('location.href')).not.toContain(ui.token);
    // The session history, as the browser keeps it (Chromium's own record of this tab).
    const cdp = await context.newCDPSession(page);
    const history = (await cdp.send('Page.getNavigationHistory')) as { entries: { url: string }[] };
    expect(history.entries.length).toBeGreaterThan(0);
    for (const entry of history.entries) expect(entry.url).not.toContain(ui.token);
    // Kept for this origin (port included) and this tab only; no cookie at all.
    expect(await page.evaluate("sessionStorage.getItem('agent-memory-token')")).toBe(ui.token);
    expect(await context.cookies()).toEqual([]);
    expect(await page.content()).not.toContain(ui.token);
    // A reload, and the page's API calls and event streams, work with what the tab kept.
    await page.reload();
    await page.locator('#memories li .text', { hasText: 'release train' }).waitFor();
    expect(page.url()).not.toContain('token=');
    // The header names the server and project, asked for with the token.
    await page.locator('#where', { hasText: project.cwd }).waitFor();
    await page.close();
  }, 60_000);

  it('a tab opened without the token gets the shell and says how to open the page; the token is taken from no query', async () => {
    const page = await context.newPage();
    await page.goto(`${base()}/ui/`);
    await page.locator('#notice', { hasText: 'no launch token' }).waitFor();
    expect(await page.locator('#memories li').count()).toBe(0);
    await page.close();
    // API routes and event streams take it in no query (it would land in logs and history), nor does the shell.
    for (const path of ['/ui/', '/ui/api/banks', '/ui/api/stream/machines', `/ui/api/memories?bank=${BANK}`]) {
      const res = await fetch(`${base()}${path}${path.includes('?') ? '&' : '?'}token=${ui.token}`);
      expect(res.status, path).toBe(401);
    }
    const launched = await openLaunchAddress(ui.url);
    expect(launched.page.status).toBe(200);
    expect(launched.page.headers.get('set-cookie')).toBeNull();
    const listed = await fetch(`${base()}/ui/api/memories?bank=${BANK}`, { headers: launched.headers });
    expect(await listed.text()).toContain('release train');
    // Another launch's token opens nothing here.
    const other = await startUiServer({ cwd: project.cwd, env: project.env });
    try {
      const foreign = await openLaunchAddress(other.url);
      expect((await fetch(`${base()}/ui/api/banks`, { headers: foreign.headers })).status).toBe(401);
    } finally {
      await other.close();
    }
  }, 60_000);
});
