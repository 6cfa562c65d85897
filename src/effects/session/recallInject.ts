/**
 * Where the block goes, and keeping it byte-stable. The block is inserted as a user message
 * just before the last user message: late in the prompt, so the cached prefix before it
 * holds, and read by the model together with the question it is about.
 */
import type { HostMessage } from './messages.js';
import { isInjectedMemory } from './messages.js';

export interface InjectedBlock {
  readonly text: string;
  /** First-seen time of this block: reused on every hit so the message bytes never change. */
  readonly timestamp: number;
}

/** A copy of `messages` with earlier injections removed and `block` before the last user message. */
export const injectBlock = <M extends HostMessage>(messages: readonly M[], block: InjectedBlock): M[] => {
  const kept = messages.filter((m) => !isInjectedMemory(m));
  let lastUser = -1;
  for (let i = kept.length - 1; i >= 0; i -= 1) {
    if (kept[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  }
  const message = { role: 'user', content: [{ type: 'text', text: block.text }], timestamp: block.timestamp } as unknown as M;
  const at = lastUser === -1 ? kept.length : lastUser;
  return [...kept.slice(0, at), message, ...kept.slice(at)];
};

/**
 * The last rendered block per query key, for `ttlMs`. One entry is enough: every model call
 * of a run asks with the same last user message, and a new prompt replaces the key.
 */
export interface RecallCache {
  get(key: string, now: number): InjectedBlock | undefined;
  set(key: string, block: InjectedBlock, now: number): void;
  clear(): void;
}

export const createRecallCache = (ttlMs: number): RecallCache => {
  let entry: { key: string; block: InjectedBlock; storedAt: number } | undefined;
  return {
    get: (key, now) => (entry !== undefined && entry.key === key && now - entry.storedAt <= ttlMs ? entry.block : undefined),
    set: (key, block, now) => {
      entry = { key, block, storedAt: now };
    },
    clear: () => {
      entry = undefined;
    },
  };
};

/** The cache key: the banks asked and the last user message, not the transcript length. */
export const recallCacheKey = (bankIds: readonly string[], lastUser: string): string => `${bankIds.join(',')}|${lastUser}`;
