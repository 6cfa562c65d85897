/**
 * Attack (tenth session): one request freezes the embedded server. `GET {bank}/tags?q=` takes a
 * `*` wildcard, which was turned into a regex `^.*a.*a.*a…$`; its backtracking grows as a power
 * of the number of stars (8 stars against a 40-letter tag took 3.8 s, each star more about 3x),
 * and the server is one event loop, so every bank's recall waited behind it. A client with the
 * key (or any local account of a keyless `serve`) stored one long tag and asked with 24 stars.
 * The wildcard is now matched part by part (`src/server/routes/tags.ts`). Against a real
 * `agent-memory serve` process: the request answers, another bank's recall answers beside it,
 * and the wildcard still means what it meant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServerProcess, type ServerProcess } from '../helpers/embeddedServer.js';

const B = '/v1/default/banks';
const LONG_TAG = 'a'.repeat(48);

let server: ServerProcess;
const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: { items?: { tag: string }[]; results?: unknown[] } }> => {
  // A frozen server never answers: the deadline makes that a failure instead of a hang.
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as { items?: { tag: string }[] } };
};
const tags = async (q: string): Promise<string[]> => {
  const res = await call('GET', `${B}/tagged/tags?q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  return (res.body.items ?? []).map((i) => i.tag).sort();
};

beforeAll(async () => {
  server = await spawnServerProcess(['--in-memory', '--no-ui']);
  const stored = await call('POST', `${B}/tagged/memories`, {
    items: [
      { content: 'one', document_id: 'one', tags: [LONG_TAG, 'project:github.com/org/app', 'User:Alice'] },
      { content: 'two', document_id: 'two', tags: ['user:bob', 'team'] },
    ],
  });
  expect(stored.status).toBe(200);
  expect((await call('POST', `${B}/other/memories`, { items: [{ content: 'The deploy runs from the release branch.', document_id: 'd' }] })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await server.kill();
});

describe('a tag wildcard cannot freeze the server', () => {
  it('24 stars against a 48-letter tag: answered, and another bank recalls beside it', async () => {
    const hostile = `*${'a*'.repeat(24)}b`;
    const [matched, recalled] = await Promise.all([tags(hostile), call('POST', `${B}/other/memories/recall`, { query: 'Where does the deploy run from?' })]);
    expect(matched).toEqual([]);
    expect(recalled.status).toBe(200);
    expect(JSON.stringify(recalled.body)).toContain('release branch');
    expect(await tags(`*${'a*'.repeat(24)}`)).toEqual([LONG_TAG]);
  }, 60_000);

  it('the wildcard keeps its meaning: case-blind, anchored at both ends, parts in order, no star a substring', async () => {
    expect(await tags('USER:*')).toEqual(['User:Alice', 'user:bob']);
    expect(await tags('project:*/app')).toEqual(['project:github.com/org/app']);
    expect(await tags('*org*app')).toEqual(['project:github.com/org/app']);
    expect(await tags('*app*org')).toEqual([]);
    expect(await tags('tea')).toEqual(['team']);
    expect(await tags('team*m')).toEqual([]);
    expect(await tags('t*m')).toEqual(['team']);
    expect(await tags('*')).toHaveLength(5);
  }, 60_000);
});
