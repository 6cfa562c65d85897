/**
 * Attack (round 8): the memory browser's launch token stayed in the browser. The page was
 * served at `/ui/?token=…` and read the token from its own address, so the address bar, the
 * session history, the global history and any bookmark kept the credential that opens the page
 * (which calls the memory server with its key) for as long as the launch ran. Now the launch
 * address answers 303 to `/ui/` with an HttpOnly, SameSite=Strict session cookie, and the page
 * never sees the token. The real `agent-memory ui` server, a real headless Chromium, the real
 * embedded memory server with a key.
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

const base = (): string => ui.url.replace(/\/ui\/\?token=.*$/, '');

describe('the memory browser keeps its launch token out of the browser', () => {
  it('the launch address becomes /ui/ with an HttpOnly SameSite=Strict cookie; no history entry, the page or its script holds the token', async () => {
    expect(ui.url).toContain(`token=${ui.token}`);
    const page = await context.newPage();
    await page.goto(`${ui.url}#memories`);
    await page.locator('#memories li .text', { hasText: 'release train' }).waitFor();
    expect(page.url()).toBe(`${base()}/ui/#memories`);
    expect(await page.evaluate('location.href')).not.toContain(ui.token);
    // The session history, as the browser keeps it (Chromium's own record of this tab).
    const cdp = await context.newCDPSession(page);
    const history = (await cdp.send('Page.getNavigationHistory')) as { entries: { url: string }[] };
    expect(history.entries.length).toBeGreaterThan(0);
    for (const entry of history.entries) expect(entry.url).not.toContain(ui.token);
    // The cookie: this launch's session, never the token itself, invisible to the page's script.
    const cookies = await context.cookies(`${base()}/ui/`);
    expect(cookies).toHaveLength(1);
    const [cookie] = cookies;
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Strict');
    expect(cookie?.path).toBe('/ui');
    expect(cookie?.value).not.toBe(ui.token);
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.content()).not.toContain(ui.token);
    // A reload, and the page's API calls and event streams, work with the cookie alone.
    await page.reload();
    await page.locator('#memories li .text', { hasText: 'release train' }).waitFor();
    expect(page.url()).not.toContain('token=');
    await page.close();
  }, 60_000);

  it('the token is taken from an address only at the launch address; a wrong token or another launch\'s cookie is refused', async () => {
    // API routes and event streams no longer take it in their query (it would land in logs and history).
    for (const path of ['/ui/api/banks', '/ui/api/stream/machines', `/ui/api/memories?bank=${BANK}`]) {
      const res = await fetch(`${base()}${path}${path.includes('?') ? '&' : '?'}token=${ui.token}`);
      expect(res.status, path).toBe(401);
    }
    const wrong = await fetch(`${base()}/ui/?token=wrong-token`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const launched = await openLaunchAddress(ui.url);
    expect(launched.page.status).toBe(200);
    expect(launched.setCookie).toMatch(/; Path=\/ui; HttpOnly; SameSite=Strict$/);
    const listed = await fetch(`${base()}/ui/api/memories?bank=${BANK}`, { headers: { cookie: launched.cookie } });
    expect(await listed.text()).toContain('release train');
    // A cookie of another launch (a new server on the same port range) opens nothing here.
    const other = await startUiServer({ cwd: project.cwd, env: project.env });
    try {
      const foreign = await openLaunchAddress(other.url);
      const name = launched.cookie.split('=')[0] ?? '';
      const replayed = `${name}=${foreign.cookie.split('=')[1] ?? ''}`;
      expect((await fetch(`${base()}/ui/api/banks`, { headers: { cookie: replayed } })).status).toBe(401);
    } finally {
      await other.close();
    }
  }, 60_000);
});
