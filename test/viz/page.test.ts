import { mkdirSync } from 'node:fs';
import * as t from 'io-ts';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { memoryTrace } from '../../src/adapters/trace/jsonlTrace.js';
import { startGate } from '../../src/effects/kernel/startGate.js';
import { layoutGraph } from '../../src/viz/layout.js';
import { machineGraph } from '../../src/viz/machineGraph.js';
import { gatePage } from '../../src/viz/gatePage.js';
import { vizGates } from '../../src/viz/gates.js';
import { visualiserPage } from '../../src/viz/page.js';
import { renderSvg } from '../../src/viz/svg.js';
import { launchBrowser } from '../helpers/browser.js';

const DoorEvent = t.union([t.type({ type: t.literal('open') }), t.type({ type: t.literal('close') }), t.type({ type: t.literal('lock') }), t.type({ type: t.literal('unlock') })]);
type DoorEvent = t.TypeOf<typeof DoorEvent>;

const door = setup({ types: { events: {} as DoorEvent } }).createMachine({
  id: 'door',
  initial: 'closed',
  states: {
    opened: { on: { close: 'closed' } },
    closed: { initial: 'unlocked', states: { unlocked: { on: { open: '#door.opened', lock: 'locked' } }, locked: { on: { unlock: 'unlocked' } } } },
  },
});

// Chromium runs single-process here: closing its last page ends it, so pages stay open until afterAll.
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the visualiser page in a real browser', () => {
  it('draws every state, and replays a recorded trace step by step', async () => {
    // A real trace, recorded by the gate runtime while the machine ran.
    const trace = memoryTrace();
    const gate = await startGate({ name: 'door', machine: door, events: DoorEvent, trace });
    for (const type of ['lock', 'unlock', 'open', 'close'] as const) await gate.dispatch({ type });
    await gate.stop();
    const steps = trace.records.filter((r) => r.kind === 'transition');
    expect(steps.length).toBeGreaterThanOrEqual(4);

    const graph = machineGraph(door);
    const svg = renderSvg(await layoutGraph(graph), { id: 'door' });
    const html = visualiserPage({ title: 'door', gates: [{ name: 'door', machineId: 'door', svg }], trace: trace.records });

    const page = await browser.newPage({ viewport: { width: 900, height: 400 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setContent(html);
    expect(await page.locator('svg [data-state]').count()).toBe(graph.nodes.length - 1);

    const active = () => page.$$eval('svg .state.active', (els) => els.map((e) => e.getAttribute('data-state')).sort());
    const taken = () => page.$$eval('svg .transition.taken', (els) => els.map((e) => e.getAttribute('data-event')));
    const stepTo = async (type: string) => {
      // Advance until the step that recorded this event.
      for (let i = 0; i < trace.records.length; i += 1) {
        const info = await page.locator('#step-info').textContent();
        if (info?.includes(`transition  ${type}`)) return;
        await page.click('#next');
      }
      throw new Error(`no step for ${type}`);
    };
    await stepTo('lock');
    expect(await active()).toEqual(['door.closed', 'door.closed.locked']);
    expect(await taken()).toEqual(['lock']);
    await stepTo('open');
    expect(await active()).toEqual(['door.opened']);
    expect(await taken()).toEqual(['open']);
    await page.keyboard.press('ArrowLeft');
    expect(await active()).toEqual(['door.closed', 'door.closed.unlocked']);

    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/visualiser-door.png', fullPage: true });
    expect(errors).toEqual([]);

  });

  it('shows structure only when there is no trace', async () => {
    const svg = renderSvg(await layoutGraph(machineGraph(door)), { id: 'door' });
    const page = await browser.newPage();
    await page.setContent(visualiserPage({ title: 'door', gates: [{ name: 'door', machineId: 'door', svg }] }));
    expect(await page.locator('#step-info').textContent()).toMatch(/no trace loaded/);
    expect(await page.locator('svg .state.active').count()).toBe(0);

  });

  it("fits each of the project's diagrams to the page, and shows one at full size on a click", async () => {
    // `agent-memory viz` draws every gate; the setup gate alone is about 2,000 px wide.
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.setContent(await gatePage('agent-memory', vizGates));
    const sizes = async (): Promise<{ page: number; window: number; diagrams: { gate: string; width: number; box: number; scrolls: boolean }[] }> => ({
      page: await page.$eval('html', (html) => html.scrollWidth),
      window: page.viewportSize()?.width ?? 0,
      diagrams: await page.$$eval('section', (sections) =>
        sections.map((section) => {
          const svg = section.querySelector('svg.machine');
          return { gate: svg?.getAttribute('data-gate') ?? '', width: svg?.getBoundingClientRect().width ?? 0, box: section.clientWidth, scrolls: section.scrollWidth > section.clientWidth };
        }),
      ),
    });
    const fitted = await sizes();
    expect(fitted.diagrams.map((d) => d.gate)).toEqual(vizGates.map((g) => g.name));
    expect(fitted.page).toBeLessThanOrEqual(fitted.window);
    for (const d of fitted.diagrams) {
      expect(d.width, d.gate).toBeGreaterThan(0);
      expect(d.width, d.gate).toBeLessThanOrEqual(d.box);
      expect(d.scrolls, d.gate).toBe(false);
    }
    expect(await page.locator('section h2').first().textContent()).toContain('click the diagram for its full size');
    const natural = Number(await page.locator('svg[data-gate="setup"]').getAttribute('width'));
    expect(natural).toBeGreaterThan(fitted.window);
    await page.locator('svg[data-gate="setup"]').click();
    const full = await sizes();
    const setup = full.diagrams.find((d) => d.gate === 'setup');
    expect(Math.round(setup?.width ?? 0)).toBe(Math.round(natural));
    expect(setup?.scrolls).toBe(true);
    // The page itself stays within the window: the diagram scrolls in its own box.
    expect(full.page).toBeLessThanOrEqual(full.window);
    await page.locator('svg[data-gate="setup"]').click();
    expect((await sizes()).diagrams.find((d) => d.gate === 'setup')?.scrolls).toBe(false);
  }, 60_000);
});
