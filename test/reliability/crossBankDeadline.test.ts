/**
 * Attack: one bank's work stalls another's recall (issue 26, item 6). The server is one event
 * loop: a retain of megabytes analysed in one go (entities, chunks, the search index, then
 * the observations) held every other bank's recall for seconds (2 MB of mixed text: 3.8 s;
 * 500 items at once: 4.4 s), past pi's automatic recall deadline. Real server process with a
 * data dir (fsync'd log), big retains on three banks at once, and meanwhile recalls of a quiet
 * bank through the real client adapter with the real deadline (`recallTimeoutMs`, 1.5 s): every
 * one answers in time, every retain is acknowledged and then recalled, and after a restart
 * every acknowledged retain is still there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { defaultConfigTemplate } from '../../src/config/fields.js';
import { call, spawnServerProcess, type ServerProcess } from '../helpers/embeddedServer.js';
import { TITLE_WORDS as WORDS, titleCase } from '../helpers/titleCase.js';

/** Prose with paths, identifiers, numbers and capitalised names: every analysis has work to do. */
const mixed = (chars: number, seed = 0): string => {
  const parts: string[] = [];
  let length = 0;
  for (let i = seed; length < chars; i += 1) {
    const line = `The ${WORDS[i % 10] ?? 'Kilo'} service at src/app${i}/handler.ts calls getUser${i}() with id ${i * 7919}, deployed by ${WORDS[(i * 3) % 10] ?? 'Kilo'} Team on Kubernetes. `;
    parts.push(line);
    length += line.length;
  }
  return parts.join('');
};

describe('one bank never stalls another bank recall past its deadline (real server process, real client)', () => {
  let dataDir: string;
  let server: ServerProcess;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'am-cross-bank-'));
    server = await spawnServerProcess(['--data-dir', dataDir]);
    expect((await call(server, 'POST', '/v1/default/banks/quiet/memories', { items: [{ content: 'The quiet bank deploys with rollup.', document_id: 'quiet' }], async: false })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await server.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('400 KB of Title-Case words, 2 MB of mixed text and 500 items retained at once: every recall of another bank answers within 1.5 s', async () => {
    const deadlineMs = defaultConfigTemplate().recallTimeoutMs;
    expect(deadlineMs).toBe(1500);
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 10_000 });
    // Warm the connection and the quiet bank, as a session's first recall would.
    expect(E.isRight(await client.recall('quiet', { query: 'how does the quiet bank deploy' }, { deadline: Date.now() + 10_000 })())).toBe(true);

    const retains = [
      call(server, 'POST', '/v1/default/banks/noisy-title/memories', { items: [{ content: titleCase(400_000), document_id: 'title' }], async: false }),
      call(server, 'POST', '/v1/default/banks/noisy-mixed/memories', { items: [{ content: mixed(2_000_000), document_id: 'mixed' }], async: false }),
      call(server, 'POST', '/v1/default/banks/noisy-items/memories', {
        items: Array.from({ length: 500 }, (_, i) => ({ content: mixed(4_000, i), document_id: `item-${i}`, tags: [`tag-${i}`] })),
        async: false,
      }),
    ];
    let retainsDone = false;
    const settled = Promise.all(retains).finally(() => (retainsDone = true));

    // Recall the quiet bank while the retains run, and for 3 s after (their observations are
    // consolidated in the background after a 200 ms quiet time).
    const outcomes: string[] = [];
    let doneAt: number | undefined;
    while (doneAt === undefined || Date.now() - doneAt < 3_000) {
      const result = await client.recall('quiet', { query: 'how does the quiet bank deploy' }, { deadline: Date.now() + deadlineMs })();
      outcomes.push(E.isRight(result) ? (result.right.results.some((r) => r.text.includes('rollup')) ? 'answered' : 'answered without the memory') : JSON.stringify(result.left));
      if (retainsDone && doneAt === undefined) doneAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const statuses = (await settled).map((r) => r.status);
    expect(statuses).toEqual([200, 200, 200]);
    expect(outcomes.length).toBeGreaterThan(3);
    expect(outcomes.filter((o) => o !== 'answered'), outcomes.join('\n')).toEqual([]);

    // Each big retain is searchable at once, and survives a restart (acknowledged = fsync'd).
    const recallOf = async (bank: string, query: string): Promise<string> => {
      const r = await call(server, 'POST', `/v1/default/banks/${bank}/memories/recall`, { query });
      return JSON.stringify(r.body);
    };
    const check = async (): Promise<void> => {
      expect(await recallOf('noisy-title', 'Alphaa Bravob')).toContain('Alphaa');
      expect(await recallOf('noisy-mixed', 'getUser1234 handler')).toContain('getUser1234');
      expect(await recallOf('noisy-items', 'getUser499 handler')).toContain('getUser499');
      const items = await call(server, 'GET', '/v1/default/banks/noisy-items/documents?limit=1000');
      expect((items.body as { items: unknown[] }).items).toHaveLength(500);
    };
    await check();
    await server.kill();
    server = await spawnServerProcess(['--data-dir', dataDir]);
    await check();
  }, 300_000);
});
