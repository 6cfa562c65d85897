import { describe, expect, it } from 'vitest';
import { addressedWords, asksQuestion, attributionOf, earlierQuestions, namedParticipants, opensWithYesOrNo, ownWords, speakerOf } from '../../../src/server/search/attribution.js';

describe('speakerOf', () => {
  it('reads the name that labels a transcript line', () => {
    expect(speakerOf('Priya: I went to the climbing gym yesterday.')).toBe('Priya');
    expect(speakerOf('Mary Ann: Thanks!')).toBe('Mary Ann');
    expect(speakerOf("O'Brien: sure")).toBe("O'Brien");
  });

  it('takes no label that is not a name, and no colon later in the text', () => {
    expect(speakerOf('Note: run the migrations first.')).toBeUndefined();
    expect(speakerOf('User: which bundler do we use?')).toBeUndefined();
    expect(speakerOf('We decided to bundle with rollup: it tree-shakes.')).toBeUndefined();
    expect(speakerOf('pnpm: the only package manager')).toBeUndefined();
    expect(speakerOf('TODO: fix the flaky test')).toBeUndefined();
    expect(speakerOf('Priya:no space')).toBeUndefined();
  });
});

describe('ownWords', () => {
  it('keeps what the speaker says of themselves and drops what they say to the other', () => {
    const line = 'Priya: Thanks, Tom! I ran a marathon last Sunday. How was your week?';
    const own = ownWords(line);
    expect(own).toContain('I ran a marathon');
    expect(own).not.toContain('Thanks, Tom!');
    expect(own).not.toContain('your week');
  });

  it('a clause about the listener in a sentence that also says "I" is not the speaker\'s own', () => {
    const line = 'Tom: I love that you chose pottery for your art, and I might try it too.';
    expect(ownWords(line)).toBe(' I love and I might try it too.');
    expect(addressedWords(line)).toBe('that you chose pottery for your art');
  });

  it('a sentence that calls the listener by name speaks to them, not of the speaker', () => {
    const line = 'Tom: That charity race sounds great, Mel! Raising awareness is so rewarding.';
    expect(ownWords(line)).toBe('Raising awareness is so rewarding.');
    expect(addressedWords(line)).toBe(' That charity race sounds great, Mel!');
  });

  it('a line that only speaks to the other has no own words; its statements that address nobody are its own, its questions are not', () => {
    expect(ownWords('Tom: Wow! What made you pick the violin?')).toBe('');
    expect(ownWords('Tom: Nice shot of the harbour! For work or for fun?')).toBe(' Nice shot of the harbour!');
    expect(ownWords('Priya: Hey Tom! How is the bakery doing? I have to tell you about my new job.')).toBe(' Hey Tom! I have to tell you about my new job.');
    expect(ownWords('Tom: What should I cook tonight?')).toBe(' What should I cook tonight?');
  });

  it('addressedWords keeps what the speaker says to and of the one spoken to: sentences that say "you" and not "I"', () => {
    expect(addressedWords('Tom: Wow! What made you pick the violin?')).toBe('What made you pick the violin?');
    expect(addressedWords('Priya: Thanks, Tom! I ran a marathon last Sunday. How was your week?')).toBe(' Thanks, Tom! How was your week?');
    expect(addressedWords('Tom: Your new hair colour looks great! Did you dye it yourself?')).toBe(' Your new hair colour looks great! Did you dye it yourself?');
    expect(addressedWords('Priya: I have to tell you about my new job.')).toBe('');
    expect(addressedWords('Tom: I sold my old car.')).toBe('');
  });

  it('attributionOf gives speaker, own and addressed words for a line, nothing for a plain memory', () => {
    expect(attributionOf('Tom: I sold my old car.')).toEqual({ speaker: 'Tom', own: ' I sold my old car.', addressed: '' });
    expect(attributionOf('Tom: I sold my old car. Do you need a bike?')).toEqual({ speaker: 'Tom', own: ' I sold my old car.', addressed: 'Do you need a bike?' });
    expect(attributionOf('We decided to bundle with rollup.')).toEqual({});
  });
});

