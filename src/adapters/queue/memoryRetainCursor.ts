/** The retain cursor's in-memory twin: the same contract as `retainCursor.ts`, nothing on disk. */
import type { RetainCursor } from '../../effects/ports/retainCursor.js';

export const createMemoryRetainCursor = (o: { readonly refusal?: string } = {}): RetainCursor => {
  const sets = new Map<string, Set<string>>();
  return {
    path: 'memory:retain-cursors',
    ...(o.refusal === undefined ? {} : { refusal: o.refusal }),
    seen: (sessionId) => sets.get(sessionId) ?? new Set<string>(),
    advance: (sessionId, fingerprints) => {
      const set = sets.get(sessionId) ?? new Set<string>();
      for (const f of fingerprints) set.add(f);
      sets.set(sessionId, set);
    },
  };
};
