/**
 * Round 10: the memory browser's POST bodies nested without bound. `readJson` parsed any depth
 * and each route's codec (and its error text) recursed: a body 200,000 arrays deep answered 500
 * "Maximum call stack size exceeded" where the embedded server's own bodies are refused by
 * nesting (round 8). Now a body nested deeper than 128 levels is refused (400) before it is
 * parsed. A `__proto__` body changes no prototype (held before). The real `ui` server over HTTP.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../src/hosts/ui/uiServer.js';

const ROUTES = ['/ui/api/recall', '/ui/api/memory/edit', '/ui/api/memory/invalidate', '/ui/api/memory/restore', '/ui/api/memory/delete', '/ui/api/dead-letters/requeue', '/ui/api/dead-letters/drop'];

let ui: UiServer;
let base = '';

beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-bodies-'));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  ui = await startUiServer({ cwd, env: { HOME: home } });
  base = ui.url.replace(/\/ui\/#token=.*$/, '');
});
afterAll(async () => {
  await ui?.close();
});

const post = async (route: string, body: string): Promise<{ status: number; text: string }> => {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-agent-memory-token': ui.token }, body });
  return { status: res.status, text: await res.text() };
};

describe("the memory browser's POST bodies", () => {
  it('a body 200,000 arrays or 100,000 objects deep is refused by nesting on every POST route', async () => {
    const bodies = [`${'['.repeat(200_000)}${']'.repeat(200_000)}`, `{"id":"x","query":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`];
    for (const route of ROUTES) {
      for (const body of bodies) {
        const answer = await post(route, body);
        expect(answer.status, `${route}: ${answer.text.slice(0, 120)}`).toBe(400);
        expect(answer.text).toContain('nested deeper than 128 levels');
      }
    }
    // Ordinary nesting still reaches the route (which refuses the fields by name).
    const shallow = await post('/ui/api/memory/delete', JSON.stringify({ a: [[[{ b: 1 }]]] }));
    expect(shallow.status).toBe(400);
    expect(shallow.text).toContain('field id');
  }, 60_000);

  it('a __proto__ body changes no prototype', async () => {
    await post('/ui/api/memory/delete', '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
