import { describe, expect, it } from 'vitest';
import { analyze } from '../../../src/server/search/analyzer.js';
import { verbOfPast } from '../../../src/server/search/irregularForms.js';
import { americanSpelling } from '../../../src/server/search/spelling.js';

describe('British spellings meet American ones', () => {
  it.each([
    ['authorisation', 'authorization'],
    ['organised', 'organized'],
    ['prioritising', 'prioritizing'],
    ['summarise', 'summarize'],
    ['analysed', 'analyzed'],
    ['colourful', 'colorful'],
    ['favourite', 'favorite'],
    ['neighbourhood', 'neighborhood'],
    ['centres', 'centers'],
    ['theatre', 'theater'],
  ])('%s is %s', (british, american) => {
    expect(americanSpelling(british)).toBe(american);
    expect(analyze(british)).toEqual(analyze(american));
  });

  it.each(['promise', 'promised', 'exercise', 'surprising', 'advertising', 'noise', 'praise', 'cruise', 'otherwise', 'likewise', 'precise', 'rise', 'rising', 'raised', 'paradise', 'premises', 'expertise', 'hour', 'four', 'tour', 'your', 'crisis', 'analysis'])(
    'leaves %s alone (no -ize spelling)',
    (word) => {
      expect(americanSpelling(word)).toBe(word);
    },
  );
});

describe('irregular past forms meet their verb', () => {
  it.each([
    ['kept', 'keep'],
    ['went', 'go'],
    ['gone', 'go'],
    ['bought', 'buy'],
    ['taught', 'teach'],
    ['wrote', 'write'],
    ['ran', 'run'],
  ])('%s is %s', (past, verb) => {
    expect(verbOfPast(past)).toBe(verb);
    expect(analyze(`Jon ${past} home`)).toEqual(analyze(`Jon ${verb} home`));
  });

  it.each(['rose', 'ground', 'felt', 'left', 'found', 'born', 'saw', 'keep', 'deploy', 'testing'])('leaves %s alone', (word) => {
    expect(verbOfPast(word)).toBe(word);
  });
});
