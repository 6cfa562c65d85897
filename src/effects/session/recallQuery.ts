/** The automatic recall query: the newest user turn(s), injected memory removed, bounded. */
import { isInjectedMemory, messageText, type HostMessage } from './messages.js';

export interface RecallQueryOptions {
  /** Earlier user turns folded in besides the last one (config recallContextTurns). */
  readonly contextTurns: number;
  /** Longest query sent (config recallMaxQueryChars, 800). */
  readonly maxChars: number;
}

export interface RecallQuery {
  readonly text: string;
  /** The last user message's text: what a cache hit is keyed on. */
  readonly lastUser: string;
}

/** `undefined` when there is no user text to look up (nothing is sent then). */
export const recallQuery = (messages: readonly HostMessage[], options: RecallQueryOptions): RecallQuery | undefined => {
  const turns = messages
    .filter((m) => m.role === 'user' && !isInjectedMemory(m))
    .map((m) => messageText(m).trim())
    .filter((text) => text.length > 0);
  const lastUser = turns[turns.length - 1];
  if (lastUser === undefined) return undefined;
  const picked = turns.slice(-(1 + Math.max(0, options.contextTurns)));
  let text = picked.join('\n\n');
  // Keep the tail: the newest words say best what the model is about to answer.
  if (text.length > options.maxChars) text = text.slice(text.length - options.maxChars).trimStart();
  return { text, lastUser };
};