describe('asksQuestion', () => {
  it('reads a question with or without its mark, as chat writes it', () => {
    expect(asksQuestion('Tomasz: how many lessons have u had now')).toBe(true);
    expect(asksQuestion('Nadia: can we go to the lake one again')).toBe(true);
    expect(asksQuestion('Priya: wat do u need for the hosue')).toBe(true);
    expect(asksQuestion('Ewan: ok so when do u land')).toBe(true);
    expect(asksQuestion('Tomasz: 40??')).toBe(true);
    expect(asksQuestion('Ewan: schlachtensee? 😂')).toBe(true);
    expect(asksQuestion('Melanie: Thanks! We are going camping next month. Any fun plans for the summer?')).toBe(true);
  });

  it('takes no statement for a question: a verb with no subject after it, a sentence ending in "." or "!", a question asked before the line goes on', () => {
    expect(asksQuestion('Dani: will do')).toBe(false);
    expect(asksQuestion('Tom: did it!')).toBe(false);
    expect(asksQuestion('Ewan: u just started ur job')).toBe(false);
    expect(asksQuestion('Priya: I adopted a grey kitten from the animal shelter.')).toBe(false);
    expect(asksQuestion('Priya: How was it? I loved the concert.')).toBe(false);
    expect(asksQuestion('Tom: 😂')).toBe(false);
  });

  it('reads a question word and a verb as a question though chat ends it with "!"; an exclamation stays one', () => {
    expect(asksQuestion('Aisha: how was it!!!')).toBe(true);
    expect(asksQuestion('Bea: where are u!! 😭')).toBe(true);
    expect(asksQuestion('Ollie: what a day!')).toBe(false);
    expect(asksQuestion('Rhys: how cool is that!')).toBe(false);
    expect(asksQuestion('Tom: did it!')).toBe(false);
  });
});

describe('earlierQuestions', () => {
  it('finds a question asked before the line goes on, which asksQuestion leaves out', () => {
    const line = 'Caroline: Wow, sounds wonderful! What concert was it? The advocacy event was a cool experience - so much love and support, amazing!';
    expect(asksQuestion(line)).toBe(false);
    expect(earlierQuestions(line)).toEqual(['What concert was it?']);
    expect(earlierQuestions('Priya: How was it? I loved the concert.')).toEqual(['How was it?']);
  });

  it('finds none in a line without a question before its last sentence', () => {
    expect(earlierQuestions('Priya: I adopted a grey kitten from the animal shelter.')).toEqual([]);
    expect(earlierQuestions('Melanie: We are going camping next month. Any fun plans for the summer?')).toEqual([]);
    expect(earlierQuestions('Tomasz: 40??')).toEqual([]);
  });
});

describe('namedParticipants', () => {
  const people = ['Priya', 'Tom', 'Mark'];
  it('finds participants named as whole words, possessives included', () => {
    expect(namedParticipants("What did Priya learn after Tom's race?", people)).toEqual(['Priya', 'Tom']);
    expect(namedParticipants('What did Priyas do?', people)).toEqual([]);
  });

  it('matches the case the bank writes: "mark" is a word, "Mark" a name', () => {
    expect(namedParticipants('mark the test as skipped', people)).toEqual([]);
    expect(namedParticipants('What does Mark think of the remarks Markus made?', people)).toEqual(['Mark']);
    expect(namedParticipants('Remarkable: what did Mark say?', people)).toEqual(['Mark']);
  });
});

describe('opensWithYesOrNo', () => {
  it('reads a yes or a no that opens a line, after at most two words such as "oh" or "ngl"', () => {
    expect(opensWithYesOrNo("Niamh: ya st clare's, the one that looked after grandad")).toBe(true);
    expect(opensWithYesOrNo('Niamh: ngl yes. he fixes stuff')).toBe(true);
    expect(opensWithYesOrNo('Callum: Yeah, I booked it')).toBe(true);
    expect(opensWithYesOrNo('Nia: nope, friday')).toBe(true);
    expect(opensWithYesOrNo('Nia: no')).toBe(true);
  });

  it('takes no reaction or statement for an answer: "noooo", a later yes, a word that starts with one', () => {
    expect(opensWithYesOrNo('Niamh: noooo')).toBe(false);
    expect(opensWithYesOrNo('Leah: cute, yes')).toBe(false);
    expect(opensWithYesOrNo('Leah: yesterday was fine')).toBe(false);
    expect(opensWithYesOrNo('Leah: nobody came')).toBe(false);
    expect(opensWithYesOrNo('Tom: 😂')).toBe(false);
  });
});
