/**
 * Issue 13, finding 1 (security): every retained item of a batch is its own memory with its
 * own tags, so no tag filter ever lets one item's text out under another item's tags, whether
 * the items share a document or not.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer } from '../helpers/embeddedServer.js';
import type { TestServer } from '../helpers/embeddedServer.js';

const B = '/v1/default/banks';
type Mode = 'any' | 'all' | 'any_strict' | 'all_strict' | 'exact';

/** Reference 2.2, written out independently of the server's own tag filter. */
const visible = (filter: readonly string[], mode: Mode, tags: readonly string[]): boolean => {
  const overlap = filter.some((t) => tags.includes(t));
  const covers = filter.every((t) => tags.includes(t));
  switch (mode) {
    case 'any':
      return tags.length === 0 || overlap;
    case 'all':
      return tags.length === 0 || covers;
    case 'any_strict':
      return tags.length > 0 && overlap;
    case 'all_strict':
      return tags.length > 0 && covers;
    case 'exact':
      return tags.length === filter.length && covers;
  }
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
});

const recallTexts = async (bank: string, body: Record<string, unknown>): Promise<string[]> => {
  const res = await call(server, 'POST', `${B}/${bank}/memories/recall`, body);
  expect(res.status).toBe(200);
  return (res.body.results as { text: string }[]).map((r) => r.text);
};

describe('per-item memories', () => {
  it('replays upstream test_recall_with_multiple_tags_uses_or_matching: Karl never comes back for [ivan, julia]', async () => {
    const bank = 'vis-ivan';
    const res = await call(server, 'POST', `${B}/${bank}/memories`, {
      items: [
        { content: 'Ivan prefers dark roast coffee in the morning.', tags: ['user_ivan'], context: 'ivan chat', timestamp: '2024-01-01T10:00:00Z' },
        { content: 'Julia prefers green tea in the morning.', tags: ['user_julia'], context: 'julia chat', timestamp: '2024-02-01T10:00:00Z' },
        { content: 'Karl prefers hot chocolate in the morning.', tags: ['user_karl'], context: 'karl chat', timestamp: '2024-03-01T10:00:00Z' },
      ],
    });
    expect(res.status).toBe(200);
    for (const mode of ['any', 'any_strict'] as const) {
      const texts = await recallTexts(bank, { query: 'what does everyone prefer in the morning', tags: ['user_ivan', 'user_julia'], tags_match: mode });
      expect(texts.join('\n')).toContain('Ivan');
      expect(texts.join('\n')).toContain('Julia');
      expect(texts.join('\n')).not.toContain('Karl');
    }
    const items = (await call(server, 'GET', `${B}/${bank}/memories/list?type=world`)).body.items as Record<string, unknown>[];
    const karl = items.find((i) => String(i['text']).startsWith('Karl'));
    expect(karl).toMatchObject({ tags: ['user_karl'], context: 'karl chat', mentioned_at: '2024-03-01T10:00:00.000+00:00' });
    expect(String(karl?.['entities'])).toContain('Karl');
    expect(items).toHaveLength(3);
  });

  it('for random batches with random tags, recall with any tag filter never returns text of an item the filter excludes', async () => {
    const tagPool = ['t:a', 't:b', 't:c', 't:d'];
    const tagsArb = fc.subarray(tagPool);
    const itemArb = fc.record({ tags: tagsArb, doc: fc.constantFrom(undefined, 'shared', 'other') });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(itemArb, { minLength: 1, maxLength: 8 }),
        fc.array(fc.record({ tags: fc.subarray(tagPool, { minLength: 1 }), mode: fc.constantFrom<Mode>('any', 'all', 'any_strict', 'all_strict', 'exact') }), {
          minLength: 1,
          maxLength: 4,
        }),
        async (items, filters) => {
          run += 1;
          const bank = `vis-prop-${run}`;
          // Each item gets a secret word of its own; the shared word makes every item a hit.
          const secret = (i: number): string => `secret${i}word`;
          const res = await call(server, 'POST', `${B}/${bank}/memories`, {
            items: items.map((item, i) => ({
              content: `shared note number ${i} holds ${secret(i)}`,
              tags: item.tags,
              ...(item.doc === undefined ? {} : { document_id: item.doc }),
            })),
          });
          expect(res.status).toBe(200);
          for (const filter of filters) {
            const texts = (await recallTexts(bank, { query: 'shared note', tags: filter.tags, tags_match: filter.mode, max_tokens: 100000 })).join('\n');
            items.forEach((item, i) => {
              if (!visible(filter.tags, filter.mode, item.tags)) expect(texts).not.toContain(secret(i));
            });
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
