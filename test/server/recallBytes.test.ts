/**
 * A recall's answer is the same bytes whether its facts are held as objects (written since the
 * last snapshot) or read back from the segment files after a restart, from the first read or from
 * the record cache, and its Content-Length is its byte length: the read path and the reply's
 * encoding are built for speed, and the conformance suites compare answers byte for byte.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';

const B = '/v1/default/banks/bytes';

// Non-ASCII text (two-, three- and four-byte UTF-8), metadata, tags and context, and one fact
// longer than the store's 64 KiB read buffer, so the buffer grows mid-recall.
const items = [
  { content: 'Zoë moved the café meeting to Thursday; the crème brûlée order stays.', document_id: 'd1', context: 'chat', tags: ['user:zoë'], metadata: { source: 'tëst', turn: '1' } },
  { content: '会议改到星期四。The meeting notes say Thursday too.', document_id: 'd2', tags: ['team'] },
  { content: 'Rocket launch 🚀 on Thursday at dawn, weather permitting 🌤️.', document_id: 'd3', timestamp: '2024-05-02T10:00:00Z' },
  { content: `Thursday ${'long meeting minutes with many words '.repeat(2200)}end.`, document_id: 'd4' },
  { content: 'Plain ASCII: the Thursday standup is cancelled.', document_id: 'd5', metadata: { k: 'v' } },
];

const requests = [
  { query: 'Thursday meeting', types: ['world', 'experience'], max_tokens: 100000 },
  { query: 'café Zoë', types: ['world'], include: { entities: { max_tokens: 500 } } },
  { query: 'rocket launch', types: ['world', 'experience'], budget: 'high', max_tokens: 50 },
];

const recallBytes = async (url: string, body: unknown): Promise<Buffer> => {
  const res = await fetch(`${url}${B}/memories/recall`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
  return bytes;
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'am-recall-bytes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('recall answer bytes', () => {
  it('are the same from facts in memory, from the segment files after a restart, and from the record cache', async () => {
    const first = await startTestServer({ dataDir: dir });
    let held: Buffer[];
    try {
      expect((await call(first, 'POST', `${B}/memories`, { items })).status).toBe(200);
      held = [];
      for (const r of requests) held.push(await recallBytes(first.url, r));
    } finally {
      // Closing writes a snapshot: the facts move into a segment file.
      await first.close();
    }
    const second = await startTestServer({ dataDir: dir });
    try {
      for (const [i, r] of requests.entries()) {
        const stored = await recallBytes(second.url, r);
        const cached = await recallBytes(second.url, r);
        expect(stored.toString('utf8')).toBe(held[i]?.toString('utf8'));
        expect(cached.equals(stored)).toBe(true);
      }
      // The answer really holds the stored text, its long fact and its non-ASCII characters.
      const answer: unknown = JSON.parse((await recallBytes(second.url, requests[0])).toString('utf8'));
      const text = JSON.stringify(answer);
      for (const word of ['crème brûlée', '会议改到星期四', '🚀', 'tëst', 'long meeting minutes with many words long meeting']) expect(text).toContain(word);
    } finally {
      await second.close();
    }
  });
});
