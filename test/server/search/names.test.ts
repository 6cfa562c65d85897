import { describe, expect, it } from 'vitest';
import { analyze } from '../../../src/server/search/analyzer.js';
import { FieldIndex } from '../../../src/server/search/fieldIndex.js';
import { attributionOf } from '../../../src/server/search/attribution.js';
import { fullName, nameSkeleton, participantFor } from '../../../src/server/search/names.js';
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

describe('participantFor: a name written another way than the bank writes its participant', () => {
  const people = ['John', 'Caroline', 'Melanie', 'Gina'];

  it('a short form the name begins with, or the same skeleton of consonants', () => {
    expect(nameSkeleton('john')).toBe('jn');
    expect(nameSkeleton('jon')).toBe('jn');
    expect(participantFor('Jon', people)).toBe('John');
    expect(participantFor('Caro', people)).toBe('Caroline');
    expect(participantFor('caro', people)).toBe('Caroline');
    expect(participantFor('Mellanie', people)).toBe('Melanie');
  });

  it('not a month or a day, not another opening, not two letters, not a name as near to two participants', () => {
    expect(participantFor('June', people)).toBeUndefined();
    expect(participantFor('Jean', people)).toBeUndefined();
    expect(participantFor('Jo', people)).toBeUndefined();
    expect(participantFor('Mel', ['Melanie', 'Melissa'])).toBeUndefined();
    expect(participantFor('John', people)).toBeUndefined();
  });
});

describe('rank: a question names a participant as the bank does not', () => {
  const lines = [
    ['c1', 'Caroline: I went to the pottery class on Friday, made a bowl'],
    ['c2', 'Caroline: my bowl cracked in the kiln though'],
    ['g1', 'Gina: I went to the pottery fair and bought a vase'],
    ['g2', 'Gina: the vase is blue, love it'],
  ] as const;
  const index = new FieldIndex();
  for (const [id, text] of lines) index.add({ id, text, ...attributionOf(text) });
  const ranked = (query: string) => rank({ index, query, accept: () => true, limit: 10, textOf: (id) => lines.find((l) => l[0] === id)?.[1] ?? '', stages: DEFAULT_STAGES });

  it('"Caro" is read as Caroline: her lines first, and the speakers stage names her', () => {
    const r = ranked('what did Caro make at pottery?');
    expect(r.participants).toEqual(['Caroline']);
    expect(r.hits[0]?.id).toBe('c1');
    // A word the bank has stays as written: "Gina" is no one else.
    expect(ranked('what did Gina buy at the pottery fair?').participants).toEqual(['Gina']);
  });
});

describe('rank: a participant called by a short form the bank also has', () => {
  // Chat calls Callum "cal", in lines of their own: the bank has the word because that is how he is spoken to.
  const lines = [
    ['n1', 'Nia: cal'],
    ['n2', 'Nia: CAL'],
    ['n3', 'Nia: cal did u meet the new neighbour yet'],
    ['c1', 'Callum: mum brought graham round for tea so we have met him'],
    ['c2', 'Callum: he is fine, a retired postman'],
    ['n4', 'Nia: graham sounds nice'],
  ] as const;
  const index = new FieldIndex();
  lines.forEach(([id, text], i) => index.add({ id, text, thread: 's1', order: i * 60_000, ...attributionOf(text) }));
  const ranked = (query: string) => rank({ index, query, accept: () => true, limit: 10, textOf: (id) => lines.find((l) => l[0] === id)?.[1] ?? '', stages: DEFAULT_STAGES });

  it('"cal" is read as Callum: his line answers, not the lines that only call him', () => {
    const r = ranked('when did cal meet graham');
    expect(r.participants).toEqual(['Callum']);
    expect(r.hits.slice(0, 2).map((h) => h.id).sort()).toEqual(['c1', 'c2']);
    expect(r.hits.slice(0, 3).map((h) => h.id)).not.toContain('n1');
  });

  it('an English word stays a word, and a name the bank writes whole stays as written', () => {
    expect(ranked('when did Nia meet graham').participants).toEqual(['Nia']);
    expect(ranked('did the mum meet graham').participants).toEqual([]);
  });
});
