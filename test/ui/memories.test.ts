/**
 * The memory browser in a real headless Chromium against the real embedded server (with a key):
 * browse and search a seeded bank, the recall explanation, edit / invalidate / delete through
 * the page's confirmations and the next recall changing, a memory retained meanwhile appearing
 * on its own, a dead letter requeued from the page and delivered; and the guards: no token is
 * 401, another origin or host is 403, and the key is in no answer the page ever received.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileRetainQueuePorts } from '../../src/hosts/retainQueueStore.js';
import { ownerMark, readOwnerKey } from '../../src/adapters/queue/queueOwner.js';
import { startUiServer, type UiServer } from '../../src/hosts/ui/uiServer.js';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { openRetainQueue } from '../../src/effects/retainDelivery/queue.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { waitUntil } from '../helpers/waitUntil.js';
import { launchBrowser } from '../helpers/browser.js';
import { makeUiProject, seed, type UiProject } from './project.js';
import { openLaunchAddress } from '../helpers/uiLaunch.js';

const KEY = 'am-ui-test-key-7f3a9c1e5b2d4680';
const BANK = 'ui-test';
const ARTIFACTS = 'test-artifacts';

let server: TestServer;
let project: UiProject;
let ui: UiServer;
let browser: Browser;
let page: Page;
/** Every answer the page received, as text: the key must be in none. */
const received: string[] = [];

beforeAll(async () => {
  server = await startTestServer({ persist: false, apiKey: KEY });
  project = await makeUiProject(server.url, KEY, BANK);
  await seed(server, KEY, BANK, [
    { content: 'We use PostgreSQL 16 as the main database for the billing service.', document_id: 'doc-db', tags: ['infra'], timestamp: '2026-11-01T10:00:00Z' },
    { content: 'Deploys go out every Tuesday after the staging soak passes.', document_id: 'doc-deploy', tags: ['process'], timestamp: '2026-11-02T10:00:00Z' },
    { content: 'Alice prefers dark mode in every editor she uses.', document_id: 'doc-prefs', tags: ['people'], timestamp: '2026-11-03T10:00:00Z' },
    { content: 'The signing keys rotate every ninety days, owned by the security team.', document_id: 'doc-keys', tags: ['infra', 'security'], timestamp: '2026-11-04T10:00:00Z' },
  ]);
  ui = await startUiServer({ cwd: project.cwd, env: project.env });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('response', (response) => {
    void response.text().then(
      (text) => received.push(text),
      () => undefined,
    );
  });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await server?.dispose();
  await project?.dispose();
});

const memoryCards = (): Promise<string[]> => page.$$eval('#memories li .text', (els) => els.map((e) => e.textContent ?? ''));
const recallCards = (): Promise<string[]> => page.$$eval('#recall-results li .text', (els) => els.map((e) => e.textContent ?? ''));

const recall = async (query: string): Promise<void> => {
  await page.locator('#recall-info').evaluate((node) => {
    node.textContent = '';
  });
  await page.fill('#recall-q', query);
  await page.click('#recall button');
  await page.locator('#recall-info', { hasText: 'result' }).waitFor();
};

const noticeSays = (text: string): Promise<void> => page.locator('#notice', { hasText: text }).waitFor();
const cardCount = (n: number): Promise<unknown> => expect.poll(() => page.locator('#memories li').count(), { timeout: 5_000 }).toBe(n);

const confirm = async (input?: string): Promise<void> => {
  await page.waitForSelector('#confirm[open]');
  if (input !== undefined) await page.fill('#confirm-input', input);
  await page.click('#confirm-ok');
};

