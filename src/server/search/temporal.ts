/**
 * Times a query names, as cues a memory's date can match: a month ("in May", "May 2023"), a
 * year ("in 2022"), or a span relative to the query's moment ("yesterday", "today", "last
 * sunday", "last week", "this week", "the other day", "last month", "this month", "last
 * year"). A month without a year matches that month in any year.
 */
export interface TimeCue {
  /** The words that named it, for the trace. */
  readonly cue: string;
  /**
   * The query's words that say the time (lower case): the month, a day number next to it, the
   * year. A memory dated in the span answers them, though its text need not hold them.
   */
  readonly words: readonly string[];
  readonly matches: (time: number) => boolean;
  /** A day the cue names inside its span ("13 January", "October 13, 2023"): a memory dated that day. */
  readonly onDay?: (time: number) => boolean;
}

import { item } from './columns.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
// Abbreviations that are not also common words ("mar", "may", "jun" are left out).
const ABBREVIATIONS: Readonly<Record<string, number>> = { jan: 0, feb: 1, apr: 3, aug: 7, sep: 8, sept: 8, oct: 9, nov: 10, dec: 11 };
const DAY = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const YEAR = /^(19|20)\d\d$/;

/** A month or weekday name: a date to the temporal stage, not a topic word. */
export const isCalendarName = (word: string): boolean => MONTHS.includes(word) || WEEKDAYS.includes(word);

const monthOf = (word: string): number => {
  const w = word.toLowerCase();
  const full = MONTHS.indexOf(w);
  return full >= 0 ? full : (ABBREVIATIONS[w] ?? -1);
};

const DAY_OF_MONTH = /^(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?$/;

const within = (cue: string, words: readonly string[], start: number, end: number): TimeCue => ({ cue, words, matches: (t) => t >= start && t < end });

/** Cues named in `query`; `now` (the query timestamp) anchors the relative ones. */
export const timeCues = (query: string, now: number): TimeCue[] => {
  const out: TimeCue[] = [];
  const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
  const years = words.filter((w) => YEAR.test(w)).map(Number);
  words.forEach((w, i) => {
    const month = monthOf(w);
    // "May" opening a sentence is the verb ("May I ...").
    if (month < 0 || (month === 4 && i === 0)) return;
    const prev = words[i - 1];
    let next = words[i + 1];
    // "16 August", "8th December", "October 13": the day goes with the month.
    const day = [prev, next].find((d) => d !== undefined && DAY_OF_MONTH.test(d.toLowerCase()));
    if (day !== undefined && day === next) next = words[i + 2];
    const named = [w, ...(day === undefined ? [] : [day])].map((x) => x.toLowerCase());
    const yearWord = next !== undefined && YEAR.test(next) ? next : years.length === 1 ? String(years[0]) : undefined;
    const cue: TimeCue =
      yearWord === undefined
        ? { cue: w, words: named, matches: (t) => new Date(t).getUTCMonth() === month }
        : within(`${w} ${yearWord}`, [...named, yearWord], Date.UTC(Number(yearWord), month, 1), Date.UTC(Number(yearWord), month + 1, 1));
    const date = day === undefined ? 0 : parseInt(day, 10);
    out.push(date === 0 ? cue : { ...cue, onDay: (t) => cue.matches(t) && new Date(t).getUTCDate() === date });
  });
  if (out.length === 0) for (const y of years) out.push(within(String(y), [String(y)], Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1)));
  const lower = query.toLowerCase();
  const today = Math.floor(now / DAY) * DAY;
  if (/\byesterday\b/.test(lower)) out.push(within('yesterday', ['yesterday'], today - DAY, today));
  if (/\b(?:today|tonight)\b/.test(lower)) out.push(within('today', ['today'], today, today + DAY));
  // "last sunday": the most recent Sunday before the query's day (one to seven days back).
  const weekday = /\blast (sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/.exec(lower);
  if (weekday !== null) {
    const [phrase, day = ''] = weekday;
    const back = ((new Date(today).getUTCDay() - WEEKDAYS.indexOf(day) + 6) % 7) + 1;
    out.push(within(phrase, [day], today - back * DAY, today - (back - 1) * DAY));
  }
  if (/\blast week\b/.test(lower)) out.push(within('last week', ['last', 'week'], today - 14 * DAY, today));
  if (/\blast month\b/.test(lower)) out.push(within('last month', ['last', 'month'], today - 62 * DAY, today));
  // "this week": since the Monday before; "the other day": two to seven days back.
  if (/\bthis (?:week|wk)\b/.test(lower)) out.push(within('this week', ['week'], today - ((new Date(today).getUTCDay() + 6) % 7) * DAY, today + DAY));
  if (/\bthis month\b/.test(lower)) {
    const d = new Date(today);
    out.push(within('this month', ['month'], Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), today + DAY));
  }
  const lately = /\b(?:the other day|a few days ago|couple (?:of )?days ago)\b/.exec(lower);
  if (lately !== null) out.push(within(lately[0], ['day', 'days'], today - 7 * DAY, today - DAY));
  if (/\blast year\b/.test(lower)) {
    const y = new Date(now).getUTCFullYear() - 1;
    out.push(within('last year', ['last', 'year'], Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1)));
  }
  return out;
};

