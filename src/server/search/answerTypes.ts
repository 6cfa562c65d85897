/**
 * Answer types, the oldest trick of question answering: some questions say what shape their
 * answer has. "How long are tokens valid?" wants a duration, "How often do probes report?" a
 * frequency, "At what time does the nightly job start?" a clock time, "Where is the lint
 * config?" a place (in a project: a path or a URL), "Why do we self-host the broker?" a reason
 * ("... because the managed one bills per message"). A memory that matches the question's words
 * *and* holds a value of that shape ("tokens expire after 15 minutes") is more likely the answer
 * than one that only repeats the words ("we discussed token validity").
 *
 * Types are bits of a mask. Only the question forms below are read; "how many" is left out (any
 * number matches, so it ranks nothing), while "how much", a price or a cost asks for money, which
 * a line shows by its currency ("£87", "900 quid", "21pp", "8k"), and "who" or "what is the name
 * of" asks for a name, which English introduces with "called" or "named". "When" asks for a date, which the temporal stage reads
 * from the memory's date; but chat says the day in the line, relative to when it is sent ("first
 * day tmrw", "let him home yesterday", "mine is weds 9am"), so a line that names a day is a
 * value of that shape too, a weaker one (the ranker boosts it less: DATE_BOOST_SHARE).
 */

export const DURATION = 1;
export const FREQUENCY = 2;
export const SIZE = 4;
export const CLOCK_TIME = 8;
export const PERCENTAGE = 16;
export const VERSION = 32;
export const PLACE = 64;
export const REASON = 128;
export const DATE = 256;
export const MONEY = 512;
export const NAME = 1024;
export const LIMIT = 2048;

/**
 * A question that asks for a maximum or a minimum names it with one of these words ("what max
 * number of guests did we settle on"), and chat states it with another ("hard cap of 55", "we
 * capped the list at 55", "no more than 40"): the ranker searches the family's other words too.
 * "max" in lower case only: "Max" is as often a name (LoCoMo's dog).
 */
export const LIMIT_QUESTION = /\b(?:max|[Mm]aximum|[Mm]inimum|[Ll]imit|[Cc]ap)\b|\b(?:at most|no more than|upper limit|at the most)\b/;
/** The family's words a question's limit word also searches (stemmed by the ranker). */
export const LIMIT_WORDS: readonly string[] = ['cap', 'capped', 'max', 'maximum', 'limit', 'ceiling'];

