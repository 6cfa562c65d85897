import { describe, expect, it } from 'vitest';
import { attributionOf } from '../../../src/server/search/attribution.js';
import { FieldIndex, type IndexedDocument } from '../../../src/server/search/fieldIndex.js';
import { ALL_STAGES, DEFAULT_PARAMS, DEFAULT_STAGES, rank, type RankParams, type RankStages } from '../../../src/server/search/ranker.js';

const MIN = 60_000;

const indexOf = (docs: readonly IndexedDocument[]): { index: FieldIndex; textOf: (id: string) => string } => {
  const index = new FieldIndex();
  const text = new Map<string, string>();
  for (const d of docs) {
    index.add(d);
    text.set(d.id, d.text);
  }
  return { index, textOf: (id) => text.get(id) ?? '' };
};

const ranked = (docs: readonly IndexedDocument[], query: string, stages: RankStages = DEFAULT_STAGES, now?: number, params?: RankParams) => {
  const { index, textOf } = indexOf(docs);
  return rank({ index, query, accept: () => true, limit: 10, textOf, stages, ...(now === undefined ? {} : { now }), ...(params === undefined ? {} : { params }) });
};

/** A transcript line of a chat in sessions of ten turns (`order` counts turns). */
const chatLine = (id: string, text: string, order: number): IndexedDocument => ({ id, text, thread: `s${Math.floor(order / 10)}`, order: order * 1000, ...attributionOf(text) });

const project: IndexedDocument[] = [
  { id: 'bundle', text: 'We decided to bundle with rollup and to test with vitest.' },
  { id: 'pnpm', text: 'pnpm is the only tool allowed for installing dependencies.' },
  { id: 'db', text: 'The database is PostgreSQL 16 on the managed instance.' },
  { id: 'ci', text: 'GitHub Actions runs lint and the unit tests on every pull request.' },
  { id: 'car', text: 'The automobile needs new tyres before the trip.' },
  { id: 'noise1', text: 'The cart page shows a banner when an item is out of stock.' },
  { id: 'noise2', text: 'Sprint planning happens every other Wednesday.' },
];

