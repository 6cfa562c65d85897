/**
 * The in-memory twin of `IdsPort`: predictable ids (a counter in v4 shape) and a small
 * non-cryptographic digest, so tests can name the ids they expect. Digests differ from
 * production's SHA-256: never persist a twin's digest where production reads it back.
 */
import type { IdsPort } from '../../effects/ports/ids.js';

export interface MemoryIds extends IdsPort {
  /** How many uuids were handed out. */
  readonly issued: number;
}

// FNV-1a, 32-bit, run with eight seeds to fill 64 hex characters.
const fnv1a = (text: string, seed: number): string => {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
};

export const createMemoryIds = (): MemoryIds => {
  let issued = 0;
  return {
    get issued() {
      return issued;
    },
    uuid: () => {
      issued += 1;
      return `00000000-0000-4000-8000-${issued.toString(16).padStart(12, '0')}`;
    },
    digest: (text) => Array.from({ length: 8 }, (_, seed) => fnv1a(text, seed * 0x9e3779b1)).join(''),
  };
};
