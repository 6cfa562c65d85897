/** The retain cursor's in-memory twin: the same contract as `retainCursor.ts`, nothing on disk. */
import type { RetainCursor } from '../../effects/ports/retainCursor.js';

export const createMemoryRetainCursor = (o: { readonly refusal?: string } = {}): RetainCursor => {
  const sets = new Map<string, Set<string>>();
  const queued = new Map<string, Set<string>>();
  const add = (into: Map<string, Set<string>>, sessionId: string, fingerprints: readonly string[]): void => {
    const set = into.get(sessionId) ?? new Set<string>();
    for (const f of fingerprints) set.add(f);
    into.set(sessionId, set);
  };
  return {
    path: 'memory:retain-cursors',
    ...(o.refusal === undefined ? {} : { refusal: o.refusal }),
    seen: (sessionId) => sets.get(sessionId) ?? new Set<string>(),
    retained: (sessionId) => queued.get(sessionId) ?? new Set<string>(),
    advance: (sessionId, fingerprints, _now, outcome) => {
      add(sets, sessionId, fingerprints);
      if (outcome === 'queued') add(queued, sessionId, fingerprints);
    },
  };
};
