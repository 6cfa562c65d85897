import { describe, expect, it } from 'vitest';
import { analyze } from '../../../src/server/search/analyzer.js';
import { FieldIndex } from '../../../src/server/search/fieldIndex.js';
import { fullName } from '../../../src/server/search/names.js';
import { DEFAULT_STAGES, rank } from '../../../src/server/search/ranker.js';

describe('fullName: the nicknames of one name read as one', () => {
  it.each([
    ['kate', 'katherine'],
    ['katie', 'katherine'],
    ['kathy', 'katherine'],
    ['kt', 'katherine'],
    ['katies', 'katherine'],
    ['liz', 'elizabeth'],
    ['mel', 'melanie'],
    ['jon', 'jonathan'],
  ])('%s -> %s', (variant, name) => {
    expect(fullName(variant, false)).toBe(name);
  });

  it('a variant that is also a word is the name only when capitalised, and "Will" not first in its sentence', () => {
    expect(fullName('will', false)).toBe('will');
    expect(fullName('will', true)).toBe('william');
    expect(fullName('rob', false)).toBe('rob');
    expect(analyze('Will you ask Rob if he will rob the bank?')).toEqual(['ask', 'robert', 'rob', 'bank']);
    expect(analyze('Tom: ask Will. Rob said no')).toEqual(['thoma', 'ask', 'william', 'robert', 'sai']);
    // A plural of the word is not the name's possessive.
    expect(fullName('bills', true)).toBe('bills');
    expect(fullName('pizza', false)).toBe('pizza');
  });
});

describe('rank: a question names a friend as the line did not', () => {
  it('"Kate" and "Katie" find the line that said "kt", and other names stay apart', () => {
    const index = new FieldIndex();
    const docs = [
      { id: 'kt', text: 'kt loves ramen, book the place on delancey' },
      { id: 'tom', text: 'and Tom loves sushi, book the place on grand st' },
      { id: 'liz', text: 'Liz got the job at finch' },
    ];
    for (const d of docs) index.add(d);
    const top = (query: string): string | undefined => rank({ index, query, accept: () => true, limit: 10, textOf: (id) => docs.find((d) => d.id === id)?.text ?? '', stages: DEFAULT_STAGES }).hits[0]?.id;
    expect(top('what food does Kate love?')).toBe('kt');
    expect(top('what does katie love')).toBe('kt');
    expect(top('where did Elizabeth get a job?')).toBe('liz');
    expect(top('what food does Tommy love?')).toBe('tom');
    expect(top('what does Tom love')).toBe('tom');
  });
});
