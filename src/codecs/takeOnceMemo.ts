/**
 * A bounded memo of values made from large texts, each taken once: something costly made from a
 * text (its digest, its JSON encoding) is remembered where the same text is known to come back
 * soon (an import's document, hashed and encoded when queued and again when sent), and
 * forgotten when taken. Oldest first; a text of another length is told apart by `===` at once,
 * an equal one is compared whole, which costs far less than making the value again.
 */
export interface TakeOnceMemo<V> {
  /** The value remembered for a text equal to `text`, forgotten as it is taken. */
  take(text: string): V | undefined;
  /** Remembers `value` for `text` (texts shorter than `minChars` or longer than `maxChars` are not). */
  put(text: string, value: V): void;
  /** How many texts are remembered now (tests). */
  size(): number;
}

export interface MemoLimits {
  readonly minChars: number;
  readonly maxTexts: number;
  /** The characters of all remembered texts together, and the longest one remembered. */
  readonly maxChars: number;
}

export const takeOnceMemo = <V>({ minChars, maxTexts, maxChars }: MemoLimits): TakeOnceMemo<V> => {
  let entries: { readonly text: string; readonly value: V }[] = [];
  let chars = 0;
  return {
    take: (text) => {
      if (text.length < minChars || entries.length === 0) return undefined;
      const at = entries.findIndex((entry) => entry.text === text);
      const entry = entries[at];
      if (entry === undefined) return undefined;
      entries.splice(at, 1);
      chars -= text.length;
      return entry.value;
    },
    put: (text, value) => {
      if (text.length < minChars || text.length > maxChars) return;
      entries.push({ text, value });
      chars += text.length;
      let drop = 0;
      while (entries.length - drop > maxTexts || chars > maxChars) {
        chars -= entries[drop]?.text.length ?? 0;
        drop += 1;
      }
      if (drop > 0) entries = entries.slice(drop);
    },
    size: () => entries.length,
  };
};
