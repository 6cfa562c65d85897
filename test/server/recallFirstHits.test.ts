import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/effects/ports/clock.js';
import type { ServerContext } from '../../src/server/context.js';
import { AuditLog } from '../../src/server/features/auditLog.js';
import { WebhookDispatcher } from '../../src/server/features/webhooks.js';
import { FaultSet } from '../../src/server/faults.js';
import { createForeground } from '../../src/server/foreground.js';
import { createOperationRunner } from '../../src/server/operations.js';
import { runRecall } from '../../src/server/recall/recall.js';
import { planRetain } from '../../src/server/retain/plan.js';
import { createSearchIndexes } from '../../src/server/search/indexes.js';
import { openStore, type ServerStore } from '../../src/server/store/store.js';
import type { RecallRequest } from '../../src/wire/hindsight.js';

// A plain recall ranks its first 200 hits and ranks the whole limit (600 at budget mid) only when
// max_tokens outlasts them (runRecall FIRST_HITS). A recall with `trace: true` always ranks the
// whole limit, so its results are what every plain recall must return.

const WORDS = ['deploy', 'pipeline', 'cache', 'schema', 'release', 'rollback', 'index', 'queue', 'worker', 'backup'];
const FACTS = 900;

let store: ServerStore;
let server: ServerContext;

beforeAll(async () => {
  store = await openStore();
  const faults = new FaultSet();
  const nowIso = (): string => new Date().toISOString();
  const search = createSearchIndexes(store);
  const foreground = createForeground();
  const operations = createOperationRunner({ store, faults, delayMs: 0, nowIso, newId: () => crypto.randomUUID(), foreground });
  server = { store, search, operations, foreground, faults, clock: systemClock, mimic: '0.9', apiVersion: '0.9.1', nowIso, audit: new AuditLog(), webhooks: new WebhookDispatcher() };
  let n = 0;
  // Short notes that share words, so most queries match hundreds of them with many equal scores;
  // a third say how long something took (a duration, what "how long" asks for), the longer ones
  // rank lower, so the answer-type boost lifts some from below the first 200.
  const items = Array.from({ length: FACTS }, (_, i) => ({
    content: `${WORDS[i % WORDS.length] ?? ''} ${WORDS[(i * 7) % WORDS.length] ?? ''} note ${i} ${i % 3 === 0 ? `took ${(i % 50) + 1} minutes after the ${WORDS[(i * 3) % WORDS.length] ?? ''} check` : 'went fine'}`,
    document_id: `doc-${i}`,
  }));
  const plan = planRetain({ bankId: 'b', bank: undefined, items, documentTags: [], now: 1_700_000_000_000, newId: () => `f-${(n += 1)}`, appendSupported: true });
  await store.commit(plan.mutations);
});

afterAll(async () => {
  await store.close();
});

const recall = (request: RecallRequest): { results: { id: string; scores: unknown }[] } =>
  runRecall(server, 'b', { request, types: ['world', 'experience', 'observation'] }) as { results: { id: string; scores: unknown }[] };

/** The results of the same request ranked over the whole limit (the trace asks for every hit). */
const whole = (request: RecallRequest): unknown => recall({ ...request, trace: true }).results;

describe('recall ranks its first hits, then the whole limit only when needed', () => {
  it('returns what the whole ranking returns when max_tokens stops the walk early', () => {
    const request = { query: 'deploy pipeline', max_tokens: 300 };
    const { results } = recall(request);
    expect(results.length).toBeGreaterThan(10);
    expect(results.length).toBeLessThan(200);
    expect(results).toEqual(whole(request));
  });

  it('ranks the whole limit when max_tokens outlasts the first hits: more than 200 results, the same as the whole ranking', () => {
    const request = { query: 'deploy pipeline cache note', max_tokens: 100_000 };
    const { results } = recall(request);
    expect(results.length).toBeGreaterThan(200);
    expect(results.length).toBeLessThanOrEqual(600);
    expect(results).toEqual(whole(request));
  });

  it('ranks the whole limit at once when the answer-type stage runs (its boost depends on the limit)', () => {
    const request = { query: 'how long did the deploy pipeline check take', max_tokens: 2_500 };
    const { results } = recall(request);
    // Fewer than the first 200, where a ranking of 200 and one of 600 already differ.
    expect(results.length).toBeGreaterThan(120);
    expect(results.length).toBeLessThan(200);
    expect(results).toEqual(whole(request));
  });

  it('gives every plain recall the whole ranking\'s results (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...WORDS, 'note', 'minutes', 'how', 'long', 'took'), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(50, 500, 4096, 20_000),
        fc.constantFrom<RecallRequest['budget']>('low', 'mid', 'high'),
        (words, maxTokens, budget) => {
          const request = { query: words.join(' '), max_tokens: maxTokens, ...(budget === undefined ? {} : { budget }) };
          expect(recall(request).results).toEqual(whole(request));
        },
      ),
      { numRuns: 60 },
    );
  });
});
