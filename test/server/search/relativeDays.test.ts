import { describe, expect, it } from 'vitest';
import { words } from '../../../src/server/search/analyzer.js';
import { FieldIndex, type IndexedDocument } from '../../../src/server/search/fieldIndex.js';
import { DEFAULT_STAGES, rank } from '../../../src/server/search/ranker.js';
import { relativeDayWords, relativeSpanWords } from '../../../src/server/search/temporal.js';

const MAY_8 = Date.UTC(2023, 4, 8, 13, 56);

const ranked = (docs: readonly IndexedDocument[], query: string, now?: number): string[] => {
  const index = new FieldIndex();
  const text = new Map<string, string>();
  for (const d of docs) {
    index.add(d);
    text.set(d.id, d.text);
  }
  return rank({ index, query, accept: () => true, limit: 10, textOf: (id) => text.get(id) ?? '', stages: DEFAULT_STAGES, ...(now === undefined ? {} : { now }) }).hits.map((h) => h.id);
};

describe('relativeDayWords: days named relative to the memory resolved to their date', () => {
  it('"yesterday" in a line of 8 May 2023 is 7 May, a Sunday', () => {
    expect(relativeDayWords(words('saw him yesterday at the pub'), MAY_8)).toEqual(['may', '7', '7th', 'sunday']);
  });

  it('today, tonight, tomorrow, "last night" and chat spellings ("yday", "tmrw"), each day once', () => {
    expect(relativeDayWords(words('tonight or tmrw? today is packed'), MAY_8)).toEqual(['may', '8', '8th', 'monday', 'may', '9', '9th', 'tuesday']);
    expect(relativeDayWords(words('last night was wild, yday too'), MAY_8)).toEqual(['may', '7', '7th', 'sunday']);
    // Across a month and a leap day; 11th-13th are "th".
    expect(relativeDayWords(['yesterday'], Date.UTC(2024, 2, 1, 9))).toEqual(['february', '29', '29th', 'thursday']);
    expect(relativeDayWords(['tomorrow'], Date.UTC(2024, 2, 10))).toEqual(['march', '11', '11th', 'monday']);
    expect(relativeDayWords(['tomorrow'], Date.UTC(2024, 2, 21))).toEqual(['march', '22', '22nd', 'friday']);
  });

  it('no date, a position instead of a time, or no relative word: nothing added', () => {
    expect(relativeDayWords(['yesterday'], undefined)).toEqual([]);
    expect(relativeDayWords(['yesterday'], 4000)).toEqual([]);
    expect(relativeDayWords(words('the night shift was last in line'), MAY_8)).toEqual([]);
  });
});

describe('rank: a relative day in a dated line is found by the date it names', () => {
  const docs: IndexedDocument[] = [
    { id: 'pub', text: 'saw him yesterday at the pub, he looked rough', order: MAY_8 },
    { id: 'gym', text: 'saw him at the gym, he looked great', order: Date.UTC(2023, 4, 20) },
    { id: 'park', text: 'saw him at the park on the 9th, he looked tired', order: Date.UTC(2023, 3, 2) },
  ];

  it('"on 7 May", "may 7th" and "on sunday" find the line that said "yesterday" on 8 May', () => {
    expect(ranked(docs, 'where did I see him on 7 May?')[0]).toBe('pub');
    expect(ranked(docs, 'where did i see him on may 7th')[0]).toBe('pub');
    expect(ranked(docs, 'where did i see him on sunday')[0]).toBe('pub');
  });

  it('without the date the lines rank by their words alone', () => {
    expect(ranked(docs, 'where did I see him at the gym')[0]).toBe('gym');
  });

  it('a question saying "yesterday" is resolved against its own date', () => {
    expect(ranked(docs, 'who looked rough yesterday', Date.UTC(2023, 4, 9, 10))[0]).toBe('pub');
    const twins: IndexedDocument[] = [
      { id: 'may20', text: 'he looked great', order: Date.UTC(2023, 4, 20, 18) },
      { id: 'may8', text: 'he looked great', order: MAY_8 },
    ];
    expect(ranked(twins, 'how did he look yesterday', Date.UTC(2023, 4, 21, 10))[0]).toBe('may20');
    expect(ranked(twins, 'how did he look yesterday', Date.UTC(2023, 4, 9, 10))[0]).toBe('may8');
  });
});

describe('relativeSpanWords: weeks and months named relative to the memory resolved to their months', () => {
  it('"last week", "this week", "next week" said on Monday 8 May 2023', () => {
    expect(relativeSpanWords('went hiking last week', MAY_8)).toEqual(['april', 'may']);
    expect(relativeSpanWords('busy this week', MAY_8)).toEqual(['may']);
    expect(relativeSpanWords('flying out nxt wk? no, next week', MAY_8)).toEqual(['may']);
    // In any case: the words are looked for in the lower-cased text (the Kelvin sign lower-cases to "k").
    expect(relativeSpanWords('Went hiking LAST WEEK', MAY_8)).toEqual(['april', 'may']);
    expect(relativeSpanWords('busy this w\u212a', MAY_8)).toEqual(['may']);
  });

  it('"last weekend" and "the other day" at the start of a month reach back into the one before', () => {
    // Tuesday 2 May 2023: the weekend was 29-30 April; the other day, 27-30 April.
    expect(relativeSpanWords('last weekend we went camping', Date.UTC(2023, 4, 2))).toEqual(['april']);
    expect(relativeSpanWords('saw her the other day', Date.UTC(2023, 4, 2))).toEqual(['april']);
  });

  it('"last month", "this month", "next month", across a year', () => {
    expect(relativeSpanWords('started last month, ends next month', Date.UTC(2024, 0, 15))).toEqual(['december', 'february']);
    expect(relativeSpanWords('this month is packed', Date.UTC(2024, 0, 15))).toEqual(['january']);
  });

  it('no date, or no span named: nothing added', () => {
    expect(relativeSpanWords('last week', undefined)).toEqual([]);
    expect(relativeSpanWords('the week was long, the last of the month', MAY_8)).toEqual([]);
  });
});

describe('rank: a relative span in a dated line is found by the month it names', () => {
  it('"in April" finds the line that said "last week" on 2 May', () => {
    const docs: IndexedDocument[] = [
      { id: 'hike', text: 'we went on a big hike last week, so pretty', order: Date.UTC(2023, 4, 2) },
      { id: 'swim', text: 'we went on a big swim, so pretty', order: Date.UTC(2023, 5, 20) },
    ];
    expect(ranked(docs, 'what did we do in april')[0]).toBe('hike');
  });
});
