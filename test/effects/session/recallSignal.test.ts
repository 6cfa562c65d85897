import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { defaultConfigTemplate, type MemoryConfig } from '../../../src/config/fields.js';
import { resolveScope } from '../../../src/config/scope.js';
import { createMemoryTwin } from '../../../src/adapters/server/memoryTwin.js';
import { systemClock } from '../../../src/effects/ports/clock.js';
import { createRecaller, sidecarOf } from '../../../src/effects/session/recall.js';
import type { HostMessage } from '../../../src/effects/session/messages.js';

const config = { ...defaultConfigTemplate(), projectBankId: 'coding', projectId: 'proj' } as MemoryConfig;
const scope = resolveScope(config, { cwd: '/work/proj', repoRoot: '/work/proj' });
const ask = (text: string): HostMessage[] => [{ role: 'user', content: [{ type: 'text', text }], timestamp: 1 }];

describe('recall and the host abort signal', () => {
  it('leaves no listener on the signal of a run with many model calls', async () => {
    const recaller = createRecaller({ server: createMemoryTwin(), clock: systemClock, cacheTtlMs: 0 });
    const run = new AbortController();
    for (let i = 0; i < 25; i += 1) {
      const outcome = await recaller.recall({ messages: ask(`How do we deploy service ${i}?`), scope, config, signal: run.signal });
      expect(['empty', 'injected']).toContain(outcome._tag);
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it('an aborted signal stops the recall before anything is asked', async () => {
    const server = createMemoryTwin();
    const recaller = createRecaller({ server, clock: systemClock });
    const outcome = await recaller.recall({ messages: ask('How do we deploy?'), scope, config, signal: AbortSignal.abort() });
    expect(outcome._tag).toBe('aborted');
    expect(server.calls.filter((c) => c.op === 'recall')).toHaveLength(0);
  });
});

describe('sidecarOf', () => {
  it('redacts the query and the block the report carries raw', () => {
    const secret = 'sk-ant-api03-' + 'a'.repeat(40);
    const report = { at: '2026-01-01T00:00:00.000Z', query: `deploy with key ${secret}`, banks: [], renderedLength: 10, removedCharacters: 0, cached: false, block: `token=${secret}` };
    const stored = sidecarOf(report);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(stored.query).toContain('[REDACTED]');
    expect(stored.renderedLength).toBe(10);
  });
});
