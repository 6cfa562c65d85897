/**
 * Any JSON body sent to a server-features write route gets a deliberate answer (2xx, 400,
 * 404, 409 or 422 with a `detail`), never a 500, and a refused body changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, startTestServer } from '../../helpers/embeddedServer.js';
import type { TestServer } from '../../helpers/embeddedServer.js';

const B = '/v1/default/banks/fuzz';

// Bodies near the real shapes find more than uniformly random JSON does.
const field = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -10, max: 10_000 }),
  fc.string({ maxLength: 12 }),
  fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('type', 'properties', 'tags', 'match', 'output', 'refresh_cron', 'fact_types'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom('query', 'name', 'content', 'source_query', 'tags', 'tags_match', 'tag_groups', 'trigger', 'max_tokens', 'include', 'response_schema', 'fact_types', 'parent_id', 'priority', 'updates', 'disposition', 'budget'),
    field,
    { maxKeys: 6 },
  ),
);

const ROUTES: readonly [string, string][] = [
  ['POST', `${B}/reflect`],
  ['POST', `${B}/mental-models`],
  ['POST', `${B}/directives`],
  ['POST', `${B}/knowledge-base/pages`],
  ['POST', `${B}/knowledge-base/folders`],
  ['PATCH', `${B}/config`],
  ['PUT', `${B}/profile`],
];

describe('write routes answer any JSON deliberately', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await server.dispose();
  });

  for (const [method, path] of ROUTES) {
    it(`${method} ${path.replace(B, '{b}')}`, async () => {
      await fc.assert(
        fc.asyncProperty(body, async (payload) => {
          const res = await call(server, method, path, payload);
          expect([200, 201, 400, 404, 409, 422]).toContain(res.status);
          if (res.status >= 400) expect(res.body).toHaveProperty('detail');
        }),
        { numRuns: 40 },
      );
      await server.idle();
    });
  }

  it('a refused mental-model body creates nothing', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const before = (await call(server, 'GET', `${B}/mental-models?detail=metadata&limit=1000`)).body.items.length as number;
        const res = await call(server, 'POST', `${B}/mental-models`, payload);
        const after = (await call(server, 'GET', `${B}/mental-models?detail=metadata&limit=1000`)).body.items.length as number;
        expect(after).toBe(res.status === 200 ? before + 1 : before);
      }),
      { numRuns: 40 },
    );
    await server.idle();
  });
});
