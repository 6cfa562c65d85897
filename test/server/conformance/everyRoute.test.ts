/**
 * Issue 13, finding 7: every operation of the OpenAPI document of each mimicked version
 * answers as a known route (never the router's 404 "Not Found" or 405), and what it answers
 * validates strictly against that document (unknown keys refused; errors are `{"detail"}`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../helpers/embeddedServer.js';
import type { TestServer } from '../../helpers/embeddedServer.js';
import { createChecker, spec0_10Path, specPath } from './openapi.js';
import type { Mimic } from '../../../src/server/context.js';

const SOME_UUID = '7d1e8c3a-5b2f-4e6d-8a9c-0f1e2d3c4b5a';
const fill = (template: string): string => template.replaceAll('{bank_id}', 'every-route').replace(/\{[a-z_]+\}/g, SOME_UUID);

for (const mode of [
  { mimic: '0.9' as Mimic, file: specPath },
  { mimic: '0.10' as Mimic, file: spec0_10Path },
]) {
  describe(`--mimic ${mode.mimic}: every operation of its OpenAPI document is a known route`, () => {
    const checker = createChecker(mode.file, { strict: true });
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ persist: false, mimic: mode.mimic });
    });
    afterAll(async () => {
      await server.dispose();
    });

    const operations = Object.entries(checker.spec.paths).flatMap(([template, ops]) => Object.keys(ops).map((method) => ({ template, method: method.toUpperCase() })));

    it('the document has the operations the issue counts', () => {
      expect(operations.length).toBe(89);
    });

    for (const { template, method } of operations) {
      it(`${method} ${template}`, async () => {
        const path = fill(template);
        const withBody = method !== 'GET' && method !== 'DELETE';
        const res = await fetch(`${server.url}${path}`, {
          method,
          ...(withBody ? { headers: { 'Content-Type': 'application/json' }, body: '{}' } : {}),
        });
        const text = await res.text();
        expect(res.status, text).not.toBe(405);
        expect({ status: res.status, text }).not.toEqual({ status: 404, text: '{"detail":"Not Found"}' });
        const json = res.headers.get('content-type')?.startsWith('application/json') === true;
        if (json && res.status !== 422) expect(checker.checkResponse(method, path, res.status, JSON.parse(text) as unknown)).toBeUndefined();
      });
    }
  });
}
