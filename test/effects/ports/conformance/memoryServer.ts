/** What every `MemoryServer` keeps, whatever backs it: banks, append retain, recall by tag, failures as values. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { MemoryServer } from '../../../../src/effects/ports/memoryServer.js';

const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left)}`);
  return result.right;
};

export const describeMemoryServerConformance = (name: string, make: () => Promise<MemoryServer>): void => {
  describe(`MemoryServer conformance: ${name}`, () => {
    it('reports a bank missing until it is ensured, and ensuring twice is fine', async () => {
      const server = await make();
      const bank = `conf-${Math.random().toString(36).slice(2, 8)}`;
      expect(right(await server.bankExists(bank)())).toBe(false);
      right(await server.ensureBank(bank, { name: bank })());
      right(await server.ensureBank(bank, { name: bank })());
      expect(right(await server.bankExists(bank)())).toBe(true);
    });

    it('recalls what was retained, within the caller tags', async () => {
      const server = await make();
      const bank = `conf-${Math.random().toString(36).slice(2, 8)}`;
      right(await server.ensureBank(bank, { name: bank })());
      right(
        await server.retain(bank, {
          items: [
            { content: 'The deploy script needs the staging kubeconfig.', document_id: 'doc-a', tags: ['project:a'] },
            { content: 'The deploy script of project b uses terraform.', document_id: 'doc-b', tags: ['project:b'] },
          ],
        })(),
      );
      const hits = right(await server.recall(bank, { query: 'deploy script', tags: ['project:a'], tags_match: 'all_strict' })());
      expect(hits.results.length).toBeGreaterThan(0);
      for (const hit of hits.results) expect(hit.tags ?? []).toContain('project:a');
      expect(hits.results.some((hit) => hit.text.includes('kubeconfig'))).toBe(true);
    });

    it('refuses an append without a document id as an invalid request, never a throw', async () => {
      const server = await make();
      const bank = `conf-${Math.random().toString(36).slice(2, 8)}`;
      right(await server.ensureBank(bank, { name: bank })());
      const result = await server.retain(bank, { items: [{ content: 'x', update_mode: 'append' }] })();
      expect(E.isLeft(result) && result.left._tag).toBe('invalidRequest');
    });

    it('advertises its version and append support', async () => {
      const server = await make();
      const caps = right(await server.capabilities()());
      expect(caps.apiVersion).toMatch(/^\d+\.\d+/);
      expect(caps.features.append).toBe(true);
    });
  });
};
