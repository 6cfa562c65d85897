/**
 * The automatic recall query: the newest user turn(s), injected memory removed, bounded, and
 * cleaned as a retained turn is (`<private>` regions removed, secrets redacted): the query goes
 * to the memory server before the turn is kept, and a server may log what it is asked.
 */
import { isInjectedMemory, messageText, type HostMessage } from './messages.js';
import { cleanText, withoutPrivate } from './retainProjection.js';

/**
 * Characters before the query's own that are cleaned with it: a secret whose name stands just
 * before the cut (`DB_PASSWORD="…`) is seen whole, and what is cleaned stays bounded whatever
 * the user pasted (the recall has 1.5 s).
 */
const CLEANED_BEFORE_CHARS = 4_096;

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
    .map((m) => withoutPrivate(messageText(m)).trim())
    .filter((text) => text.length > 0);
  const lastUser = turns[turns.length - 1];
  if (lastUser === undefined) return undefined;
  const picked = turns.slice(-(1 + Math.max(0, options.contextTurns)));
  const joined = picked.join('\n\n');
  const cleaned = cleanText(joined.length > options.maxChars + CLEANED_BEFORE_CHARS ? joined.slice(joined.length - options.maxChars - CLEANED_BEFORE_CHARS) : joined);
  // Keep the tail: the newest words say best what the model is about to answer.
  const text = cleaned.length > options.maxChars ? cleaned.slice(cleaned.length - options.maxChars).trimStart() : cleaned;
  return { text, lastUser };
};