const QUESTION_FORMS: readonly (readonly [RegExp, number])[] = [
  [/\bhow long\b/i, DURATION],
  [/\bhow (?:often|frequently)\b|\bhow many times\b/i, FREQUENCY],
  [/\b(?:what|which) time\b/i, CLOCK_TIME],
  [/\bhow (?:big|large|small)\b|\bhow much (?:memory|disk|space|storage|ram|flash)\b/i, SIZE],
  [/\bpercent|\bwhat (?:share|fraction)\b/i, PERCENTAGE],
  [/\b(?:what|which) version\b/i, VERSION],
  [/\bwhere\b/i, PLACE],
  [/\bwhy\b/i, REASON],
  // "What is the name of ...", "what's she called", "who ...": a person or a thing by its name.
  [/\bwhat(?:'s|s| is| was)? (?:the |his |her |their |its )?names?\b|\bwhat(?:'s|s| is| was) (?:he|she|it|they) called\b|^\W*who(?:'s|s| is| was| were)?\b/i, NAME],
  [LIMIT_QUESTION, LIMIT],
  [/\bhow much\b(?! (?:memory|disk|space|storage|ram|flash|time|longer)\b)|\b(?:price|prices|cost|costs|fee|fees|quote)\b/i, MONEY],
  // "When did ...", "whens the party", "what day is ...": not a "when" inside a question about
  // something else, nor a prompt that opens with a clause ("When I run the tests, they fail").
  [/^\W*when(?:'?s\b|\s+(?:and|is|are|was|were|do|does|did|will|would|should|can|could|has|have|had|am|r)\b)|\b(?:what|which) (?:day|date)\b/i, DATE],
];

const UNITS_OF_TIME = '(?:ms|milliseconds?|secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|years?)';
const NUMBER_WORDS = '(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|sixty|ninety)';

// A duration often names which kind of time it counts ("5-7 working days", "two more weeks").
const KIND_OF_TIME = '(?:(?:working|business|calendar|school|full|whole|more|extra)\\s+)?';

// "How long has she been seeing him?" -> "since new year": a span up to now, named by where it
// starts (a time, not a cause: "since u asked").
const SINCE_A_TIME = '\\bsince (?:new year|christmas|easter|(?:last|this) \\w+|yesterday|(?:the )?(?:spring|summer|autumn|fall|winter)|(?:jan|feb|march|april|may|june|july|aug|sept?|oct|nov|dec)[a-z]*|(?:mon|tues|wednes|thurs|fri|satur|sun)day|\\d{4}|uni|school|forever|ages)\\b';

const VALUE_SHAPES: readonly (readonly [RegExp, number])[] = [
  [new RegExp(`\\b\\d+(?:[.,]\\d+)?\\s*-?\\s*${KIND_OF_TIME}${UNITS_OF_TIME}\\b|\\b\\d+[smhd]\\b|\\b${NUMBER_WORDS}\\s+${KIND_OF_TIME}${UNITS_OF_TIME}\\b|${SINCE_A_TIME}`, 'i'), DURATION],
  [/\bevery\b|\b(?:daily|weekly|nightly|hourly|monthly|yearly|annually|quarterly|biweekly)\b|\b(?:once|twice) (?:a|per)\b|\bper (?:day|week|hour|minute|month|sprint)\b|\bcron\b/i, FREQUENCY],
  [/\b\d+(?:[.,]\d+)?\s*(?:b|kb|mb|gb|tb|kib|mib|gib|tib|bytes?)\b/i, SIZE],
  // Chat gives the hour alone where the words around it say it is one: "at 2", "by 3", "from 4",
  // "at half 8" (not "at 10 people", "by 3rd", "at 20%").
  [/\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*(?:am|pm)\b|\b(?:at|from|till|til|until|by) (?:half |quarter (?:past |to )?)?\d{1,2}\b(?![:.,]?\d|\s*(?:%|st|nd|rd|th|k|[a-z]))|\bhalf (?:past )?\d{1,2}\b/i, CLOCK_TIME],
  [/\d\s*%|\bpercent/i, PERCENTAGE],
  [/\bv?\d+\.\d+(?:\.\d+)?\b/i, VERSION],
  // A path ("mobile/e2e", "tools/lint/.golangci.yml"), a URL, or a named place ("from Sweden").
  [/\b[\w.-]*\/[\w./-]+|https?:\/\/|\b(?:in|at|from|to|near)\s+(?:the\s+)?\p{Lu}\p{Ll}+/u, PLACE],
  // Chat gives a place by its street, in lower case: "on the high st", "that place on cowly rd".
  [/\b(?:on|in|at|off|near|to|from|by)\s+(?:the\s+)?(?!the\s)(?:[\p{L}'’&-]+\s+){1,2}(?:rd|road|st|street|ln|lane|ave|avenue|sq|square)\b/iu, PLACE],
  // "since" and "after" are left out: as often they only say when.
  // A day as chat names it: relative ("yesterday", "tmrw", "last night", "next week"), a weekday
  // ("weds", "thursday"), a day of the month ("the 24th", "24 june", "june 24"), or "ago".
  [/\b(?:yesterday|yday|yest|ystrdy|today|2day|tonight|tonite|2nite|tomorrow|tmrw|tmrrw|tmr|tomoz|2moro|2morrow|fri|thu|thur|tue)\b|\b(?:last|this|next) (?:night|morning|week|wk|weekend|wknd|month|year|mon|tues?|wed|weds|thurs?|fri|sat|sun)|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:weds|thurs|tues)\b|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]* \d{1,2}\b|\bago\b/i, DATE],
  // English introduces a name with "called" or "named" ("a guy called malcolm", "the lady is called
  // marguerite", "his name is jonas").
  [/\b(?:called|named)\s+[a-z]|\bname(?:'s|s| is| was)\s+[a-z]/i, NAME],
  [/[£$€]\s?\d|\b\d+(?:[.,]\d+)?\s?(?:quid|grand|pounds?|dollars?|euros?|bucks|pp)\b|\b\d+k\b|\b(?:paid|pay|pays|paying|cost|costs|costing|owe|owes|owed|charged?|charging|spent|spend|refund(?:ed|ing)?)\b(?:\s+\w+){0,2}?\s+\d|\b\d+(?:[.,]\d+)?\s+(?:each|a head|per (?:person|head|month|week|night)|a (?:month|week|night))\b/i, MONEY],
  // A number said as a bound: "cap of 55", "capped the list at 55", "no more than 40", "up to 60", "55 max".
  [/\b(?:cap|caps|capped|max|maximum|minimum|min|limit|limited|ceiling|no more than|no less than|at most|at least|up to|tops)\b(?:\s+[\w']+){0,3}?\s+[£$€]?\d|\b\d+\s*(?:max|tops|maximum|minimum|at most)\b/i, LIMIT],
  [/\bbecause\b|\bso that\b|\bdue to\b|\bin order to\b|\bto (?:avoid|prevent|keep|reduce|save|stop|make sure|ensure)\b|\bcaused?\b|\breason\b/i, REASON],
];

/** The types among `of` that `text` shows (only their patterns are run: a recall reads 200 texts). */
const maskOf = (text: string, shapes: readonly (readonly [RegExp, number])[], of: number): number => {
  let mask = 0;
  for (const [pattern, type] of shapes) if ((of & type) !== 0 && pattern.test(text)) mask |= type;
  return mask;
};

const ALL_TYPES = DURATION | FREQUENCY | SIZE | CLOCK_TIME | PERCENTAGE | VERSION | PLACE | REASON | DATE | MONEY | NAME | LIMIT;

/**
 * What a line that names a day gets of the answer-type boost. A memory's own date answers
 * "when" as well, and most lines that name a day are about another one: LoCoMo dev R@10 fell
 * from 85.9% to 85.5% at the full boost and to 85.8% at half of it; at 0.4 of it no set lost.
 */
export const DATE_BOOST_SHARE = 0.4;

/**
 * A polar question ("is neev ok with tom moving in", "did u book it"): an auxiliary verb first and
 * a word after it. Chat answers it with a yes or a no a line or two after the words asked about
 * ("tom asked if he can move in in jan" -> "his lease ends dec 31st" -> "ngl yes. he fixes stuff"),
 * which the ranking reads as a value a few lines on (ranker.ts `valueLines`).
 */
export const asksYesOrNo = (question: string): boolean => /^\W*(?:did|does|do|is|are|r|was|were|has|have|had|can|could|will|would|should)\s+\w/i.test(question);

// A limit word beside a shape of value says which value is bounded ("is there a cap on how big the
// binary can get": a size), and that shape is what the answer shows.
const BOUNDED_SHAPES = DURATION | FREQUENCY | SIZE | CLOCK_TIME | PERCENTAGE | MONEY;

/** The answer types a question asks for (0: none it says). */
export const questionAnswerTypes = (question: string): number => {
  const mask = maskOf(question, QUESTION_FORMS, ALL_TYPES);
  return (mask & BOUNDED_SHAPES) !== 0 ? mask & ~LIMIT : mask;
};

/** The answer types, among `wanted` (default: all), of the values a memory's text holds. */
export const valueAnswerTypes = (text: string, wanted: number = ALL_TYPES): number => maskOf(text, VALUE_SHAPES, wanted);