describe('rank: stages', () => {
  it('typos: a word the bank lacks searches its nearest spelling in the bank, which does not count as covering it', () => {
    const r = ranked(project, 'which databse and which bundlr');
    expect(r.hits.map((h) => h.id).slice(0, 2).sort()).toEqual(['bundle', 'db']);
    expect(r.hits[0]?.stage).toBe('expansion');
    expect(r.terms.expansion).toEqual(expect.arrayContaining([{ term: 'databas', weight: 0.7 }]));
    // The confidence is the lexical evidence of the words as typed: no typo counts as covered.
    expect(r.confidence).toBeLessThan(ranked(project, 'which database and which bundler').confidence);
    expect(ranked(project, 'which databse and which bundlr', { ...DEFAULT_STAGES, typos: false }).hits.map((h) => h.id)).not.toContain('bundle');
  });

  it('typos: a word as near to many words as to any says nothing, and short words are never respelt', () => {
    const near = [...project, { id: 'cat', text: 'the cart cast carts' }, { id: 'c2', text: 'card care core' }];
    expect(ranked(near, 'the cwrt').terms.expansion.filter((t) => t.weight === 0.7)).toEqual([]);
    expect(ranked(project, 'the rolup').terms.expansion).toEqual(expect.arrayContaining([{ term: 'rollup', weight: 0.7 }]));
  });

  it('typos: a misspelling whose stem is far from the word meant is found through its slips (letters swapped, one too many)', () => {
    const docs = [...project, { id: 'i18n', text: 'i18n-tasks fails the build on a missing translation key.' }];
    // "translatoin" keeps its ending and stems to itself, three edits from "translat".
    const r = ranked(docs, 'which tool checks translatoin keys');
    expect(r.hits[0]?.id).toBe('i18n');
    expect(r.terms.expansion).toEqual(expect.arrayContaining([{ term: 'translat', weight: 0.7 }]));
    expect(ranked(docs, 'which tool checks translatoin keys', { ...DEFAULT_STAGES, typos: false }).terms.expansion.map((t) => t.term)).not.toContain('translat');
  });

  it('typos: a word the bank has, misspelt in one of its lines by a slip ("hosue"), also searches that spelling, not another word one letter off', () => {
    const chat: IndexedDocument[] = [
      chatLine('d1', 'Dee: the house is a mess', 0),
      chatLine('d2', 'Dee: house viewing went fine', 10),
      chatLine('p1', 'Priya: wat do u need for the hosue', 20),
      chatLine('p2', 'Priya: my horse is lame again', 30),
      chatLine('p3', 'Priya: the mouse ate my toast', 40),
      chatLine('d3', 'Dee: lean times, skipping lunch', 50),
      chatLine('d4', 'Dee: i want to learn spanish', 60),
      chatLine('p4', 'Priya: learn it on the app', 70),
    ];
    const r = ranked(chat, 'What does Dee need for the new house?');
    const expansion = r.terms.expansion.map((t) => t.term);
    expect(expansion).toContain('hosu');
    // One letter changed makes other words: a horse, a mouse.
    expect(expansion).not.toContain('hors');
    expect(expansion).not.toContain('mous');
    expect(r.hits.slice(0, 3).map((h) => h.id)).toContain('p1');
    // A word of its own one letter short of a word the bank has ("lean" for "learn") is not a slip.
    expect(ranked(chat, 'What did Dee learn?').terms.expansion.map((t) => t.term)).not.toContain('lean');
    expect(ranked(chat, 'What does Dee need for the new house?', { ...DEFAULT_STAGES, typos: false }).terms.expansion.map((t) => t.term)).not.toContain('hosu');
  });

  it('typos: a question that misspells a word as one line did ("granery") also searches the spelling the bank has far more often', () => {
    const chat: IndexedDocument[] = [
      chatLine('n1', 'Nia: the granary just called', 0),
      chatLine('n2', 'Nia: roof survey failed, no events till its fixed', 1),
      chatLine('c1', 'Callum: did the granary reply', 600),
      chatLine('c2', 'Callum: granary money came in', 1200),
      chatLine('n3', 'Nia: so we are at the full 600 back from the granery', 1800),
      chatLine('c3', 'Callum: the grainery is a mess', 2400),
      chatLine('n4', 'Nia: my decisions are final', 3000),
      chatLine('c4', 'Callum: we decided on the blue ones', 3600),
      chatLine('n5', 'Nia: we decided, the blue ones', 4200),
      chatLine('c5', 'Callum: decided!', 4800),
    ];
    const r = ranked(chat, 'what happened with the granery');
    expect(r.terms.expansion).toEqual(expect.arrayContaining([{ term: 'granari', weight: 0.7 }]));
    expect(r.hits.slice(0, 5).map((h) => h.id)).toEqual(expect.arrayContaining(['n1', 'c1', 'c2']));
    // A word of the dictionary is no misspelling, though Porter stems it one letter from another
    // ("decis", "decid"): "decide" comes only through WordNet, at its weight.
    expect(ranked(chat, 'what were her decisions').terms.expansion.find((t) => t.term === 'decid')?.weight).toBe(0.3);
    expect(ranked(chat, 'what happened with the granery', { ...DEFAULT_STAGES, typos: false }).terms.expansion.map((t) => t.term)).not.toContain('granari');
  });

  it('function words: a question\'s "us" is the pronoun, not searched and no "america"; "US" in capitals is the country; "oh" is no "ohio"', () => {
    const chat: IndexedDocument[] = [
      chatLine('a', 'Nia: we fly to america in june', 0),
      chatLine('b', 'Callum: the granary let us down', 1),
      chatLine('c', 'Nia: the venue called us back', 2),
      chatLine('d', 'Callum: my cousin is in ohio', 3),
      chatLine('e', 'Nia: the granary cancelled, roof survey failed', 4),
    ];
    const pronoun = ranked(chat, 'why did the granary cancel on us');
    expect(pronoun.terms.keyword.map((t) => t.term)).not.toContain('us');
    expect(pronoun.terms.expansion.map((t) => t.term)).not.toContain('america');
    expect(pronoun.hits[0]?.id).toBe('e');
    const country = ranked(chat, 'when do they fly to the US');
    expect(country.terms.keyword.map((t) => t.term)).toContain('us');
    expect(country.terms.expansion.map((t) => t.term)).toContain('america');
    expect(country.hits[0]?.id).toBe('a');
    expect(ranked(chat, 'oh where is the cousin').terms.expansion.map((t) => t.term)).not.toContain('ohio');
  });

  it('a price "per person" also searches "a head", as chat says it ("the quote was 38 a head")', () => {
    const chat: IndexedDocument[] = [
      chatLine('n1', 'Nia: bellwood emailed back', 0),
      chatLine('c1', 'Callum: aw', 1),
      chatLine('n2', 'Nia: the quote was 38 a head', 2),
      chatLine('n3', 'Nia: smoke n salt rang, the guy is called jamal', 3),
      chatLine('c2', 'Callum: the caterer for the party is booked', 4),
    ];
    const r = ranked(chat, 'what was the price per person for the caterer');
    expect(r.terms.expansion).toEqual(expect.arrayContaining([{ term: 'head', weight: 0.3 }]));
    expect(r.hits.map((h) => h.id)).toContain('n2');
    expect(ranked(chat, 'what was the price per person for the caterer', { ...DEFAULT_STAGES, wordnet: false }).hits.map((h) => h.id)).not.toContain('n2');
  });

  it('keyword: the words asked for, with the stage recorded', () => {
    const r = ranked(project, 'which database do we run');
    expect(r.hits[0]).toMatchObject({ id: 'db', stage: 'keyword' });
  });

  it('expansion: the coding thesaurus finds a memory that shares no word with the question', () => {
    const r = ranked(project, 'Which bundler do we use?');
    expect(r.hits[0]).toMatchObject({ id: 'bundle', stage: 'expansion' });
    expect(r.terms.expansion.map((t) => t.term)).toContain('rollup');
    expect(ranked(project, 'Which package manager is allowed?').hits[0]?.id).toBe('pnpm');
    expect(ranked(project, 'What does CI check on a PR?').hits[0]?.id).toBe('ci');
    expect(ranked(project, 'which DB engine').hits[0]?.id).toBe('db');
    // Without the stage the question finds nothing at all.
    expect(ranked(project, 'Which bundler do we use?', { ...DEFAULT_STAGES, coding: false, wordnet: false }).hits).toEqual([]);
  });

  it('expansion: WordNet relates a synonym, at a lower weight than the word itself', () => {
    const r = ranked(project, 'is the car ready');
    expect(r.hits[0]).toMatchObject({ id: 'car', stage: 'expansion' });
    const weight = r.terms.expansion.find((t) => t.term === 'automobil')?.weight ?? 0;
    expect(weight).toBeGreaterThan(0);
    expect(weight).toBeLessThan(1);
  });

  it('expansion: a phrasal verb of the question searches the words of its WordNet sense, not its verb alone', () => {
    const house: IndexedDocument[] = [
      { id: 'wash', text: 'Priya: leave the pans, I will wash them after the film' },
      { id: 'plates', text: 'Priya: we need new plates, two of ours are chipped' },
      { id: 'film', text: 'Priya: the film starts at nine' },
    ];
    const r = ranked(house, 'who is doing the dishes tonight');
    expect(r.terms.expansion.map((t) => t.term)).toContain('wash');
    expect(r.hits[0]?.id).toBe('wash');
    // Without WordNet the question meets no word of that line.
    expect(ranked(house, 'who is doing the dishes tonight', { ...DEFAULT_STAGES, wordnet: false }).hits.map((h) => h.id)).not.toContain('wash');
  });

  it('expansion: a WordNet synonym that is the word clipped ("doc" for "doctor") searches at more than a related word', () => {
    const chat: IndexedDocument[] = [
      chatLine('n1', 'Nadia: the doc was running late', 0),
      chatLine('n2', 'Nadia: the physician was running late', 10),
      chatLine('e1', 'Ewan: lunch was running late', 20),
    ];
    const r = ranked(chat, 'Why was the doctor running late?');
    const weightOf = (term: string): number => r.terms.expansion.find((t) => t.term === term)?.weight ?? 0;
    expect(weightOf('doc')).toBe(0.7);
    expect(weightOf('physician')).toBe(0.3);
    const scoreOf = (id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    expect(r.hits[0]?.id).toBe('n1');
    expect(scoreOf('n1')).toBeGreaterThan(scoreOf('n2'));
  });

  it('expansion: a question about a father finds the chat that says "dad", and the line its sender sent next', () => {
    const chat: IndexedDocument[] = [
      chatLine('n1', 'Nadia: update on dad', 0),
      chatLine('n2', 'Nadia: they said its afib', 1),
      chatLine('e1', 'Ewan: whats that', 2),
      chatLine('n3', 'Nadia: my sister is coming up on friday', 20),
      chatLine('e2', 'Ewan: did u get the diagnosis letter for the flat', 21),
    ];
    const r = ranked(chat, "What was Nadia's father diagnosed with?");
    expect(r.terms.expansion.map((t) => t.term)).toContain('dad');
    // Without "dad" her line about her sister ranks first (her name) and the diagnosis letter next.
    expect(r.hits.slice(0, 2).map((h) => h.id).sort()).toEqual(['n1', 'n2']);
  });

  it('expansion: "get" and the verb sense of a word mostly a noun do not search, so chat lines with "get" stay out', () => {
    const chat: IndexedDocument[] = [
      chatLine('a1', 'Ann: first class begins monday', 0),
      chatLine('a2', 'Ann: my dad is visiting', 45),
      chatLine('b1', 'Ben: did u get the milk', 12),
      chatLine('b2', 'Ben: can u get bread too', 25),
      chatLine('b3', 'Ben: they want to sire a dynasty lol', 38),
    ];
    // "start": begin, commence, and get (its first verb sense); "father": dad, and as a verb
    // beget, get, sire.
    const start = ranked(chat, 'When does the class start?');
    expect(start.terms.expansion.map((t) => t.term)).toEqual(expect.arrayContaining(['begin']));
    expect(start.hits.map((h) => h.id)).toEqual(['a1']);
    const father = ranked(chat, 'Where is her father staying?');
    expect(father.terms.expansion.map((t) => t.term)).not.toEqual(expect.arrayContaining(['get']));
    expect(father.hits.map((h) => h.id)).toEqual(['a2']);
  });

  it('neighbour: the turn next to a strong match in the same session comes back, and only within the time gap', () => {
    const at = Date.UTC(2024, 4, 1);
    const chat: IndexedDocument[] = [
      { id: 't1', text: 'Ben: How was the woodworking course you took?', thread: 's1', order: at },
      { id: 't2', text: 'Ann: Loved it, I made a stool for my dad.', thread: 's1', order: at + 1000 },
      { id: 't3', text: 'Ann: Then we went hiking on Sunday.', thread: 's1', order: at + 2000 },
      { id: 'x1', text: 'Ann: I bought a new woodworking bench.', thread: 's2', order: at + 90 * MIN },
      { id: 'x2', text: 'Ben: The weather is nice.', thread: 's2', order: at + 400 * MIN },
    ];
    const r = ranked(chat, 'woodworking course');
    expect(r.hits.find((h) => h.id === 't2')?.stage).toBe('neighbour');
    // x2 is the next note in s2 but hours later: not a neighbour.
    expect(r.hits.some((h) => h.id === 'x2')).toBe(false);
    expect(ranked(chat, 'woodworking course', { ...DEFAULT_STAGES, neighbours: false }).hits.some((h) => h.id === 't2')).toBe(false);
  });

  it('session: a weak match in the session that matches strongly elsewhere rises above an equal one outside it', () => {
    const chat: IndexedDocument[] = [
      { id: 'out', text: 'We talked about the garden.', thread: 'a', order: 0 },
      { id: 'in', text: 'We talked about the garden.', thread: 'b', order: 10 * MIN },
      { id: 'far1', text: 'filler one', thread: 'b', order: 12 * MIN },
      { id: 'strong', text: 'The garden roses and the garden pond.', thread: 'b', order: 14 * MIN },
    ];
    const on = ranked(chat, 'garden roses').hits.map((h) => h.id);
    expect(on.indexOf('in')).toBeLessThan(on.indexOf('out'));
    const off = ranked(chat, 'garden roses', { ...DEFAULT_STAGES, session: false, neighbours: false }).hits.map((h) => h.id);
    expect(off.indexOf('out')).toBeLessThan(off.indexOf('in'));
  });

  it('temporal: a matching memory dated in the month asked for comes first', () => {
    const chat: IndexedDocument[] = [
      { id: 'june', text: 'We went camping by the lake.', order: Date.UTC(2023, 5, 20) },
      { id: 'july', text: 'We went camping by the lake.', order: Date.UTC(2023, 6, 20) },
    ];
    expect(ranked(chat, 'When did they go camping in July?').hits[0]?.id).toBe('july');
    expect(ranked(chat, 'When did they go camping in July?').timeCues).toEqual(['July']);
    expect(ranked(chat, 'When did they go camping in July?', { ...DEFAULT_STAGES, temporal: false }).hits[0]?.id).toBe('june');
  });

  it("temporal: of the month's matching memories, the one dated on the day asked for comes first", () => {
    const chat: IndexedDocument[] = [
      { id: 'engineer', text: 'Aisha: engineer came! his name is carl', order: Date.UTC(2026, 0, 7, 10) },
      { id: 'off', text: 'Ollie: the engineer is off sick, rebooked for thurs', order: Date.UTC(2026, 0, 13, 18) },
      ...['the boiler is dead', 'its freezing in here', 'exam timetables are out', 'who took my oat milk'].map((text, i) => ({ id: `f${i}`, text: `Bea: ${text}`, order: Date.UTC(2026, 0, 4 + i) })),
    ];
    expect(ranked(chat, "Why didn't the engineer come back on 13 January?").hits[0]?.id).toBe('off');
    // The month alone dates both lines alike: the line with more of the question's words leads.
    expect(ranked(chat, "Why didn't the engineer come back in January?").hits[0]?.id).toBe('engineer');
    expect(ranked(chat, "Why didn't the engineer come back on 13 January?", { ...DEFAULT_STAGES, temporal: false }).hits[0]?.id).toBe('engineer');
  });

  it('speakers: a question naming a participant ranks their own line above the friend who asked about it', () => {
    const line = (id: string, text: string, order: number): IndexedDocument => ({ id, text, thread: 's1', order, ...attributionOf(text) });
    const chat: IndexedDocument[] = [
      line('ask', 'Tom: How was the baking class, Priya? Did you bake a loaf at the baking class?', 0),
      line('told', 'Priya: I baked a loaf at the baking class.', 1000),
      line('other', 'Tom: I painted a sunset.', 2000),
      line('more', 'Priya: I went hiking.', 3000),
    ];
    expect(ranked(chat, 'What did Priya bake at the baking class?', { ...DEFAULT_STAGES, speakers: false }).hits[0]?.id).toBe('ask');
    expect(ranked(chat, 'What did Priya bake at the baking class?').hits[0]?.id).toBe('told');
    // A query naming nobody is ranked as before.
    expect(ranked(chat, 'baking class loaf').hits[0]?.id).toBe('ask');
  });

  it('replies: the answer to a strong line that asks something inherits the words it lacks, above the asked one\'s other short lines', () => {
    const chat: IndexedDocument[] = [
      chatLine('p0', 'Priya: driving test is tmrw at 9', 0),
      chatLine('p1', 'Priya: cant sleep', 1),
      chatLine('t1', 'Tomasz: how many lessons have u had now', 2),
      chatLine('p2', 'Priya: like 38 ?', 3),
      chatLine('p3', 'Priya: plus my dad in the carpark', 4),
      chatLine('p4', 'Priya: im gonna throw up', 5),
      chatLine('t2', 'Tomasz: u got this', 6),
      chatLine('p5', 'Priya: lol', 7),
      chatLine('x1', 'Priya: the cake was good', 10),
      chatLine('x2', 'Tomasz: i baked it', 11),
    ];
    const question = 'How many driving lessons had Priya taken?';
    const on = ranked(chat, question).hits.map((h) => h.id);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false }).hits.map((h) => h.id);
    // Without the stage the answer is the last of Priya's short lines of that session.
    for (const other of ['p3', 'p4', 'p5']) expect(off.indexOf('p2')).toBeGreaterThan(off.indexOf(other));
    expect(on.slice(0, 3)).toContain('p2');
    for (const other of ['p3', 'p4', 'p5']) expect(on.indexOf('p2')).toBeLessThan(on.indexOf(other));
  });

  it('replies: a line its speaker sends right after a strong one inherits it, not after a pause or another speaker\'s line', () => {
    const at = Date.UTC(2025, 2, 10);
    const line = (id: string, text: string, minutes: number): IndexedDocument => ({ id, text, thread: 's1', order: at + minutes * MIN, ...attributionOf(text) });
    const chat: IndexedDocument[] = [
      line('a1', 'Priya: flights done!!', 0),
      line('a2', 'Priya: easyjet from gatwick fri 4th, 10:25 out', 0.5),
      line('a3', 'Priya: back mon 7th at 19:40', 1),
      line('b1', 'Dee: ur a star', 2),
      line('a4', 'Priya: also the hotel has a pool', 3),
      { id: 'c1', text: 'Tomasz: my flight home got moved', thread: 's2', order: at + 60 * MIN, ...attributionOf('Tomasz: my flight home got moved') },
      // Ten minutes later: a new thought, not the rest of the message.
      { id: 'c2', text: 'Tomasz: so annoying', thread: 's2', order: at + 70 * MIN, ...attributionOf('Tomasz: so annoying') },
    ];
    const question = 'Which flight did they book?';
    const on = ranked(chat, question);
    const byId = new Map(on.hits.map((h) => [h.id, h]));
    expect(byId.get('a2')?.stage).toBe('neighbour');
    expect(byId.get('a3')?.stage).toBe('neighbour');
    expect(byId.get('a2')?.score).toBeGreaterThanOrEqual(byId.get('a1')?.score ?? Number.POSITIVE_INFINITY);
    expect(byId.get('a3')?.score).toBeGreaterThanOrEqual(byId.get('a1')?.score ?? Number.POSITIVE_INFINITY);
    // After Dee's line, Priya's next line is no longer the same message; after a pause neither.
    expect(byId.has('a4')).toBe(false);
    expect(byId.get('c2')?.score).toBeLessThan(byId.get('c1')?.score ?? 0);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false });
    expect(off.hits.some((h) => h.id === 'a3')).toBe(false);
    expect(off.hits.find((h) => h.id === 'a2')?.score).toBeLessThan(off.hits.find((h) => h.id === 'a1')?.score ?? 0);
  });

  it('replies: after a reply that only reacts ("..."), the replier\'s next lines inherit the question; not after a bare answer', () => {
    const chat: IndexedDocument[] = [
      chatLine('b1', 'Bea: heating is on, flat is 19 degrees', 0),
      chatLine('a1', 'Aisha: ok also. who set the fire alarm off at 3am', 1),
      chatLine('o1', 'Ollie: ...', 2),
      chatLine('o2', 'Ollie: it was a cheese toastie', 3),
      chatLine('o3', 'Ollie: sorry', 4),
      chatLine('a2', 'Aisha: how much was the pizza', 10),
      chatLine('o4', 'Ollie: £12', 11),
      chatLine('o5', 'Ollie: it was a cheese one', 12),
      chatLine('x1', 'Bea: the toastie maker is in the cupboard', 20),
      chatLine('x2', 'Ollie: the alarm test is on friday', 21),
    ];
    const question = 'Who set off the fire alarm in the night, and how?';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false });
    const rankOf = (r: typeof on, id: string): number => r.hits.findIndex((h) => h.id === id);
    expect(on.hits.find((h) => h.id === 'o2')?.stage).toBe('neighbour');
    expect(rankOf(on, 'o2')).toBeLessThan(rankOf(on, 'x1'));
    expect(rankOf(on, 'o2')).toBeLessThan(rankOf(on, 'x2'));
    expect(rankOf(off, 'o2') < 0 || rankOf(off, 'o2') > rankOf(off, 'x2')).toBe(true);
    // "£12" answers the pizza question itself: the line after it is no part of the answer.
    const pizza = ranked(chat, 'How much was the pizza?');
    const pizzaOff = ranked(chat, 'How much was the pizza?', { ...DEFAULT_STAGES, replies: false });
    expect(pizza.hits.find((h) => h.id === 'o5')?.score ?? 0).toBe(pizzaOff.hits.find((h) => h.id === 'o5')?.score ?? 0);
  });

  it('replies: a short news line\'s sender answers the question asked after it in none of its words; not after a long line', () => {
    const chat: IndexedDocument[] = [
      chatLine('o1', 'Ollie: econometrics exam done', 0),
      chatLine('a1', 'Aisha: how was it!!!', 1),
      chatLine('o2', 'Ollie: ok i think', 2),
      chatLine('o3', 'Ollie: question 3 was evil, regression with dummy variables', 3),
      chatLine('b1', 'Bea: but u finished?', 4),
      chatLine('x1', 'Ollie: my econometrics notes are on the desk', 10),
      chatLine('x2', 'Ollie: the exam hall is freezing', 20),
      // A long line is a story, not news a question asks after.
      chatLine('l1', 'Ollie: the econometrics exam is next tuesday at nine in the great hall and i have not started', 30),
      chatLine('l2', 'Bea: how is it', 31),
      chatLine('l3', 'Ollie: the library closes at ten', 32),
    ];
    const question = 'What did Ollie find hard in his econometrics exam?';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false });
    const rankOf = (r: typeof on, id: string): number => r.hits.findIndex((h) => h.id === id);
    expect(on.hits.find((h) => h.id === 'o3')?.stage).toBe('neighbour');
    expect(rankOf(on, 'o3')).toBeLessThan(rankOf(on, 'x2'));
    expect(rankOf(off, 'o3') < 0 || rankOf(off, 'o3') > rankOf(off, 'x2')).toBe(true);
    expect(on.hits.find((h) => h.id === 'l3')?.score ?? 0).toBe(off.hits.find((h) => h.id === 'l3')?.score ?? 0);
  });

  it('replies: a bare prompt ("and???") asks for more of a line of any length; a question with words of its own asks about those', () => {
    const chat: IndexedDocument[] = [
      chatLine('c1', 'Callum: mum brought graham round for tea tonight so we have finally met him', 0),
      chatLine('n1', 'Nia: and???', 1),
      chatLine('c2', 'Callum: hes fine. retired postman, into canal boats', 2),
      chatLine('x1', 'Nia: the florist wants a deposit', 10),
      chatLine('x2', 'Callum: how much', 11),
      chatLine('c3', 'Callum: uncle des brought his speakers round for the party tonight so we have heard them', 20),
      chatLine('n2', 'Nia: were they loud', 21),
      chatLine('c4', 'Callum: the neighbours complained twice', 22),
    ];
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    const question = 'what is graham like, they met him round mums';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false });
    expect(on.hits.find((h) => h.id === 'c2')?.stage).toBe('neighbour');
    expect(scoreOf(on, 'c2')).toBeGreaterThan(scoreOf(off, 'c2'));
    expect(on.hits.slice(0, 3).map((h) => h.id)).toContain('c2');
    // "were they loud" asks about loudness: the long line's other words do not pass over it.
    const speakers = 'what did uncle des bring round for the party';
    expect(scoreOf(ranked(chat, speakers), 'c4')).toBe(scoreOf(ranked(chat, speakers, { ...DEFAULT_STAGES, replies: false }), 'c4'));
  });

  it('replies: the asker\'s reaction to the answer is no turn: the one answering goes on, and those lines rank as the answer; a reply to it is a turn', () => {
    const chat: IndexedDocument[] = [
      chatLine('n1', 'Nia: rings btw. did u pick them up', 0),
      chatLine('c1', 'Callum: yeah but urs is the wrong size. they did an N not an M', 1),
      chatLine('n2', 'Nia: NOO', 2),
      chatLine('c2', 'Callum: they are fixing it, ready next weds', 3),
      chatLine('x1', 'Nia: the cake tasting was lovely', 10),
      chatLine('x2', 'Callum: bex did the cake', 11),
      // The asker answers back with words of her own: a turn, and what follows is the other's new one.
      chatLine('n3', 'Nia: did u book the taxi', 20),
      chatLine('c3', 'Callum: yes for 6', 21),
      chatLine('n4', 'Nia: why so early, the ceremony is at 9', 22),
      chatLine('c4', 'Callum: the roads are closed for the marathon', 23),
    ];
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    const question = 'when will nia have her ring';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false });
    expect(on.hits.find((h) => h.id === 'c2')?.stage).toBe('neighbour');
    expect(on.hits.slice(0, 3).map((h) => h.id)).toContain('c2');
    expect(scoreOf(on, 'c2')).toBeGreaterThan(scoreOf(off, 'c2'));
    const taxi = 'what time is the taxi booked for';
    expect(scoreOf(ranked(chat, taxi), 'c4')).toBe(scoreOf(ranked(chat, taxi, { ...DEFAULT_STAGES, replies: false }), 'c4'));
  });

  it('replies: a yes or a no back says the line before was a question, though chat left out its mark; a remark after a statement is no answer', () => {
    const chat: IndexedDocument[] = [
      chatLine('l1', 'Leah: ok 600 is good. its for the hospice right not the other one', 0),
      chatLine('n1', "Niamh: ya st clare's, the one that looked after grandad", 1),
      chatLine('x1', 'Niamh: the charity shop on the high st is shut', 10),
      chatLine('x2', 'Leah: we should raise the target when we hit it later this month', 11),
      chatLine('x3', 'Niamh: my nan gave 50', 12),
      chatLine('l2', 'Leah: the hospice sent us two vests', 20),
      chatLine('n2', 'Niamh: cute, mine fits', 21),
    ];
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    const question = 'which hospice r we raising for';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false });
    expect(on.hits.find((h) => h.id === 'n1')?.stage).toBe('neighbour');
    expect(scoreOf(on, 'n1')).toBeGreaterThan(scoreOf(off, 'n1'));
    const rankOf = (r: typeof on, id: string): number => r.hits.findIndex((h) => h.id === id);
    expect(rankOf(on, 'n1')).toBeLessThan(rankOf(on, 'x1'));
    expect(rankOf(off, 'n1') < 0 || rankOf(off, 'n1') > rankOf(off, 'x1')).toBe(true);
    // "cute, mine fits" opens with no yes or no: a remark on a statement inherits nothing from it.
    expect(scoreOf(on, 'n2')).toBe(scoreOf(off, 'n2'));
  });

  it('replies: a question asked before the line goes on passes its own words to the answer, not the rest of the line', () => {
    const chat: IndexedDocument[] = [
      chatLine('m1', 'Melanie: Last night we celebrated my daughter\'s birthday with music and cake.', 0),
      chatLine('c1', 'Caroline: Wow, sounds wonderful! What concert was it? The advocacy event was a cool experience, so much love and support.', 1),
      chatLine('m2', 'Melanie: It was Matt Patterson, he is so talented!', 2),
      chatLine('x1', 'Caroline: the concert hall in town is huge', 10),
      chatLine('x2', 'Melanie: The kids painted all afternoon.', 20),
      chatLine('x3', 'Caroline: The advocacy group meets on Fridays.', 30),
    ];
    const rankOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.findIndex((h) => h.id === id);
    const question = 'Which concert did Melanie go to?';
    const on = ranked(chat, question);
    expect(rankOf(on, 'm2')).toBeLessThan(rankOf(on, 'x1'));
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    expect(scoreOf(on, 'm2')).toBeGreaterThan(scoreOf(ranked(chat, question, { ...DEFAULT_STAGES, replies: false }), 'm2'));
    // The advocacy event was not asked about: the answer inherits nothing of it.
    const advocacy = 'What was the advocacy event like?';
    expect(ranked(chat, advocacy).hits.find((h) => h.id === 'm2')?.score).toBe(ranked(chat, advocacy, { ...DEFAULT_STAGES, replies: false }).hits.find((h) => h.id === 'm2')?.score);
  });

  it('replies: after the other\'s reaction to a short news line ("thank god", "oh no"), its sender goes on, and those lines rank; after a long line or a longer reply they inherit nothing', () => {
    const chat: IndexedDocument[] = [
      chatLine('c1', 'Callum: ok granary money came in', 0),
      chatLine('n1', 'Nia: thank god', 1),
      chatLine('c2', 'Callum: only 450 tho', 2),
      chatLine('c3', 'Callum: they kept 150 as an admin fee', 3),
      chatLine('x1', 'Nia: the dress came back from margo', 10),
      chatLine('x2', 'Callum: the band wants the rest of the money in may', 11),
      chatLine('x3', 'Nia: only the cake left to pay', 12),
      // A long news line: the reaction is to all of it, and what follows is no detail of the money.
      chatLine('l1', 'Nia: the florist rang, the money for the flowers came in and she says the peonies are ready', 20),
      chatLine('l2', 'Callum: oh good', 21),
      chatLine('l3', 'Nia: she also does buttonholes', 22),
      // A reply of three words is a turn of its own.
      chatLine('v1', 'Callum: venue money came in', 30),
      chatLine('v2', 'Nia: omg finally thank god', 31),
      chatLine('v3', 'Callum: and the bar is open till 1', 32),
    ];
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    const question = 'how much came back from the granary';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false });
    expect(on.hits.find((h) => h.id === 'c2')?.stage).toBe('neighbour');
    expect(scoreOf(on, 'c2')).toBeGreaterThan(scoreOf(off, 'c2'));
    expect(scoreOf(on, 'c3')).toBeGreaterThan(scoreOf(off, 'c3'));
    const rankOf = (r: typeof on, id: string): number => r.hits.findIndex((h) => h.id === id);
    expect(rankOf(on, 'c2')).toBeGreaterThanOrEqual(0);
    expect(rankOf(on, 'c2')).toBeLessThan(rankOf(on, 'x2'));
    expect(rankOf(off, 'c2') < 0 || rankOf(off, 'c2') > rankOf(off, 'x2')).toBe(true);
    const flowers = 'did the money for the flowers come in';
    expect(scoreOf(ranked(chat, flowers), 'l3')).toBe(scoreOf(ranked(chat, flowers, { ...DEFAULT_STAGES, replies: false }), 'l3'));
    const venue = 'did the venue money come in';
    expect(scoreOf(ranked(chat, venue), 'v3')).toBe(scoreOf(ranked(chat, venue, { ...DEFAULT_STAGES, replies: false }), 'v3'));
  });

  it('replies: a bare question ("what time", "which one") ranks at half its score, its reply keeps what it inherits; a bare number with a question mark answers and keeps its score', () => {
    const chat: IndexedDocument[] = [
      chatLine('q1', 'Niamh: what time', 0),
      chatLine('a1', 'Leah: he said 10ish', 1),
      chatLine('g1', 'Leah: the plumber never showed the first time, his van broke down', 10),
      chatLine('x1', 'Niamh: first long run done', 20),
      chatLine('q2', 'Niamh: how many lessons have u had now', 30),
      chatLine('a2', 'Leah: like 38 ?', 31),
    ];
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    const question = 'why did the plumber not come the first time';
    const on = ranked(chat, question);
    const whole = ranked(chat, question, DEFAULT_STAGES, undefined, { ...DEFAULT_PARAMS, bareQuestionWeight: 1 });
    expect(scoreOf(on, 'q1')).toBeGreaterThan(0);
    expect(scoreOf(on, 'q1')).toBeLessThan(scoreOf(whole, 'q1'));
    expect(on.hits[0]?.id).toBe('g1');
    // The reply inherits from the question's full score: the same with the question held whole.
    expect(scoreOf(on, 'a1')).toBeGreaterThan(0);
    expect(scoreOf(on, 'a1')).toBe(scoreOf(whole, 'a1'));
    const lessons = 'how many lessons';
    expect(scoreOf(ranked(chat, lessons), 'a2')).toBeGreaterThan(0);
    expect(scoreOf(ranked(chat, lessons), 'a2')).toBe(scoreOf(ranked(chat, lessons, DEFAULT_STAGES, undefined, { ...DEFAULT_PARAMS, bareQuestionWeight: 1 }), 'a2'));
  });

  it('a yes or no question finds the yes a couple of lines after the words it asks about; a question for something else does not', () => {
    const chat: IndexedDocument[] = [
      chatLine('l1', 'Leah: ok random but tom asked if he can move in in jan', 0),
      chatLine('l2', 'Leah: his lease ends dec 31st', 1),
      chatLine('n1', 'Niamh: ngl yes. he fixes stuff and makes lasagne', 2),
      chatLine('x1', 'Niamh: tom moving the sofa was a disaster', 10),
      chatLine('x2', 'Leah: tom is ok, just tired', 11),
      chatLine('x3', 'Niamh: the van is moving at 9', 20),
      chatLine('x4', 'Leah: in jan we do the 10k', 21),
    ];
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    const question = 'is niamh ok with tom moving in';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, answerTypes: false });
    expect(on.hits.find((h) => h.id === 'n1')?.stage).toBe('neighbour');
    expect(scoreOf(on, 'n1')).toBeGreaterThan(scoreOf(off, 'n1'));
    // "when" asks for a day, not a yes: the yes three lines on gets nothing from the stage.
    const when = 'when is tom moving in';
    expect(scoreOf(ranked(chat, when), 'n1')).toBe(scoreOf(ranked(chat, when, { ...DEFAULT_STAGES, answerTypes: false }), 'n1'));
  });

  it('a question that asks for a value\'s shape finds it a few lines after the words it asks about; a question that asks none does not', () => {
    const chat: IndexedDocument[] = [
      chatLine('s1', 'Niamh: also these shoes are going back, blister no.2 on the right one now', 0),
      chatLine('s2', 'Leah: u still in the return window?', 1),
      chatLine('s3', 'Niamh: 30 days so yes', 2),
      chatLine('x1', 'Niamh: the shoes rub right at the back', 10),
      chatLine('x2', 'Leah: is it the shoes or ur socks', 11),
      chatLine('x3', 'Niamh: back at work tmrw', 12),
      chatLine('x4', 'Leah: new shoes came today', 20),
    ];
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    const question = 'how long did she have to send the shoes back';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, answerTypes: false });
    expect(on.hits.find((h) => h.id === 's3')?.stage).toBe('neighbour');
    expect(scoreOf(on, 's3')).toBeGreaterThan(scoreOf(off, 's3'));
    const rankOf = (r: typeof on, id: string): number => r.hits.findIndex((h) => h.id === id);
    expect(rankOf(on, 's3')).toBeGreaterThanOrEqual(0);
    expect(rankOf(off, 's3') < 0 || rankOf(off, 's3') > rankOf(on, 's3')).toBe(true);
    // "did she send them back" asks for no value: the line three on is no answer to it.
    const plain = 'did she send the shoes back';
    expect(scoreOf(ranked(chat, plain), 's3')).toBe(scoreOf(ranked(chat, plain, { ...DEFAULT_STAGES, answerTypes: false }), 's3'));
  });

  it('replies: the asker\'s first line back after the answer closes the exchange and inherits part of the question; a new question or a late line does not', () => {
    const chat: IndexedDocument[] = [
      chatLine('m1', 'Mara: paint for the hallway - grey or green?', 0),
      chatLine('j1', 'Jonas: grey shows every scuff', 1),
      chatLine('j2', 'Jonas: my sister regrets hers', 2),
      chatLine('m2', 'Mara: ok green it is, sage from the hardware shop', 3),
      chatLine('j3', 'Jonas: 👍', 4),
      chatLine('x1', 'Mara: the hallway light is broken too', 10),
      // The asker comes back with another question: a new exchange, not the decision.
      chatLine('m3', 'Mara: which tiles for the bathroom floor?', 20),
      chatLine('j4', 'Jonas: the slate ones', 21),
      chatLine('m4', 'Mara: and the skirting boards?', 22),
      // The asker comes back only after the replier's run: too late to close it.
      chatLine('m5', 'Mara: what rug for the landing?', 30),
      chatLine('j5', 'Jonas: wool', 31),
      chatLine('j6', 'Jonas: not jute', 32),
      chatLine('j7', 'Jonas: it sheds', 33),
      chatLine('j8', 'Jonas: everywhere', 34),
      chatLine('m6', 'Mara: ordered the striped one', 35),
    ];
    const rankOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.findIndex((h) => h.id === id);
    const question = 'Which colour did they choose for the hallway paint?';
    const on = ranked(chat, question);
    const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false });
    expect(on.hits.find((h) => h.id === 'm2')?.stage).toBe('neighbour');
    expect(rankOf(on, 'm2')).toBeLessThan(rankOf(on, 'x1'));
    expect(rankOf(off, 'm2')).toBe(-1);
    // Half the question's share: the answer that replies to it keeps the full one.
    expect(on.hits.find((h) => h.id === 'm2')?.score ?? 0).toBeLessThan(on.hits.find((h) => h.id === 'j1')?.score ?? 0);
    const scoreOf = (r: ReturnType<typeof ranked>, id: string): number => r.hits.find((h) => h.id === id)?.score ?? 0;
    // "and the skirting boards?" is a bare question too, which ranks at half its score: held whole
    // here, so that the check reads what it inherits (nothing).
    const whole = { ...DEFAULT_PARAMS, bareQuestionWeight: 1 };
    const floor = ranked(chat, 'Which tiles for the bathroom floor, and the skirting?', DEFAULT_STAGES, undefined, whole);
    expect(scoreOf(floor, 'm4')).toBe(scoreOf(ranked(chat, 'Which tiles for the bathroom floor, and the skirting?', { ...DEFAULT_STAGES, replies: false }, undefined, whole), 'm4'));
    const rug = ranked(chat, 'What rug did Mara want for the landing?');
    expect(scoreOf(rug, 'm6')).toBe(scoreOf(ranked(chat, 'What rug did Mara want for the landing?', { ...DEFAULT_STAGES, replies: false }), 'm6'));
  });

  it('clippings: a long query word also searches its short opening the bank has ("micro" for "microeconomics"), not a longer stem of its family', () => {
    const chat: IndexedDocument[] = [
      chatLine('o1', 'Ollie: micro tmrw at 2, parkinson building', 0),
      chatLine('o2', 'Ollie: the exam hall is freezing', 10),
      chatLine('o3', 'Ollie: exam timetables came out today', 20),
      chatLine('o4', 'Ollie: define the terms first', 30),
    ];
    const r = ranked(chat, 'When was the microeconomics exam?');
    expect(r.terms.expansion).toContainEqual({ term: 'micro', weight: 0.5 });
    expect(r.hits.some((h) => h.id === 'o1')).toBe(true);
    const off = ranked(chat, 'When was the microeconomics exam?', { ...DEFAULT_STAGES, typos: false });
    expect(off.hits.some((h) => h.id === 'o1')).toBe(false);
    // "defin" is half of "definition": a stem of its family, left to the other stages (WordNet relates it at 0.3).
    expect(ranked(chat, 'What is the definition?').terms.expansion.find((t) => t.term === 'defin')?.weight ?? 0).toBeLessThan(0.5);
  });

  it('vectors: in a conversation, a word the bank lacks searches its nearest words ("lorry" -> "truck"), ranked but not counted in the confidence', () => {
    const chat: IndexedDocument[] = [
      chatLine('s1', 'Sam: the truck finally turned up with all our boxes', 0),
      chatLine('j1', 'Jo: amazing, did they carry everything upstairs', 1),
      chatLine('s2', 'Sam: yep two guys, took an hour', 2),
      chatLine('j2', 'Jo: heading to the shop now', 20),
      chatLine('s3', 'Sam: grab milk pls', 21),
    ];
    const r = ranked(chat, 'What about the lorry?');
    expect(r.terms.expansion.find((t) => t.term === 'truck')?.weight).toBeGreaterThanOrEqual(0.3 * 0.6);
    expect(r.hits[0]?.id).toBe('s1');
    expect(r.hits[0]?.stage).toBe('expansion');
    // "lorry" is nowhere in the bank: a related word is no evidence that the bank answers.
    expect(r.confidence).toBe(0);
    expect(ranked(chat, 'What about the lorry?', { ...DEFAULT_STAGES, vectors: false }).hits).toEqual([]);
  });

  it('vectors: not for a word the bank says often, nor a month name, and not in notes that are no conversation', () => {
    const chat: IndexedDocument[] = [
      chatLine('s1', 'Sam: the truck finally turned up with all our boxes', 0),
      chatLine('j1', 'Jo: that lorry is parked outside again', 10),
      chatLine('s2', 'Sam: lorry drivers never look', 20),
      chatLine('j2', 'Jo: the lorry is still there', 30),
    ];
    expect(ranked(chat, 'Where is the lorry?').terms.expansion.map((t) => t.term)).not.toContain('truck');
    // A month is a date to the temporal stage; its nearest words are the other months.
    const months = [chatLine('m1', 'Sam: the flat viewing moved to february', 0), chatLine('m2', 'Jo: ok works for me', 1), chatLine('m3', 'Sam: and the deposit is due then too', 2), chatLine('m4', 'Jo: noted', 3)];
    expect(ranked(months, 'What happens in January?').terms.expansion.map((t) => t.term)).not.toContain('februari');
    const notes: IndexedDocument[] = [
      { id: 'n1', text: 'The truck finally turned up with all the boxes.' },
      { id: 'n2', text: 'Milk is in the fridge.' },
    ];
    expect(ranked(notes, 'What about the lorry?').hits).toEqual([]);
  });

  it('hyponyms: in a conversation, a general noun the bank seldom says searches the kinds of it the bank has ("dessert" -> "tiramisu"), ranked but not counted', () => {
    const chat: IndexedDocument[] = [
      chatLine('s1', 'Sam: ok i will bring a tiramisu on saturday', 0),
      chatLine('j1', 'Jo: perfect, ill do the mains', 1),
      chatLine('s2', 'Sam: and wine?', 2),
      chatLine('j2', 'Jo: the taxi is booked for the airport', 20),
      chatLine('s3', 'Sam: grab milk pls', 21),
    ];
    const r = ranked(chat, 'which dessert did we settle on');
    expect(r.terms.expansion).toContainEqual({ term: 'tiramisu', weight: DEFAULT_PARAMS.hyponymWeight });
    expect(r.hits[0]?.id).toBe('s1');
    expect(r.hits[0]?.stage).toBe('expansion');
    // "dessert" is nowhere in the bank: a kind of it is no evidence that the bank answers.
    expect(r.confidence).toBe(0);
    expect(ranked(chat, 'which dessert did we settle on', DEFAULT_STAGES, undefined, { ...DEFAULT_PARAMS, hyponymWeight: 0 }).hits.map((h) => h.id)).not.toContain('s1');
    expect(ranked(chat, 'which dessert did we settle on', { ...DEFAULT_STAGES, wordnet: false }).hits.map((h) => h.id)).not.toContain('s1');
  });

  it('hyponyms: not for a noun the bank says often, nor one with hundreds of kinds ("person"), nor in notes that are no conversation', () => {
    const chat: IndexedDocument[] = [
      chatLine('s1', 'Sam: ok i will bring a tiramisu on saturday', 0),
      chatLine('j1', 'Jo: dessert is sorted then', 1),
      chatLine('s2', 'Sam: dessert and wine, yes', 2),
      chatLine('j2', 'Jo: no more dessert talk pls', 20),
      chatLine('s3', 'Sam: the engineer came about the boiler', 21),
    ];
    expect(ranked(chat, 'which dessert did we settle on').terms.expansion.map((t) => t.term)).not.toContain('tiramisu');
    expect(ranked(chat, 'which person came round').terms.expansion.map((t) => t.term)).not.toContain('engin');
    const notes: IndexedDocument[] = [
      { id: 'n1', text: 'Sam will bring a tiramisu on Saturday.' },
      { id: 'n2', text: 'Milk is in the fridge.' },
    ];
    expect(ranked(notes, 'which dessert did we settle on').hits).toEqual([]);
  });

  it('limits: a question asking for a maximum searches the words chat bounds a number with ("max" -> "hard cap of 55"), ranked, not counted', () => {
    const chat: IndexedDocument[] = [
      chatLine('a1', 'Ana: guest list draft is at 62 rn', 0),
      chatLine('b1', 'Ben: ok proposal. hard cap of 55', 1),
      chatLine('a2', 'Ana: fine by me', 2),
      chatLine('b2', 'Ben: the venue deposit is paid', 20),
      chatLine('a3', 'Ana: guests can park at the back', 21),
      chatLine('b3', 'Ben: the band wants a bigger stage', 30),
    ];
    const r = ranked(chat, 'what max number of guests did we settle on');
    expect(r.terms.expansion).toContainEqual({ term: 'cap', weight: DEFAULT_PARAMS.limitWeight });
    expect(r.hits.slice(0, 2).map((h) => h.id)).toContain('b1');
    const off = ranked(chat, 'what max number of guests did we settle on', DEFAULT_STAGES, undefined, { ...DEFAULT_PARAMS, limitWeight: 0 });
    expect(off.hits.findIndex((h) => h.id === 'b1')).toBeGreaterThan(r.hits.findIndex((h) => h.id === 'b1'));
    // Not counted: the confidence is the question's own words' evidence.
    expect(r.confidence).toBeCloseTo(off.confidence, 10);
    // "Max" as a name asks for no bound.
    expect(ranked(chat, 'what did Max say about the guests').terms.expansion.map((t) => t.term)).not.toContain('cap');
  });

  it('replies: a line that repeats what it answers, or a remark after a statement, inherits nothing', () => {
    const chat: IndexedDocument[] = [
      chatLine('p1', 'Priya: I adopted a grey kitten from the animal shelter.', 0),
      chatLine('t1', 'Tom: So cute! I love grey cats.', 1),
      chatLine('t2', 'Tom: Did you bake a loaf at the baking class?', 10),
      chatLine('p2', 'Priya: I baked a loaf at the baking class.', 11),
    ];
    for (const question of ['Which kitten did Tom adopt from the shelter?', 'What did Priya bake at the baking class?']) {
      const on = ranked(chat, question).hits.map((h) => [h.id, h.score]);
      const off = ranked(chat, question, { ...DEFAULT_STAGES, replies: false }).hits.map((h) => [h.id, h.score]);
      expect(on).toEqual(off);
    }
  });

  it('feedback (off by default) adds the terms of the first results and records them', () => {
    const docs: IndexedDocument[] = [
      { id: 'a', text: 'the deploy script uploads artefacts to the bucket' },
      { id: 'b', text: 'deploy runs the upload script nightly' },
      { id: 'c', text: 'artefacts bucket cleanup and upload retention' },
      { id: 'd', text: 'unrelated notes about lunch' },
    ];
    expect(ranked(docs, 'deploy').terms.feedback).toEqual([]);
    const r = ranked(docs, 'deploy', ALL_STAGES);
    expect(r.terms.feedback.length).toBeGreaterThan(0);
    expect(r.hits.find((h) => h.id === 'c')?.stage).toBe('feedback');
  });
});

