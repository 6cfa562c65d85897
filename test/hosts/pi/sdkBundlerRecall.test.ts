/**
 * The new user's first check of recall (issue 14), through the real pi host in-process on the
 * embedded server: session 1 states a decision; session 2 asks for it in other words ("bundler"
 * for rollup) and the first model call receives a recall block naming rollup. The precision
 * floor must let a real match through in a bank of a few memories.
 */
import { describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from '@mariozechner/pi-ai';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { piAi } from './hostLine.js';
import { openHostSession, RECALL_OPEN, textOf } from './piSdk.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { usePiHost } from '../../helpers/piHostSuite.js';

const { fauxAssistantMessage } = piAi;


describe('pi SDK host: a decision from the last session is recalled when asked in other words', () => {
  const suite = usePiHost({ project: {} });

  it('session 2 asking "Which bundler do we use?" gets rollup injected', async () => {
    suite.faux.setResponses([fauxAssistantMessage('Noted.')]);
    const first = await openHostSession(suite.project, suite.faux);
    await first.session.prompt('We decided to bundle with rollup and to test with vitest.');
    await waitUntil(() => first.holder.runtime?.session.view().context.lastRetain?.outcome === 'queued');
    await first.holder.runtime!.queue!.flush({ deadline: Date.now() + 5_000 });
    expect(first.holder.runtime!.queue!.status().depth).toBe(0);
    await first.close();

    // Retain is asynchronous on the server: wait until the turn is searchable by its own word.
    const client = createMemoryServer({ baseUrl: suite.server.url, timeoutMs: 2_000 });
    await waitUntil(async () => {
      const r = await client.recall('host-test', { query: 'rollup' })();
      return E.isRight(r) && r.right.results.some((hit) => hit.text.includes('rollup'));
    });

    const seen: Context['messages'][] = [];
    suite.faux.setResponses([
      (context: Context) => {
        seen.push(structuredClone(context.messages));
        return fauxAssistantMessage('Rollup.');
      },
    ]);
    const second = await openHostSession(suite.project, suite.faux);
    try {
      await second.session.prompt('Which bundler do we use?');
      await second.holder.runtime!.session.idle();
      expect(seen).toHaveLength(1);
      const blocks = seen[0]!.map(textOf).filter((text) => text.startsWith(RECALL_OPEN));
      expect(blocks).toHaveLength(1);
      expect(blocks[0]).toContain('rollup');
    } finally {
      await second.close();
    }
  }, 30_000);
});