// A Map, not an object: looking a word up as an object key made V8 internalise every word of
// every indexed text (a quarter of this function's cost at ingest).
const RELATIVE_DAYS: ReadonlyMap<string, number> = new Map([
  ['yesterday', -1],
  ['today', 0],
  ['tonight', 0],
  ['tomorrow', 1],
]);
/**
 * Whether `relativeDayWords` reads this word (a relative day, or the "night" of "last night"): a
 * text none of whose words it reads names no relative day. The analyzer asks it of each distinct
 * word, so indexing need not walk every text's words again.
 */
export const mayNameDay = (word: string): boolean => RELATIVE_DAYS.has(word) || word === 'night';

// Order values below this are positions, not times: nothing to resolve a day against.
const EARLIEST = Date.UTC(1970, 0, 2);

const ordinal = (day: number): string => {
  const last = day % 10;
  const suffix = day >= 11 && day <= 13 ? 'th' : last === 1 ? 'st' : last === 2 ? 'nd' : last === 3 ? 'rd' : 'th';
  return `${day}${suffix}`;
};

/**
 * The absolute date words of the days a text names relative to its own date: "saw him yesterday"
 * said on 8 May 2023 gives "may", "7", "7th", "sunday", so a question naming the date or the day
 * finds it. `words` are the text's lower-case words (analyzer `words`: chat spellings such as
 * "yday" already read as "yesterday"); `time` is the memory's date. Each day once; linear in the
 * words.
 */
const NO_WORDS: readonly string[] = [];

export const relativeDayWords = (words: readonly string[], time: number | undefined): readonly string[] => {
  if (time === undefined || !(time >= EARLIEST)) return NO_WORDS;
  const offsets = new Set<number>();
  for (let i = 0; i < words.length; i += 1) {
    const w = words[i];
    // Every relative day begins with "t" or "y", "night" with "n": other words need no lookup.
    const first = w === undefined ? 0 : w.charCodeAt(0);
    if (first !== 116 && first !== 121 && first !== 110) continue;
    const offset = w === undefined ? undefined : RELATIVE_DAYS.get(w);
    if (offset !== undefined) offsets.add(offset);
    // "last night": the evening before the message.
    else if (w === 'night' && words[i - 1] === 'last') offsets.add(-1);
  }
  if (offsets.size === 0) return NO_WORDS;
  const out: string[] = [];
  for (const offset of offsets) {
    const day = new Date(Math.floor(time / DAY) * DAY + offset * DAY);
    const date = day.getUTCDate();
    out.push(item(MONTHS, day.getUTCMonth()), String(date), ordinal(date), item(WEEKDAYS, day.getUTCDay()));
  }
  return out;
};

// Spans a text names relative to its own date, as days from that date (first, last).
const RELATIVE_SPANS: readonly { readonly pattern: RegExp; readonly span: (weekday: number) => readonly [number, number] }[] = [
  { pattern: /\blast (?:week|wk)\b/, span: (w) => [-w - 7, -w - 1] },
  { pattern: /\bthis (?:week|wk)\b/, span: (w) => [-w, 6 - w] },
  { pattern: /\bnext (?:week|wk)\b/, span: (w) => [7 - w, 13 - w] },
  { pattern: /\b(?:last|this past) (?:weekend|wknd|wkend)\b/, span: (w) => [-((w + 1) % 7) - 1, -((w + 1) % 7)] },
  { pattern: /\b(?:the other day|a few days ago|couple (?:of )?days ago)\b/, span: () => [-5, -2] },
];
const SPAN_WORD = /week|wk|day|month/;
/**
 * Whether lower-case text holds a word a relative span needs ("week", "wk", "day", "month"):
 * without one, `relativeSpanWords` of it is empty. The analyzer asks it of each distinct ASCII
 * word, so indexing learns it without lower-casing and searching each text again.
 */
export const mayNameSpan = (lower: string): boolean => SPAN_WORD.test(lower);
const MONTH_SPANS: readonly { readonly pattern: RegExp; readonly offset: number }[] = [
  { pattern: /\blast month\b/, offset: -1 },
  { pattern: /\bthis month\b/, offset: 0 },
  { pattern: /\bnext month\b/, offset: 1 },
];

/**
 * The month names of the spans a text names relative to its own date ("last week", "this
 * weekend", "the other day", "next month"): "the other day" said on 2 May 2023 gives "april"
 * and "may", so a question naming the month finds it. `time` is the memory's date.
 */
export const relativeSpanWords = (text: string, time: number | undefined): readonly string[] => {
  if (time === undefined || !(time >= EARLIEST)) return NO_WORDS;
  const lower = text.toLowerCase();
  // Every span above names a week ("wk" too), a day or a month: most texts name none.
  if (!SPAN_WORD.test(lower)) return NO_WORDS;
  const day = Math.floor(time / DAY) * DAY;
  const weekday = new Date(day).getUTCDay();
  const months = new Set<string>();
  for (const { pattern, span } of RELATIVE_SPANS) {
    if (!pattern.test(lower)) continue;
    const [first, last] = span(weekday);
    months.add(item(MONTHS, new Date(day + first * DAY).getUTCMonth()));
    months.add(item(MONTHS, new Date(day + last * DAY).getUTCMonth()));
  }
  const date = new Date(day);
  for (const { pattern, offset } of MONTH_SPANS) if (pattern.test(lower)) months.add(item(MONTHS, (date.getUTCMonth() + 12 + offset) % 12));
  return [...months];
};
