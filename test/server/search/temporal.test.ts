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
});
