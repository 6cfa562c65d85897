/**
 * A `*` wildcard matched without a regex: `^.*a.*a.*a…$` backtracks in time that grows as a
 * power of the number of stars (12 stars against a 40-letter tag froze the server's one event
 * loop for every bank). The first part must start the text, the last end it, and each part
 * between is taken at its first place after the one before: for `*` alone the earliest place
 * never loses a match, so each part is looked for once.
 */
export interface Wildcard {
  readonly test: (text: string) => boolean;
}

export const wildcard = (pattern: string, { ignoreCase = false }: { readonly ignoreCase?: boolean } = {}): Wildcard => {
  const fold = (text: string): string => (ignoreCase ? text.toLowerCase() : text);
  const parts = fold(pattern).split('*');
  const first = parts[0] ?? '';
  const last = parts.length > 1 ? (parts[parts.length - 1] ?? '') : undefined;
  const middle = parts.slice(1, -1);
  return {
    test: (raw) => {
      const text = fold(raw);
      if (last === undefined) return text === first;
      if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
      let at = first.length;
      const end = text.length - last.length;
      for (const part of middle) {
        const found = text.indexOf(part, at);
        if (found < 0 || found + part.length > end) return false;
        at = found + part.length;
      }
      return true;
    },
  };
};
