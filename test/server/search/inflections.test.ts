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

describe('a verb whose particle is a stop word is read with it', () => {
  it.each([
    ['How do I log in to the warehouse?', 'login'],
    ['Users logged in through SSO', 'login'],
    ['She signed up for a pottery class', 'signup'],
    ['Sign out to end the session', 'signout'],
  ])('%s has %s', (text, word) => {
    expect(analyze(text)).toContain(analyze(word)[0]);
    expect(analyze(text)).not.toContain('log');
  });

  it('leaves a log and a sign alone', () => {
    expect(analyze('the deploy log in CI')).not.toContain('login');
    expect(analyze('the logs in Grafana')).toContain('log');
    expect(analyze('a sign of progress')).toContain('sign');
    expect(analyze('rotate the logs')).toContain('log');
  });
});

describe('a verb and particle that notes spell as one word meet that word', () => {
  it.each([
    ['How do I set up the dev environment?', 'the setup script'],
    ['Who backed up the database?', 'nightly backup'],
    ['Can we roll back a bad deploy?', 'the rollback plan'],
    ['Rolling out to every region', 'a staged rollout'],
    ['Clean up old branches', 'the cleanup job'],
    ['Shutting down the server', 'graceful shutdown'],
  ])('%s meets %s', (question, note) => {
    const noteTerms = new Set(analyze(note));
    expect(analyze(question).some((term) => noteTerms.has(term) && term.length > 4)).toBe(true);
  });

  it('leaves pairs that make no such word alone', () => {
    expect(analyze('we set out early')).toContain('set');
    expect(analyze('look out for ice')).toContain('look');
  });
});

describe('a final y after a consonant meets its inflections (Porter keeps it only where no vowel comes before)', () => {
  it.each([
    ['cry', 'cried'],
    ['crying', 'cries'],
    ['try', 'tried'],
    ['fly', 'flies'],
    ['dry', 'dried'],
    ['spy', 'spied'],
  ])('%s meets %s', (a, b) => {
    expect(analyze(a)).toEqual(analyze(b));
  });

  it('leaves a two-letter word and a y after a vowel as Porter has them', () => {
    expect(analyze('by the bay, days and keys')).toEqual(['bai', 'dai', 'kei']);
    expect(analyze('my gym')).toEqual(['gym']);
  });
});

describe('an acronym used as a verb is the acronym', () => {
  it('reads "DJed", "DJing", "CCed" as "DJ" and "CC", not as "D" and "Jed"', () => {
    expect(analyze('Who DJed at the party?')).toEqual(analyze('dj party'));
    expect(analyze('DJing')).toEqual(analyze('djs'));
    expect(analyze('I CCed Sam')).toEqual(analyze('cc sam'));
  });

  it('leaves a word shouted in capitals and a plural acronym as they were', () => {
    expect(analyze('SEEDED')).toEqual(['seed']);
    expect(analyze('PRs URLs')).toEqual(['pr', 'url']);
  });
});
