import { describe, expect, it } from 'vitest';
import { attributionOf, namedParticipants, ownWords, speakerOf } from '../../../src/server/search/attribution.js';

describe('speakerOf', () => {
  it('reads the name that labels a transcript line', () => {
    expect(speakerOf('Caroline: I went to the LGBTQ support group yesterday.')).toBe('Caroline');
    expect(speakerOf('Mary Ann: Thanks!')).toBe('Mary Ann');
    expect(speakerOf("O'Brien: sure")).toBe("O'Brien");
  });

  it('takes no label that is not a name, and no colon later in the text', () => {
    expect(speakerOf('Note: run the migrations first.')).toBeUndefined();
    expect(speakerOf('User: which bundler do we use?')).toBeUndefined();
    expect(speakerOf('We decided to bundle with rollup: it tree-shakes.')).toBeUndefined();
    expect(speakerOf('pnpm: the only package manager')).toBeUndefined();
    expect(speakerOf('TODO: fix the flaky test')).toBeUndefined();
    expect(speakerOf('Caroline:no space')).toBeUndefined();
  });
});

describe('ownWords', () => {
  it('keeps what the speaker says of themselves and drops what they say to the other', () => {
    const line = 'Melanie: Thanks, Caroline! I ran a charity race last Saturday. How was your week?';
    const own = ownWords(line);
    expect(own).toContain('I ran a charity race');
    expect(own).toContain('Thanks, Caroline!');
    expect(own).not.toContain('your week');
  });

  it('a line that only speaks to the other has no own words; its statements that address nobody are its own, its questions are not', () => {
    expect(ownWords('Caroline: Wow! What got you into running?')).toBe('');
    expect(ownWords('Caroline: Love that purple color! For walking or running?')).toBe(' Love that purple color!');
    expect(ownWords("Jon: Hey Gina! How's the store going? I gotta tell you about my biz.")).toBe(' Hey Gina! I gotta tell you about my biz.');
    expect(ownWords('Nate: What should I cook tonight?')).toBe(' What should I cook tonight?');
  });

  it('attributionOf gives speaker and own words for a line, nothing for a plain memory', () => {
    expect(attributionOf('Jon: I lost my job as a banker.')).toEqual({ speaker: 'Jon', own: ' I lost my job as a banker.' });
    expect(attributionOf('We decided to bundle with rollup.')).toEqual({});
  });
});

describe('namedParticipants', () => {
  const people = ['Caroline', 'Melanie', 'Mark'];
  it('finds participants named as whole words, possessives included', () => {
    expect(namedParticipants("What did Caroline realize after Melanie's race?", people)).toEqual(['Caroline', 'Melanie']);
    expect(namedParticipants('What did Carolines do?', people)).toEqual([]);
  });

  it('matches the case the bank writes: "mark" is a word, "Mark" a name', () => {
    expect(namedParticipants('mark the test as skipped', people)).toEqual([]);
    expect(namedParticipants('What does Mark think of the remarks Markus made?', people)).toEqual(['Mark']);
    expect(namedParticipants('Remarkable: what did Mark say?', people)).toEqual(['Mark']);
  });
});
