/** The retain cursor's in-memory twin: the same contract as `retainCursor.ts`, nothing on disk. */
import type { RetainCursor } from '../../effects/ports/retainCursor.js';

export interface MemoryRetainCursor extends RetainCursor {
  /** Makes the next `advance` fail (a full disk) after moving the in-memory cursor. */
  failNextWrite(reason: string): void;
}

export const createMemoryRetainCursor = (o: { readonly refusal?: string } = {}): MemoryRetainCursor => {
  const sets = new Map<string, Set<string>>();
  let failure: string | undefined;
  return {
    path: 'memory:retain-cursors',
    ...(o.refusal === undefined ? {} : { refusal: o.refusal }),
    seen: (sessionId) => sets.get(sessionId) ?? new Set<string>(),
    advance: (sessionId, fingerprints) => {
      const set = sets.get(sessionId) ?? new Set<string>();
      for (const f of fingerprints) set.add(f);
      sets.set(sessionId, set);
      if (failure !== undefined) {
        const reason = failure;
        failure = undefined;
        throw new Error(reason);
      }
    },
    failNextWrite: (reason) => {
      failure = reason;
    },
  };
};
