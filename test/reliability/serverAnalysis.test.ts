/**
 * Attack: a quadratic path in the embedded server (issue 26, item 6). One retain of 400 KB of
 * dash-joined Title-Case words was extracted as one 400 KB "name" that every one of the item's
 * 133 chunks analysed again (34-39 s), and every other bank's recall waited behind it. The real
 * server over HTTP: while that retain runs on one bank, another bank's recall answers within
 * the automatic recall's order of deadline (10 s allowed here against 34 s before), the retain
 * completes, and no stored entity is longer than a name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENTITY_CHARS } from '../../src/server/retain/entities.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { titleCase } from '../helpers/titleCase.js';

describe('one bank cannot stall another through a quadratic analysis (real server)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    expect((await call(server, 'POST', '/v1/default/banks/quiet/memories', { items: [{ content: 'The quiet bank deploys with rollup.' }], async: false })).status).toBe(200);
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('400 KB of dash-joined Title-Case words on one bank: another bank recalls meanwhile, the retain completes, entities stay name-sized', async () => {
    const retain = call(server, 'POST', '/v1/default/banks/noisy/memories', { items: [{ content: titleCase(400_000) }], async: false });
    // Let the retain's request reach the server before the other bank asks.
    await new Promise((r) => setTimeout(r, 200));
    const recall = call(server, 'POST', '/v1/default/banks/quiet/memories/recall', { query: 'how does the quiet bank deploy' });
    const answered = await Promise.race([recall.then((r) => r.status), new Promise<string>((r) => setTimeout(() => r('still waiting after 10 s'), 10_000))]);
    expect(answered).toBe(200);
    expect((await retain).status).toBe(200);
    const entities = await call(server, 'GET', '/v1/default/banks/noisy/entities?limit=1000');
    const names = ((entities.body.items as { canonical_name?: string; name?: string }[] | undefined) ?? []).map((e) => e.canonical_name ?? e.name ?? '');
    for (const name of names) expect(name.length).toBeLessThanOrEqual(MAX_ENTITY_CHARS);
  }, 120_000);
});
