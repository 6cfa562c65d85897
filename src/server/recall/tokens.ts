/**
 * Token counting for `max_tokens` budgets. Upstream counts with tiktoken cl100k_base; this
 * server has no tokenizer, so it uses the usual estimate of one token per four characters
 * (rounded up, at least one for non-empty text). Deterministic, and close for English prose.
 */
export const countTokens = (text: string): number => (text.length === 0 ? 0 : Math.ceil(text.length / 4));

/** The longest prefix of `text` within `tokens`. */
export const truncateToTokens = (text: string, tokens: number): string => text.slice(0, Math.max(0, tokens * 4));
