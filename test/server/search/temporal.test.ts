import { describe, expect, it } from 'vitest';
import { timeCues } from '../../../src/server/search/temporal.js';

const NOW = Date.UTC(2024, 2, 15, 12);
const matches = (query: string, at: number): boolean => timeCues(query, NOW).some((c) => c.matches(at));

describe('timeCues', () => {
  it('a month alone matches that month in any year; with a year, only that month', () => {
    expect(matches('what did we do in May?', Date.UTC(2021, 4, 3))).toBe(true);
    expect(matches('what did we do in May?', Date.UTC(2021, 5, 3))).toBe(false);
    expect(matches('the release in May 2023', Date.UTC(2023, 4, 31))).toBe(true);
    expect(matches('the release in May 2023', Date.UTC(2022, 4, 31))).toBe(false);
    expect(matches('anything from Sept?', Date.UTC(2020, 8, 1))).toBe(true);
  });

  it('"May" opening a question is the verb, and words that are not dates name no time', () => {
    expect(timeCues('May I ask what we chose?', NOW)).toEqual([]);
    expect(timeCues('which bundler do we use', NOW)).toEqual([]);
  });

  it('a year alone, and spans relative to the query moment', () => {
    expect(matches('what happened in 2022', Date.UTC(2022, 11, 31))).toBe(true);
    expect(matches('what happened in 2022', Date.UTC(2023, 0, 1))).toBe(false);
    expect(matches('what broke yesterday', Date.UTC(2024, 2, 14, 9))).toBe(true);
    expect(matches('what broke yesterday', Date.UTC(2024, 2, 13, 9))).toBe(false);
    expect(matches('decisions last week', Date.UTC(2024, 2, 8))).toBe(true);
    expect(matches('decisions last year', Date.UTC(2023, 6, 1))).toBe(true);
    expect(timeCues('decisions last week', NOW).map((c) => c.cue)).toEqual(['last week']);
  });

  it('"this week" runs from Monday, "this month" from the 1st, "the other day" two to seven days back (15 March 2024, a Friday)', () => {
    expect(matches('what did we fix this week', Date.UTC(2024, 2, 11, 9))).toBe(true);
    expect(matches('what did we fix this week', Date.UTC(2024, 2, 10, 9))).toBe(false);
    expect(matches('what broke this month', Date.UTC(2024, 2, 1, 9))).toBe(true);
    expect(matches('what broke this month', Date.UTC(2024, 1, 29, 9))).toBe(false);
    expect(matches('the fix jon mentioned the other day', Date.UTC(2024, 2, 10, 9))).toBe(true);
    expect(matches('the fix jon mentioned the other day', Date.UTC(2024, 2, 15, 9))).toBe(false);
    expect(matches('the fix jon mentioned the other day', Date.UTC(2024, 2, 1, 9))).toBe(false);
  });

  it('"today" and "last <weekday>" are days counted back from the query moment (15 March 2024, a Friday)', () => {
    expect(matches('what did kt say today', Date.UTC(2024, 2, 15, 8))).toBe(true);
    expect(matches('what did kt say today', Date.UTC(2024, 2, 14, 8))).toBe(false);
    expect(matches('where were we last sunday', Date.UTC(2024, 2, 10, 20))).toBe(true);
    expect(matches('where were we last sunday', Date.UTC(2024, 2, 17, 20))).toBe(false);
    expect(matches('where were we last sunday', Date.UTC(2024, 2, 3, 20))).toBe(false);
    // The same weekday as the query's is a week back, not the query's own day.
    expect(matches('the call last friday', Date.UTC(2024, 2, 8, 9))).toBe(true);
    expect(matches('the call last friday', Date.UTC(2024, 2, 15, 9))).toBe(false);
  });

  it('records the words that say the time: the month, a day number beside it, the year', () => {
    expect(timeCues('What did Priya do on 16 August, 2023?', NOW).map((c) => c.words)).toEqual([['august', '16', '2023']]);
    expect(timeCues('the painting shown on October 13, 2023', NOW).map((c) => c.words)).toEqual([['october', '13', '2023']]);
    expect(timeCues('which book on 8th December?', NOW).map((c) => c.words)).toEqual([['december', '8th']]);
    expect(timeCues('what happened in 2022', NOW).map((c) => c.words)).toEqual([['2022']]);
    expect(timeCues('decisions last week', NOW).map((c) => c.words)).toEqual([['last', 'week']]);
    // "October 13, 2023": the year after the day still narrows the month.
    expect(matches('the painting shown on October 13, 2023', Date.UTC(2023, 9, 2))).toBe(true);
    expect(matches('the painting shown on October 13, 2023', Date.UTC(2022, 9, 13))).toBe(false);
    // A number that is no day of a month is not taken.
    expect(timeCues('the 45 tickets in May 2023', NOW).map((c) => c.words)).toEqual([['may', '2023']]);
  });

  it('a day named beside the month is a day inside the cue: a memory dated that day is on it', () => {
    const onDay = (query: string, at: number): boolean => timeCues(query, NOW).some((c) => c.onDay?.(at) === true);
    expect(onDay("Why didn't the engineer come back on 13 January?", Date.UTC(2026, 0, 13, 18))).toBe(true);
    expect(onDay("Why didn't the engineer come back on 13 January?", Date.UTC(2026, 0, 14, 9))).toBe(false);
    expect(onDay('the painting shown on October 13, 2023', Date.UTC(2023, 9, 13))).toBe(true);
    expect(onDay('the painting shown on October 13, 2023', Date.UTC(2022, 9, 13))).toBe(false);
    expect(onDay('which book on 8th December?', Date.UTC(2021, 11, 8))).toBe(true);
    // A month alone names no day.
    expect(timeCues('When did they go camping in July?', NOW).every((c) => c.onDay === undefined)).toBe(true);
  });
});