/** With the answer-type stage `after` ranks first instead of `before`; the confidence and the attribution factor stay. */
const expectReorderedSameJudgement = (docs: readonly IndexedDocument[], query: string, before: string, after: string) => {
  const off = ranked(docs, query, { ...DEFAULT_STAGES, answerTypes: false });
  const on = ranked(docs, query);
  expect(off.hits[0]?.id).toBe(before);
  expect(on.hits[0]?.id).toBe(after);
  expect(on.confidence).toBe(off.confidence);
  expect(on.attributed).toBe(off.attributed);
  return on;
};

describe('rank: answer types', () => {
  const tokens: IndexedDocument[] = [
    { id: 'talk', text: 'Driver app auth tokens are refreshed by the app itself.' },
    { id: 'value', text: 'Driver app auth tokens expire after 15 minutes.' },
    { id: 'other', text: 'The driver app shows the route on a map.' },
  ];

  it('a question that asks "how long" puts the match that holds a duration first', () => {
    expect(ranked(tokens, 'How long do the driver app auth tokens last?', { ...DEFAULT_STAGES, answerTypes: false }).hits[0]?.id).toBe('talk');
    expect(ranked(tokens, 'How long do the driver app auth tokens last?').hits[0]?.id).toBe('value');
  });

  it('reorders the matches but leaves the confidence to the best lexical match', () => {
    // The long line covers more of the question ("last"); the duration line now ranks first.
    const docs: IndexedDocument[] = [
      {
        id: 'open',
        text: 'Whether driver app auth tokens should last longer is still an open question for the security review that the platform team plans to hold with the mobile team next quarter in Berlin.',
      },
      { id: 'value', text: 'Driver app auth tokens expire after 15 minutes.' },
      { id: 'other', text: 'The driver app shows the route on a map.' },
    ];
    const on = expectReorderedSameJudgement(docs, 'How long do the driver app auth tokens last?', 'open', 'value');
    expect(on.hits[0]?.final).toBe(on.confidence);
  });

  it('on transcript lines, the attribution check reads the lexical ranking too', () => {
    const lines = [
      chatLine('t1', 'Tom: The marathon was hard, I trained with my club every weekend this spring and summer, rain or shine, with old friends from work.', 0),
      chatLine('p1', 'Priya: I trained for the marathon for 16 weeks.', 1),
      chatLine('t2', 'Tom: How did the race go?', 2),
      chatLine('p2', 'Priya: Great, my knees held up.', 3),
      chatLine('t3', 'Tom: My club meets on Sundays.', 4),
      chatLine('p3', 'Priya: Sounds fun, I might join.', 5),
    ];
    // Priya's line holds the duration and now ranks first; the check still reads Tom's as the best.
    expectReorderedSameJudgement(lines, 'How long did Tom train for the marathon?', 't1', 'p1');
  });

  it('a "when" question puts the matching line that names a day (as chat says it) above one that does not, by less than other shapes', () => {
    const chat: IndexedDocument[] = [
      chatLine('a', 'Ewan: so nervous to start the new job', 0),
      chatLine('b', 'Ewan: the new job starts tmrw at the office', 10),
      chatLine('c', 'Nadia: proud of u', 20),
    ];
    const without = ranked(chat, 'When does Ewan start the new job?', { ...DEFAULT_STAGES, answerTypes: false });
    expect(without.hits[0]?.id).toBe('a');
    const r = ranked(chat, 'When does Ewan start the new job?');
    expect(r.hits[0]?.id).toBe('b');
    const gain = (r.hits.find((h) => h.id === 'b')?.score ?? 0) / (without.hits.find((h) => h.id === 'b')?.score ?? 1);
    expect(gain).toBeCloseTo(1.2, 5);
  });

  it('a "how much" question puts the matching line that names an amount of money first', () => {
    const chat: IndexedDocument[] = [
      chatLine('a', 'Dee: the flights are booked, we fly fri', 0),
      chatLine('b', 'Sam: flights came to £87 each', 10),
      chatLine('c', 'Dee: the flights are so early tho, the 6am flights again', 20),
    ];
    const question = 'How much were the flights?';
    expect(ranked(chat, question, { ...DEFAULT_STAGES, answerTypes: false }).hits[0]?.id).not.toBe('b');
    expect(ranked(chat, question).hits[0]?.id).toBe('b');
  });

  it('a "how much" question about money leaves "much" to the answer type: the other questions that say it do not crowd the amount out', () => {
    const chat: IndexedDocument[] = [
      chatLine('a', 'Lauren: cake!! gemma will do it', 0),
      chatLine('b', 'Lauren: so 2 tiers lemon drizzle', 1),
      chatLine('c', 'Lauren: 85 quid which is basically mates rates', 2),
      chatLine('d', 'Lauren: the venue wants a deposit', 10),
      chatLine('e', 'Kieran: how much is that', 11),
      chatLine('f', 'Lauren: how much do u think', 12),
      chatLine('g', 'Kieran: no idea, how much did the last one want', 13),
    ];
    const r = ranked(chat, 'How much did the cake cost?');
    expect(r.terms.keyword.map((t) => t.term)).not.toContain('much');
    expect(r.hits.slice(0, 3).map((h) => h.id)).toContain('c');
    expect(ranked(chat, 'How much memory does it take?').terms.keyword.map((t) => t.term)).toContain('much');
    expect(ranked(chat, 'how much?').terms.keyword.map((t) => t.term)).toEqual(['much']);
  });

  it('a question that names no answer shape ranks as without the stage', () => {
    const query = 'Which auth tokens does the driver app use?';
    expect(ranked(tokens, query).hits).toEqual(ranked(tokens, query, { ...DEFAULT_STAGES, answerTypes: false }).hits);
  });
});

