/**
 * A deterministic synthetic corpus for benchmarks and demos: pseudo-words with a Zipf-like
 * frequency, facts of 12-30 words, a few tags each, and queries drawn from the same
 * vocabulary. Seeded, so every run measures the same data.
 */
export interface SyntheticItem {
  readonly content: string;
  readonly document_id: string;
  readonly tags: string[];
}

/** mulberry32: small, fast, good enough for test data. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tu', 'sha', 'vo', 'ne', 'pi', 'dor', 'qua', 'zel', 'fi', 'gar', 'hu', 'ix'];

export const vocabulary = (size: number, random: () => number): string[] => {
  const words = new Set<string>();
  while (words.size < size) {
    const n = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < n; i += 1) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)] ?? '';
    words.add(w);
  }
  return [...words];
};

export interface Corpus {
  readonly items: (count: number, offset?: number) => SyntheticItem[];
  readonly query: () => string;
}

export const syntheticCorpus = (seed = 42, vocabularySize = 20_000): Corpus => {
  const random = seededRandom(seed);
  const words = vocabulary(vocabularySize, random);
  // Zipf-like: index = floor(size * u^3) makes low indexes common and the tail rare.
  const word = (): string => words[Math.floor(words.length * random() ** 3)] ?? 'x';
  const tags = ['user:alice', 'user:bob', 'team', 'repo:core', 'repo:web', 'kind:decision', 'kind:bug', 'kind:note'];
  return {
    items: (count, offset = 0) =>
      Array.from({ length: count }, (_, i) => {
        const n = 12 + Math.floor(random() * 19);
        const text = Array.from({ length: n }, word).join(' ');
        const tagCount = Math.floor(random() * 3);
        return {
          content: text,
          document_id: `doc-${offset + i}`,
          tags: Array.from({ length: tagCount }, () => tags[Math.floor(random() * tags.length)] ?? 'team').filter((t, j, a) => a.indexOf(t) === j),
        };
      }),
    query: () => Array.from({ length: 3 }, word).join(' '),
  };
};
