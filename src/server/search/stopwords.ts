/**
 * English stop words, dropped from the index and the query: upstream's keyword arm is
 * PostgreSQL full-text search with the english configuration, which drops them too. It also
 * keeps common words from turning a query into a scan of the whole bank.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves'
  ).split(' '),
);

/**
 * The one personal pronoun the stop list keeps: "us" ("we", "our", "me" are on it). A question's
 * "us" asks about nobody in particular (chat says it in every other line), and WordNet reads it
 * as the United States. Left out of the query when written in lower case or capitalised ("Us"),
 * not in capitals ("US": the country); the index keeps it, so saved indexes stand.
 */
export const QUERY_STOP_WORDS: ReadonlySet<string> = new Set(['us']);

/**
 * Words of English's closed classes that the stop list keeps as words of a line (a pronoun, a
 * preposition, an interjection, chat's shorthand for one) but whose WordNet entries are another
 * word spelt the same: "us" is the United States there, "oh" Ohio, "one" an ace, "behind" the
 * buttocks, "rn" radon. Asked in a question they are the function word, so no dictionary sense
 * is searched for them (unless written in capitals, where "US" or "OH" is the abbreviation).
 */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'us one ones also around along across behind beyond within upon onto via per ' +
    'oh ok okay hi hey wow bye rn fr'
  ).split(' '),
);
