/**
 * The textbook baselines the recall-quality bench reads the server against, kept apart from
 * the server's own index so a bug there cannot flatter it: Okapi BM25 (k1 1.2, b 0.75) over
 * lower-cased word tokens without English stop words, with or without the Porter stemmer.
 */
import { stemmer } from 'stemmer';
import { STOP_WORDS } from '../../src/server/search/stopwords.js';

const WORD = /[\p{L}\p{N}_]+/gu;

export const okapiTokens = (text: string, stem: boolean): string[] => {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) if (!STOP_WORDS.has(m[0])) out.push(stem ? stemmer(m[0]) : m[0]);
  return out;
};

export interface OkapiIndex {
  search(query: string, limit: number): string[];
}

export const okapiIndex = (docs: readonly { id: string; text: string }[], stem: boolean): OkapiIndex => {
  const tfs = docs.map((d) => {
    const m = new Map<string, number>();
    for (const t of okapiTokens(d.text, stem)) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const lengths = docs.map((d) => okapiTokens(d.text, stem).length);
  const avg = lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const m of tfs) for (const t of m.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return {
    search: (query, limit) => {
      const terms = [...new Set(okapiTokens(query, stem))];
      const scored = docs.map((d, i) => {
        let s = 0;
        for (const t of terms) {
          const tf = tfs[i]?.get(t) ?? 0;
          if (tf === 0) continue;
          const f = df.get(t) ?? 0;
          const idf = Math.log(1 + (n - f + 0.5) / (f + 0.5));
          s += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * (lengths[i] ?? 0)) / avg));
        }
        return { id: d.id, s, i };
      });
      return scored
        .filter((x) => x.s > 0)
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, limit)
        .map((x) => x.id);
    },
  };
};
