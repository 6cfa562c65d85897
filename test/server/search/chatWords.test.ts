import { describe, expect, it } from 'vitest';
import { analyze } from '../../../src/server/search/analyzer.js';
import { chatWord } from '../../../src/server/search/chatWords.js';
import { codingWord } from '../../../src/server/search/codingWords.js';
import { emojiName } from '../../../src/server/search/emoji.js';

describe('chat spelling meets the words notes and questions use', () => {
  it.each([
    ['tmrw', 'tomorrow'],
    ['pls', 'please'],
    ['bday', 'birthday'],
    ['nite', 'night'],
    ['yday', 'yesterday'],
    ['wknd', 'weekend'],
    ['pics', 'photos'],
    ['physio', 'physiotherapist'],
    ['meds', 'medication'],
    ['uni', 'university'],
    ['nana', 'grandmother'],
    ['nanas', 'grandmothers'],
    ['recs', 'recommendations'],
    ['sooo', 'so'],
    ['yesss', 'yes'],
    ['noooo', 'no'],
    ['coool', 'cool'],
    ['goood', 'good'],
    ['morninggg', 'morning'],
  ])('%s is %s', (chat, word) => {
    expect(chatWord(chat)).toBe(word);
    expect(analyze(`${chat} x`)).toEqual(analyze(`${word} x`));
  });

  it('reads a contraction typed without its apostrophe as the function word it is (a stop word)', () => {
    expect(analyze("dont cant couldnt shouldnt im theyre")).toEqual([]);
    expect(analyze("couldnt come to game nite")).toEqual(analyze("couldn't come to game night"));
  });

  it('reads a function word typed fast as the stop word it is, so it is no word the bank lacks', () => {
    expect(analyze('wat was the fix, wich one, teh lock')).toEqual(analyze('fix one lock'));
  });

  it('reads coding clippings as the words they stand for, in identifiers too', () => {
    expect(analyze('which pg vers is in the cfg')).toEqual(analyze('pg version config'));
    expect(analyze('the fn impl')).toEqual(analyze('function implementation'));
    expect(analyze('ledgerSvc')).toEqual([...analyze('ledgersvc'), ...analyze('ledger service')]);
    for (const word of ['dev', 'sec', 'tmp', 'min', 'max', 'ts', 'db', 'env']) expect(codingWord(word)).toBe(word);
  });

  it('leaves words code and English use otherwise alone', () => {
    for (const word of ['def', 'min', 'rn', 'txt', 'id', 'ill', 'lets', 'wont', 'were', 'well', 'www', 'aaa', 'zzz']) expect(chatWord(word)).toBe(word);
  });
});

describe('an emoji counts as the words of its name', () => {
  it('names a plain emoji, one with a variation selector, a skin tone or joined pictographs', () => {
    expect(emojiName('🎂')).toBe('birthday cake');
    expect(emojiName('☕️')).toBe('hot beverage');
    expect(emojiName('👍🏽')).toBe('thumbs up');
    expect(emojiName('👨‍🍳')).toBe('man cook');
  });

  it('is searched by those words', () => {
    expect(analyze('ok chef 👨‍🍳')).toEqual(expect.arrayContaining(analyze('cook')));
    expect(analyze('no 🥜🚫 pls')).toEqual(expect.arrayContaining(analyze('peanuts')));
    // A pictograph the list does not name (a code point reserved for emoji) is no word.
    expect(analyze('\u{1FAFF} unknown emoji')).toEqual(analyze('unknown emoji'));
  });
});