describe('rank: confidence and final scores', () => {
  it('is high when the bank covers the question and low for a prompt nothing answers', () => {
    const answered = ranked(project, 'Which database instance do we have?');
    const offTopic = ranked(project, 'Write a haiku about autumn leaves');
    expect(answered.confidence).toBeGreaterThan(0.6);
    expect(offTopic.confidence).toBeLessThan(0.35);
  });

  it('a bank of a few memories does not fail a real match for the question words it lacks; a large one still does', () => {
    const three = project.slice(0, 3);
    const question = 'Which bundler did the team pick for the frontend build?';
    const small = ranked(three, question);
    expect(small.hits[0]?.id).toBe('bundle');
    expect(small.confidence).toBeGreaterThanOrEqual(0.4);
    expect(ranked(three, 'write a haiku about autumn leaves').hits).toEqual([]);
    // 200 memories that share none of the question's words: its absent words count in full again.
    const large = [...three, ...Array.from({ length: 200 }, (_, i) => ({ id: `n${i}`, text: `Lunch order ${i} was soup and bread.` }))];
    expect(ranked(large, question).confidence).toBeLessThan(small.confidence);
  });

  it('words that name a time count as known and covered when the best result is dated then', () => {
    // Filler so the bank is not small (absent words count in full).
    const filler = Array.from({ length: 60 }, (_, i) => ({ id: `f${i}`, text: `Lunch order ${i} was soup and bread.`, order: Date.UTC(2023, 0, 1 + (i % 20)) }));
    const docs: IndexedDocument[] = [...filler, { id: 'setback', text: 'I had a setback: I hurt my knee.', order: Date.UTC(2023, 9, 20) }];
    const dated = ranked(docs, 'What setback did she face in October 2023?');
    expect(dated.hits[0]?.id).toBe('setback');
    // The same question about a month no memory is dated in is less sure: its date words are unknown.
    const undated = ranked(docs, 'What setback did she face in March 2021?');
    expect(undated.hits[0]?.id).toBe('setback');
    expect(dated.confidence).toBeGreaterThan(undated.confidence + 0.2);
    expect(dated.confidence).toBeGreaterThan(0.6);
    // Without the temporal stage the date words are plain words the bank lacks.
    expect(ranked(docs, 'What setback did she face in October 2023?', { ...DEFAULT_STAGES, temporal: false }).confidence).toBeCloseTo(undated.confidence, 10);
  });

  it('attribution: a question that gives one participant\'s story to another is less sure; the right one is not', () => {
    const chat: IndexedDocument[] = [
      chatLine('p1', 'Priya: I ran my first marathon in Lisbon last Sunday.', 0),
      chatLine('t1', 'Tom: A marathon! I am impressed. How did you feel after it?', 1),
      chatLine('p2', 'Priya: After the marathon I learned that pacing matters more than speed.', 2),
      chatLine('t2', 'Tom: I baked rye bread at the weekend.', 10),
      chatLine('p3', 'Priya: I repaired my old bicycle.', 11),
      chatLine('t3', 'Tom: I love baking bread.', 12),
    ];
    const right = ranked(chat, 'What did Priya learn from her marathon?');
    const swapped = ranked(chat, 'What did Tom learn from his marathon?');
    expect(right.participants).toEqual(['Priya']);
    expect(right.attributed).toBe(1);
    expect(swapped.participants).toEqual(['Tom']);
    expect(swapped.attributed).toBeLessThan(0.5);
    expect(swapped.confidence).toBeLessThan(0.4);
    expect(right.confidence).toBeGreaterThan(0.6);
    // The check only reads the confidence: the ranking is the same with or without it.
    const unchecked = ranked(chat, 'What did Tom learn from his marathon?', { ...DEFAULT_STAGES, attribution: false });
    expect(unchecked.hits.map((h) => h.id)).toEqual(swapped.hits.map((h) => h.id));
    expect(unchecked.attributed).toBe(1);
    expect(unchecked.confidence).toBeGreaterThan(0.6);
    // Tom's own line is the best result: the ratio stands.
    expect(swapped.hits[0]?.id).toBe('t1');
    expect(swapped.attributed).toBeGreaterThan(0);
    // A question naming both, or nobody, is not checked.
    expect(ranked(chat, 'What did Priya and Tom say about the marathon?').attributed).toBe(1);
    expect(ranked(chat, 'marathon pacing').participants).toEqual([]);
  });

  // Each case: a chat, a question that gives one participant's words to the other (its best
  // result, and nothing attributed), and the same question about the right participant.
  const swaps = [
    {
      // Tom's own words cover "shelter" only, Priya's the whole question, and her line comes first.
      rule: "when another participant's line is the best result despite the boost of the named one's lines, nothing is attributed",
      chat: [
        chatLine('p1', 'Priya: I adopted a grey kitten from the animal shelter.', 0),
        chatLine('t1', 'Tom: So cute! I love grey cats.', 1),
        chatLine('p2', 'Priya: I walked to the park with my sister.', 10),
        chatLine('t2', 'Tom: I volunteer at the animal shelter on Saturdays.', 11),
        chatLine('p3', 'Priya: I repaired my old bicycle.', 20),
        chatLine('t3', 'Tom: I cooked pasta for dinner.', 21),
      ],
      swapped: 'Which kitten did Tom adopt from the shelter?',
      best: 'p1',
      right: 'Which kitten did Priya adopt from the shelter?',
      unrelated: 'Where does Tom volunteer?',
      wrongConfidence: 'none',
    },
    {
      // Tom asked Priya about her violin: the question gives it to Tom; asked about Priya, his question counts for her.
      rule: 'what a line says to the one spoken to counts as theirs',
      chat: [
        chatLine('p1', 'Priya: I played at the spring concert with the orchestra.', 0),
        chatLine('t1', 'Tom: Amazing! What made you pick the violin?', 1),
        chatLine('p2', 'Priya: My grandmother played it when I was little.', 2),
        chatLine('t2', 'Tom: I restored an old sailing boat this summer.', 10),
        chatLine('p3', 'Priya: I repaired my old bicycle.', 11),
        chatLine('t3', 'Tom: I cooked pasta for dinner.', 12),
      ],
      swapped: 'What made Tom pick the violin?',
      best: 't1',
      right: 'What made Priya pick the violin?',
      unrelated: undefined,
      wrongConfidence: 'under the floor',
    },
  ];
  it.each(swaps)('attribution: $rule', ({ chat, swapped, best, right, unrelated, wrongConfidence }) => {
    const wrong = ranked(chat, swapped);
    expect(wrong.hits[0]?.id).toBe(best);
    expect(wrong.attributed).toBe(0);
    if (wrongConfidence === 'none') expect(wrong.confidence).toBe(0);
    else expect(wrong.confidence).toBeLessThan(0.4);
    const answered = ranked(chat, right);
    expect(answered.attributed).toBe(1);
    expect(answered.confidence).toBeGreaterThan(0.6);
    if (unrelated !== undefined) expect(ranked(chat, unrelated).attributed).toBe(1);
  });

  it('attribution: memories that are not transcript lines (a coding bank) are never checked', () => {
    const r = ranked([...project, { id: 'label', text: 'Accessibility: every page must pass axe checks.' }], 'Accessibility: which checks must a page pass?');
    expect(r.participants).toEqual([]);
    expect(r.attributed).toBe(1);
    expect(r.hits[0]?.id).toBe('label');
  });

  it('final = confidence x score / best score: 0-1, in rank order, the best equal to the confidence', () => {
    const r = ranked(project, 'tests on pull requests with vitest');
    expect(r.hits.length).toBeGreaterThan(1);
    expect(r.hits[0]?.final).toBeCloseTo(r.confidence, 10);
    for (let i = 1; i < r.hits.length; i += 1) {
      expect(r.hits[i]?.final ?? 2).toBeLessThanOrEqual(r.hits[i - 1]?.final ?? -1);
      expect(r.hits[i]?.final ?? -1).toBeGreaterThanOrEqual(0);
    }
  });

  it('an empty query, an empty bank and a zero limit rank nothing', () => {
    expect(ranked(project, 'the of and').hits).toEqual([]);
    expect(ranked([], 'database').hits).toEqual([]);
    const { index, textOf } = indexOf(project);
    expect(rank({ index, query: 'database', accept: () => true, limit: 0, textOf }).hits).toEqual([]);
  });

  it('kept verdicts: a repeated filter is asked only about documents it has not met, and a re-added document is asked again', () => {
    const { index, textOf } = indexOf(project);
    const verdicts = new Uint8Array(index.capacity * 2);
    const asked: string[] = [];
    const accept = (id: string): boolean => {
      asked.push(id);
      return id !== 'db';
    };
    const first = rank({ index, query: 'database tests', accept, limit: 10, textOf, verdicts });
    expect(first.hits.map((h) => h.id)).not.toContain('db');
    const askedFirst = asked.length;
    expect(askedFirst).toBeGreaterThan(0);
    const again = rank({ index, query: 'database tests', accept, limit: 10, textOf, verdicts });
    expect(again.hits).toEqual(first.hits);
    expect(asked).toHaveLength(askedFirst);
    // An edit re-adds the document under a new number: its verdict is asked for afresh.
    index.add({ id: 'ci', text: 'GitHub Actions runs the database tests.' });
    rank({ index, query: 'database tests', accept, limit: 10, textOf, verdicts });
    expect(asked.slice(askedFirst)).toEqual(['ci']);
  });

  it('derived: false leaves derived documents out before scoring and never asks accept about them', () => {
    const index = new FieldIndex();
    index.add({ id: 'fact', text: 'The database is PostgreSQL.' });
    index.add({ id: 'obs', text: '**PostgreSQL** (1 fact): The database is PostgreSQL. database database', derived: true });
    const asked: string[] = [];
    const r = rank({ index, query: 'database', accept: (id) => (asked.push(id), true), limit: 10, textOf: () => '', derived: false });
    expect(r.hits.map((h) => h.id)).toEqual(['fact']);
    expect(asked).toEqual(['fact']);
    expect(rank({ index, query: 'database', accept: () => true, limit: 10, textOf: () => '' }).hits.map((h) => h.id).sort()).toEqual(['fact', 'obs']);
  });

  it('accept filters results and the scratch space is clean for the next query', () => {
    const { index, textOf } = indexOf(project);
    const first = rank({ index, query: 'database tests', accept: (id) => id !== 'db', limit: 10, textOf });
    expect(first.hits.map((h) => h.id)).not.toContain('db');
    const again = rank({ index, query: 'database tests', accept: () => true, limit: 10, textOf });
    const fresh = rank({ index, query: 'database tests', accept: () => true, limit: 10, textOf });
    expect(again.hits).toEqual(fresh.hits);
  });

  it('ranks the same best whatever the limit, neighbours and sessions lifting documents the first ranking left out (property)', () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return (seed >>> 16) % n;
    };
    const vocabulary = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'theta', 'kappa'];
    const accept = (id: string): boolean => !id.endsWith('7');
    for (let round = 0; round < 12; round += 1) {
      const docs: IndexedDocument[] = Array.from({ length: 400 }, (_, i) => ({
        id: `d${i}`,
        text: Array.from({ length: 1 + next(8) }, () => vocabulary[next(vocabulary.length)]).join(' '),
        thread: `t${next(60)}`,
        order: next(1000) * MIN,
      }));
      const { index, textOf } = indexOf(docs);
      for (const stages of [DEFAULT_STAGES, { ...DEFAULT_STAGES, session: false }]) {
        for (const query of ['alpha beta', 'gamma', 'delta zeta kappa']) {
          // A limit past every match: the last ranking reads every touched document.
          const whole = rank({ index, query, accept, limit: 1000, textOf, stages });
          expect(whole.hits.length).toBeGreaterThan(150);
          expect(whole.hits.some((h) => h.stage === 'neighbour')).toBe(true);
          for (const limit of [1, 5, 50, 120]) {
            const r = rank({ index, query, accept, limit, textOf, stages });
            expect(r.prefixOfLarger).toBe(true);
            expect(r.hits).toEqual(whole.hits.slice(0, limit));
          }
        }
      }
    }
  });

  it('a ranking that throws leaves no stage or score behind for the next query', () => {
    const docs: IndexedDocument[] = [
      { id: 'bundler', text: 'We use rollup to bundle the package', thread: 'w1', order: 0 },
      { id: 'bundler-why', text: 'the reason is smaller ESM output', thread: 'w1', order: 2 * MIN },
      { id: 'db', text: 'PostgreSQL is the primary database', thread: 'w3', order: 20 * MIN },
    ];
    const { index, textOf } = indexOf(docs);
    const expected = rank({ index, query: 'what bundler do we use', accept: () => true, limit: 10, textOf });
    expect(expected.hits[0]).toMatchObject({ id: 'bundler', stage: 'keyword' });
    // 'bundler' is found as the neighbour of 'bundler-why' here, and by its own word above.
    expect(rank({ index, query: 'smaller output', accept: () => true, limit: 10, textOf }).hits.map((h) => [h.id, h.stage])).toEqual([
      ['bundler-why', 'keyword'],
      ['bundler', 'neighbour'],
    ]);
    const failing = (): string => {
      throw new Error('text unreadable');
    };
    expect(() => rank({ index, query: 'smaller output', accept: () => true, limit: 10, textOf: failing })).toThrow('text unreadable');
    expect(rank({ index, query: 'what bundler do we use', accept: () => true, limit: 10, textOf }).hits).toEqual(expected.hits);
  });

  it('a filter that throws leaves no verdict behind for the next query', () => {
    const { index, textOf } = indexOf(project);
    const everything = rank({ index, query: 'database tests', accept: () => true, limit: 10, textOf });
    expect(everything.hits.map((h) => h.id)).toContain('db');
    // 'db' is refused, then the filter fails on the next document it is asked about.
    let asked = 0;
    const failing = (id: string): boolean => {
      asked += 1;
      if (asked > 1) throw new Error('filter failed');
      return id !== 'db' && id !== 'ci';
    };
    expect(() => rank({ index, query: 'database tests', accept: failing, limit: 10, textOf })).toThrow('filter failed');
    expect(rank({ index, query: 'database tests', accept: () => true, limit: 10, textOf }).hits).toEqual(everything.hits);
  });
});
