/**
 * Key terms of a text, for grouping facts without an LLM: lowercase word tokens with
 * stopwords, numbers and very short tokens removed, and a light plural fold so
 * "deploys" and "deploy" land in one group.
 */

// Common English function words plus words that carry no topic in agent transcripts.
const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing done down during each few for from further get got had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just let me more most my myself no nor not now of off on once only or other our ours ' +
    'ourselves out over own same she should so some such than that the their theirs them themselves then there these they this those ' +
    'through to too under until up use used uses using very via was we were what when where which while who whom why will with would ' +
    'you your yours yourself yourselves one two new like need needs make makes made want wants way ok yes'
  ).split(' '),
);

// Anything that is not an ASCII letter, digit or underscore, or a non-ASCII character
// (treated as a letter), separates words. A plain class keeps this fast on big banks.
const SEPARATORS = /[^a-z0-9_\u00c0-\uffff]+/;
const NUMBER = /^\d+$/;

/** Folds a simple English plural (`tests` → `test`, `queries` → `query`), leaving `ss` words alone. */
const foldPlural = (word: string): string => {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) {
    return word.slice(0, -1);
  }
  return word;
};

/** Lowercase tokens of `text` in order of appearance (duplicates kept). */
export const tokens = (text: string): string[] => text.toLowerCase().split(SEPARATORS).filter((t) => t.length > 0);

/** Distinct key terms of `text`, in order of first appearance. */
export const keyTerms = (text: string): string[] => {
  const seen = new Set<string>();
  for (const token of text.toLowerCase().split(SEPARATORS)) {
    if (token.length < 3 || STOPWORDS.has(token) || NUMBER.test(token)) continue;
    seen.add(foldPlural(token));
  }
  return [...seen];
};

/** Splits text into sentences (on `.`, `!`, `?` or newlines followed by space), trimmed, non-empty. */
export const sentences = (text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((s) => s.trim().replace(/^[-*•]\s+/u, ''))
    .filter((s) => s.length > 0);

/** Rough token count (cl100k averages about four characters a token on English prose). */
export const estimateTokens = (text: string): number => (text.length === 0 ? 0 : Math.ceil(text.length / 4));