describe('the memory browser, Memories', () => {
  it('opens with the token, lists the seeded bank and searches it', async () => {
    await page.goto(ui.url);
    await page.waitForSelector('#memories li');
    expect(await page.locator('#bank').inputValue()).toBe(BANK);
    // Four memories and two observations: "Deploys", capitalised only because it opens its
    // sentence, makes none (tenth session; it was `**Deploys** (1 fact)`), nor does "go", the
    // verb of that sentence read as the Go language (thirteenth session; it was `**go**`).
    expect((await memoryCards()).length).toBe(6);
    // An observation's **Name** line is drawn as a heading, not as the asterisks (tenth session,
    // second round): one per observation, none named "Deploys" or "go".
    const headings = await page.$$eval('#memories li .text strong.heading', (els) => els.map((e) => e.textContent ?? ''));
    expect([...headings].sort()).toEqual(['Alice', 'postgresql']);
    expect((await memoryCards()).some((text) => text.includes('**'))).toBe(false);
    await page.selectOption('#type', 'world');
    await page.click('#filter button[type=submit]');
    await cardCount(4);
    expect(await page.locator('#memories li').first().locator('.chip').allTextContents()).toContain('#infra');

    await page.fill('#q', 'postgresql');
    await page.click('#filter button[type=submit]');
    await cardCount(1);
    expect((await memoryCards())[0]).toContain('PostgreSQL 16');

    await page.fill('#q', '');
    await page.fill('#tag', 'infra');
    await page.click('#filter button[type=submit]');
    await cardCount(2);
    expect((await memoryCards()).every((t) => t.includes('PostgreSQL') || t.includes('signing keys'))).toBe(true);
    await page.fill('#tag', '');
    await page.selectOption('#type', '');
    await page.click('#filter button[type=submit]');
    await cardCount(6);
  });

  it('shows the recall box\'s whole placeholder, at 1400 and at 1024 pixels wide (it was cut off)', async () => {
    // Run in the page (this project's types have no DOM): the placeholder's width in the box's font, and the box's inner width.
    const fits = (): Promise<{ text: number; room: number; placeholder: string }> =>
      page.evaluate(`(() => {
        const input = document.getElementById('recall-q');
        const style = getComputedStyle(input);
        const context = document.createElement('canvas').getContext('2d');
        context.font = style.font;
        const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return { text: context.measureText(input.placeholder).width, room, placeholder: input.placeholder };
      })()`);
    for (const width of [1400, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      const { text, room, placeholder } = await fits();
      expect(placeholder.length).toBeGreaterThan(10);
      expect(text, `${width}px: "${placeholder}"`).toBeLessThanOrEqual(room);
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('explains a recall: the matched terms, the score and the stage of each result', async () => {
    await recall('which database does billing use?');
    const first = page.locator('#recall-results li').first();
    expect(await first.locator('.text').textContent()).toContain('PostgreSQL 16');
    const matched = await first.locator('.chip.term').allTextContents();
    expect(matched).toEqual(expect.arrayContaining(['database', 'billing']));
    expect(await first.locator('.why').textContent()).toMatch(/rank 1.*score \d\.\d{3}.*stage keyword/);
    expect(await page.locator('#recall-info').textContent()).toMatch(/query terms: .*database.*billing/);
    await page.screenshot({ path: `${ARTIFACTS}/ui-memories-recall.png`, fullPage: true });
  });

  it('shows a memory with its document and neighbours; edits it and the next recall reads the new text', async () => {
    await page.click('#recall-results li >> nth=0');
    await page.waitForSelector('#detail:not([hidden]) #edit');
    expect(await page.locator('#detail').textContent()).toContain('Source document doc-db');
    await page.click('#edit');
    await confirm('We use PostgreSQL 16 and Redis for caching in the billing service.');
    await noticeSays('Edited.');
    await recall('redis caching');
    expect((await recallCards())[0]).toContain('Redis for caching');
  });

  it('invalidates a memory after confirmation and recall leaves it out; restore brings it back', async () => {
    await recall('signing keys rotate');
    expect((await recallCards())[0]).toContain('signing keys');
    await page.click('#recall-results li >> nth=0');
    await page.waitForSelector('#detail:not([hidden]) #invalidate');
    // Cancelling changes nothing.
    await page.click('#invalidate');
    await page.waitForSelector('#confirm[open]');
    await page.click('#confirm-cancel');
    await recall('signing keys rotate');
    expect((await recallCards()).some((t) => t.includes('signing keys'))).toBe(true);

    await page.click('#recall-results li >> nth=0');
    await page.waitForSelector('#detail:not([hidden]) #invalidate');
    await page.click('#invalidate');
    await confirm('superseded by the key policy');
    await noticeSays('Invalidated.');
    expect(await page.locator('#detail').textContent()).toContain('invalidated: superseded by the key policy');
    await recall('signing keys rotate');
    expect((await recallCards()).some((t) => t.includes('signing keys'))).toBe(false);
    await page.click('#restore');
    await confirm();
    await noticeSays('Restored.');
    await recall('signing keys rotate');
    expect((await recallCards())[0]).toContain('signing keys');
  });

  it('deletes a memory with its document after confirmation, and recall no longer finds it', async () => {
    await recall('dark mode editor');
    expect((await recallCards())[0]).toContain('dark mode');
    await page.click('#recall-results li >> nth=0');
    await page.waitForSelector('#detail:not([hidden]) #delete');
    await page.click('#delete');
    await page.waitForSelector('#confirm[open]');
    expect(await page.locator('#confirm-text').textContent()).toContain('doc-prefs');
    await page.click('#confirm-ok');
    await noticeSays('Deleted.');
    await recall('dark mode editor');
    expect((await recallCards()).some((t) => t.includes('dark mode'))).toBe(false);
    const listed = await call(server, 'GET', `/v1/default/banks/${BANK}/memories/list`, undefined, { Authorization: `Bearer ${KEY}` });
    expect((listed.body as { items: { text: string }[] }).items.some((m) => m.text.includes('dark mode'))).toBe(false);
  });

  it('shows a memory retained while the page is open, without a reload', async () => {
    await seed(server, KEY, BANK, [{ content: 'The on-call rotation hands over every Monday at nine.', document_id: 'doc-oncall', tags: ['process'] }]);
    await page.waitForSelector('#memories li.new', { timeout: 10_000 });
    expect(await page.locator('#memories li.new .text').first().textContent()).toContain('on-call rotation');
  });

  it('shows a retained pi turn as who said what, one line each, not as the JSON it is stored as', async () => {
    // What the extension retains for a turn: the JSON of its messages.
    const turn = [
      { role: 'user', timestamp: '2026-11-05T10:00:00Z', content: 'The staging API listens on port 8443, remember that.' },
      { role: 'assistant', timestamp: '2026-11-05T10:00:01Z', content: [{ type: 'text', text: 'Noted: staging is on 8443.' }], model: 'm', stopReason: 'stop' },
    ];
    await seed(server, KEY, BANK, [{ content: JSON.stringify(turn), document_id: 'pi-session:turn', tags: ['process'], timestamp: '2026-11-05T10:00:00Z' }]);
    await page.selectOption('#type', 'world');
    await page.fill('#q', 'staging');
    await page.click('#filter button[type=submit]');
    await expect.poll(async () => (await memoryCards()).find((t) => t.includes('8443')), { timeout: 5_000 }).toBe('User: The staging API listens on port 8443, remember that.\nAssistant: Noted: staging is on 8443.');
    await recall('which port is staging on?');
    // The turn's card (an observation that quotes what was said may rank beside it).
    const cards = await recallCards();
    const turnCard = cards.findIndex((t) => t.startsWith('User: The staging API'));
    expect(cards[turnCard]).toBe('User: The staging API listens on port 8443, remember that.\nAssistant: Noted: staging is on 8443.');
    expect(cards.slice(0, 2)).toContain(cards[turnCard]);
    await page.click(`#recall-results li >> nth=${turnCard}`);
    await page.waitForSelector('#detail:not([hidden]) #edit');
    expect(await page.locator('#detail-text').textContent()).toBe('User: The staging API listens on port 8443, remember that.\nAssistant: Noted: staging is on 8443.');
    await page.screenshot({ path: `${ARTIFACTS}/ui-memories-turn.png`, fullPage: true });
    // Edit offers the text as the server holds it.
    await page.click('#edit');
    await page.waitForSelector('#confirm[open]');
    expect(JSON.parse(await page.locator('#confirm-input').inputValue())).toEqual(turn);
    await page.click('#confirm-cancel');
    await page.fill('#q', '');
    await page.selectOption('#type', '');
    await page.click('#filter button[type=submit]');
  });

  it('refuses a write that was not confirmed, and one on a memory that is not there', async () => {
    const headers = { 'x-agent-memory-token': ui.token, 'content-type': 'application/json' };
    const base = ui.url.replace(/\/ui\/#token=.*$/, '');
    const listed = await call(server, 'GET', `/v1/default/banks/${BANK}/memories/list`, undefined, { Authorization: `Bearer ${KEY}` });
    const id = (listed.body as { items: { id: string }[] }).items[0]!.id;
    const unconfirmed = await fetch(`${base}/ui/api/memory/invalidate`, { method: 'POST', headers, body: JSON.stringify({ bank: BANK, id, confirm: '' }) });
    expect(unconfirmed.status).toBe(409);
    const missing = '00000000-0000-4000-8000-000000000000';
    const absent = await fetch(`${base}/ui/api/memory/delete`, { method: 'POST', headers, body: JSON.stringify({ bank: BANK, id: missing, confirm: missing }) });
    expect(absent.status).toBe(404);
    const bad = await fetch(`${base}/ui/api/memory/edit`, { method: 'POST', headers, body: JSON.stringify({ bank: BANK, id, confirm: id }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/text/);
    const after = await call(server, 'GET', `/v1/default/banks/${BANK}/memories/${id}`, undefined, { Authorization: `Bearer ${KEY}` });
    expect(after.body.state).toBe('valid');
  });
});

describe('the memory browser, Project: the retain queue', () => {
  it('lists a dead letter with its reason; Requeue delivers it', async () => {
    const queuePath = `${project.cwd}/.pi/memory/retain-queue.jsonl`;
    server.setFaults([{ kind: 'status', status: 422, detail: 'item rejected by the test server', method: 'POST', path: '/v1/default/banks/*/memories', times: 1 }]);
    // The queue as a session of this user opens it: with the user's mark (a queue without it is set aside unread).
    const queue = await openRetainQueue({
      ...fileRetainQueuePorts({ queuePath, owner: { mark: ownerMark(readOwnerKey(project.agentDir), queuePath), trust: false } }),
      server: createMemoryServer({ baseUrl: server.url, timeoutMs: 5_000, apiKey: KEY }),
      mode: 'immediate',
      flushIntervalMs: 60_000,
      onWarning: () => undefined,
    });
    await queue.enqueue([{ bankId: BANK, documentId: 'doc-queued', updateMode: 'replace', item: { content: 'The queue delivered this note about the nightly backup window.', document_id: 'doc-queued' } }]);
    await queue.flush({ force: true });
    await waitUntil(async () => (await queue.deadLetters()).length === 1);
    await queue.close({ flush: false });

    const auth = { Authorization: `Bearer ${KEY}` };
    expect((await call(server, 'POST', `/v1/default/banks/${BANK}/mental-models`, { name: 'Database choices', source_query: 'which database do we use?' }, auth)).status).toBeLessThan(300);
    // Another project's starter model in the same bank (tenth session: two "Architecture" rows, with nothing to tell them apart).
    expect((await call(server, 'POST', `/v1/default/banks/${BANK}/mental-models`, { name: 'Architecture', source_query: 'how is it built?', tags: ['project:someone-else'] }, auth)).status).toBeLessThan(300);
    expect((await call(server, 'POST', `/v1/default/banks/${BANK}/knowledge-base/pages`, { name: 'Deploy runbook', source_query: 'how do deploys go out?' }, auth)).status).toBeLessThan(300);

    await page.click('#tabs [data-tab="project"]');
    await page.waitForSelector('#queue tr[data-job] .requeue');
    // The bank's mental models and knowledge pages, as the server has them.
    await page.locator('#project td', { hasText: 'Database choices' }).first().waitFor();
    const other = page.locator('#project tr', { hasText: 'project:someone-else' });
    expect(await other.locator('td').first().textContent()).toBe('Architecture');
    expect(await other.getAttribute('class')).toBe('other');
    await page.locator('#project tr', { hasText: 'Deploy runbook' }).locator('button', { hasText: 'Open' }).click();
    await page.locator('#kb-page h3', { hasText: 'Deploy runbook' }).waitFor();
    expect(await page.locator('#queue tr[data-job]').textContent()).toContain('item rejected by the test server');
    expect(await page.locator('#queue-status').textContent()).toContain('dead letters 1');
    await page.screenshot({ path: `${ARTIFACTS}/ui-project.png`, fullPage: true });
    await page.click('#queue tr[data-job] .requeue');
    await confirm();
    await noticeSays('Requeued 1; delivered 1');
    await page.locator('#queue-status', { hasText: 'dead letters 0' }).waitFor();
    const listed = await call(server, 'GET', `/v1/default/banks/${BANK}/memories/list?q=nightly`, undefined, { Authorization: `Bearer ${KEY}` });
    expect((listed.body as { items: unknown[] }).items.length).toBeGreaterThan(0);
  });

  it('names a queue file memory set aside (its jobs wait outside the queue shown) and what to do', async () => {
    const aside = `${project.cwd}/.pi/memory/retain-queue.untrusted-2026-11-28T07-46-03-965Z.jsonl`;
    writeFileSync(aside, '');
    try {
      await page.click('#tabs [data-tab="memories"]');
      await page.click('#tabs [data-tab="project"]');
      const line = page.locator('#queue .set-aside');
      await line.waitFor();
      // It read "pending 0 · dead letters 0" and nothing else, while status and the doctor said "!".
      expect(await line.textContent()).toMatch(new RegExp(`^! ${aside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: a retain queue file this user's memory did not write`));
      // The serving process's own command line (selfCommand.ts); foreignQueue.test.ts runs it as printed.
      expect(await line.textContent()).toMatch(new RegExp(`and run node \\S.* flush --trust-queue --cwd ${project.cwd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    } finally {
      rmSync(aside);
    }
  });
});

describe('the memory browser, guards', () => {
  const base = (): string => ui.url.replace(/\/ui\/#token=.*$/, '');

  it('serves no data without the launch token as a header (401): only the shell, which holds none', async () => {
    for (const path of ['/ui/api/banks', '/ui/api/project', '/ui/api/where', '/ui/api/stream/machines', '/ui/api/memories?bank=ui-test']) {
      const res = await fetch(`${base()}${path}`);
      expect(res.status, path).toBe(401);
      expect(await res.text()).not.toContain('PostgreSQL');
    }
    const shell = await fetch(`${base()}/ui/`);
    expect(shell.status).toBe(200);
    const markup = await shell.text();
    expect(markup).not.toContain('PostgreSQL');
    expect(markup).not.toContain(project.cwd);
    expect((await fetch(`${base()}/ui/api/banks`, { headers: { 'x-agent-memory-token': 'wrong' } })).status).toBe(401);
    // The token is taken from no URL: not the shell's (the old launch address), not a write's.
    expect((await fetch(`${base()}/ui/?token=${ui.token}`)).status).toBe(401);
    const res = await fetch(`${base()}/ui/api/memory/delete?token=${ui.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
  });

  it('refuses another origin and a rebound host name (403), even with the token', async () => {
    const headers = { 'x-agent-memory-token': ui.token };
    expect((await fetch(`${base()}/ui/api/banks`, { headers: { ...headers, Origin: 'http://evil.example' } })).status).toBe(403);
    expect((await fetch(`${base()}/ui/api/banks`, { headers: { ...headers, 'Sec-Fetch-Site': 'cross-site' } })).status).toBe(403);
    // What Chromium sends for a page on another loopback port (same site, another origin).
    expect((await fetch(`${base()}/ui/api/banks`, { headers: { ...headers, Origin: server.url, 'Sec-Fetch-Site': 'same-site' } })).status).toBe(403);
    const rebound = await new Promise<number>((resolve, reject) => {
      void import('node:http').then(({ request }) => {
        const req = request(`${base()}/ui/api/banks`, { headers: { ...headers, Host: 'attacker.example' } }, (res) => resolve(res.statusCode ?? 0));
        req.on('error', reject);
        req.end();
      });
    });
    expect(rebound).toBe(403);
  });

  it('sends a strict content security policy with the page', async () => {
    const { page: res } = await openLaunchAddress(ui.url);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[^']+'/);
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('never lets the key reach the page: not in the page, an API answer or an event', async () => {
    const headers = { 'x-agent-memory-token': ui.token };
    for (const path of ['/ui/api/banks', '/ui/api/project', `/ui/api/memories?bank=${BANK}`, '/ui/api/machines', '/ui/api/traces']) {
      const res = await fetch(`${base()}${path}`, { headers });
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).not.toContain(KEY);
    }
    expect(received.length).toBeGreaterThan(10);
    for (const text of received) expect(text).not.toContain(KEY);
    expect(await page.content()).not.toContain(KEY);
  });
});

describe('the memory browser, text that looks like markup', () => {
  it('draws a **Name** line as a heading whose name stays text: no element is made from a memory', async () => {
    await seed(server, KEY, BANK, [{ content: '**<img src=x onerror="window.__amInjected=1">Release train** ships on Fridays.', document_id: 'doc-markup', timestamp: '2026-11-05T10:00:00Z' }]);
    await page.goto(ui.url);
    await page.fill('#q', 'release train');
    await page.click('#filter button[type=submit]');
    await expect.poll(() => page.locator('#memories li', { hasText: 'Release train' }).count(), { timeout: 5_000 }).toBeGreaterThan(0);
    // Observations that quote it are drawn the same way: no card makes an element from its text.
    expect(await page.locator('#memories img').count()).toBe(0);
    await page.selectOption('#type', 'world');
    await page.click('#filter button[type=submit]');
    await cardCount(1);
    const card = page.locator('#memories li').first();
    expect(await card.locator('.text strong.heading').textContent()).toBe('<img src=x onerror="window.__amInjected=1">Release train');
    expect(await card.locator('.text img').count()).toBe(0);
    await card.click();
    await page.waitForSelector('#detail-text strong.heading');
    expect(await page.locator('#detail-text img').count()).toBe(0);
    expect(await page.locator('#detail-text').textContent()).toBe('<img src=x onerror="window.__amInjected=1">Release train ships on Fridays.');
    expect(await page.evaluate('typeof window.__amInjected')).toBe('undefined');
  });
});
