/**
 * Who a memory is attributed to, and whom a query asks about. A memory written as a
 * transcript line, "Priya: I ran my first marathon last Sunday", is something Priya said of
 * herself; the bank's participants are the names that label its lines. A query that names a
 * participant ("What did Priya learn from the marathon?") asks about what that participant
 * said or did, so the ranking favours the participant's own lines, and the confidence drops
 * when another participant's own lines answer the query better than theirs (ranker.ts): the
 * question then gives one person's story to another.
 *
 * A line's *own words* are what its speaker says of themselves: the sentences that say "I",
 * "my", "we", and the statements that address nobody ("Nice shot of the harbour!"), of a line
 * that speaks of its speaker at all. A question without "I" asks about someone else ("How is
 * the bakery doing?"), and a line that only speaks to someone ("Wow! What made you pick the
 * violin?") is about the one it speaks to: neither is the speaker's own.
 *
 * A line's *addressed words* are the reverse: the sentences that say "you" and not "I" ("What
 * made you pick the violin?", "Your new hair colour looks great!") speak of the one spoken to,
 * so they count for the other side in the confidence's check: a question about Tom's violin is
 * answered by Priya asking Tom about it as well as by Tom's own line.
 *
 * Coding memories rarely carry a speaker label ("We decided to bundle with rollup") and
 * prompts rarely name one: then nothing here applies.
 */

/** Capitalised words that label lines without naming a person ("Note:", "User:"). */
const NOT_NAMES: ReadonlySet<string> = new Set(
  (
    'A An And As At But By For From He Her His How I If In Is It Its My No Not Of On Or Our She So The Their Then There These They ' +
    'This To We What When Where Which Who Why Will With You Your Yes Also After Before Because Please Thanks Today Tomorrow Yesterday ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July August September October ' +
    'November December User Assistant System Human Bot Agent Model Tool Note Notes Todo Fix Bug Decision Summary Context Question ' +
    'Answer Update Warning Error Info Example Step Result Status Reason Goal Task Issue Tip Important Rule Convention Fact Project'
  ).split(' '),
);

// One to three capitalised words ("Priya", "Mary Ann", "O'Brien"; not "TODO"), then a colon and a space.
const NAME_WORD = "\\p{Lu}(?=[\\p{L}'’-]*\\p{Ll})[\\p{L}'’-]+";
const LABEL = new RegExp(`^\\s*(${NAME_WORD}(?: ${NAME_WORD}){0,2}):\\s`, 'u');

/** The speaker a memory is a line of ("Priya: ..." -> "Priya"), or undefined. */
export const speakerOf = (text: string): string | undefined => {
  const label = LABEL.exec(text)?.[1];
  if (label === undefined) return undefined;
  return label.split(' ').some((w) => NOT_NAMES.has(w)) ? undefined : label;
};

const FIRST_PERSON = /\b(?:i|i'm|i’m|i've|i’ve|i'd|i’d|i'll|i’ll|me|my|mine|myself|we|we're|we’re|we've|we’ve|us|our|ours|ourselves)\b/i;
const SECOND_PERSON = /\b(?:you|you're|you’re|you've|you’ve|you'd|you’d|you'll|you’ll|your|yours|yourself|yourselves)\b/i;
const SENTENCE_END = /(?<=[.!?])\s+|\s+[-–—]\s+/;

const bodyOf = (line: string): string => line.slice(line.indexOf(':') + 1);

/** Where a sentence's clauses meet: punctuation inside it, or a conjunction that opens a clause. */
const CLAUSE_END = /\s*[,;:]\s+|\s+(?=(?:that|because|and|but|so|when|if|since|while|how|what)\s)/i;
/** A name called out at the end of a sentence ("That race sounds great, Mel!"). */
const VOCATIVE = /,\s*\p{Lu}\p{Ll}+\s*[!.?]*\s*$/u;

/** Whether a sentence or clause speaks to someone: it says "you" or calls them by name. */
const speaksTo = (text: string): boolean => SECOND_PERSON.test(text) || VOCATIVE.test(text);
/** Whether it speaks of the one spoken to and not of the speaker. */
const ofListener = (text: string): boolean => speaksTo(text) && !FIRST_PERSON.test(text);

/**
 * A line's body split between the speaker's own words and the words addressed to the listener,
 * in one pass: a sentence that says "I" is read clause by clause (in "I love that you chose
 * pottery", the clause about the listener is theirs, not the speaker's pottery); one that only
 * speaks to the listener is addressed; a statement that addresses nobody is the speaker's own,
 * a question that addresses nobody neither. A line that says "you" and never "I" has no own words.
 */
const sidesOf = (line: string): { readonly own: string; readonly addressed: string } => {
  const body = bodyOf(line);
  const own: string[] = [];
  const told: string[] = [];
  for (const sentence of body.split(SENTENCE_END)) {
    if (FIRST_PERSON.test(sentence)) for (const clause of sentence.split(CLAUSE_END)) (ofListener(clause) ? told : own).push(clause);
    else if (speaksTo(sentence)) told.push(sentence);
    else if (!sentence.trimEnd().endsWith('?')) own.push(sentence);
  }
  const speaksOfSelf = FIRST_PERSON.test(body) || !SECOND_PERSON.test(body);
  return { own: speaksOfSelf ? own.join(' ') : '', addressed: told.join(' ') };
};

/** What the speaker of a transcript line says of themselves (see above); '' when nothing. */
export const ownWords = (line: string): string => sidesOf(line).own;

/** What the speaker of a transcript line says to and of the one spoken to (see above); '' when nothing. */
export const addressedWords = (line: string): string => sidesOf(line).addressed;

/** The speaker, own words and addressed words of a memory's text, when it is a transcript line. */
export const attributionOf = (text: string): { speaker?: string; own?: string; addressed?: string } => {
  const speaker = speakerOf(text);
  if (speaker === undefined) return {};
  const { own, addressed } = sidesOf(text);
  return { speaker, own, addressed };
};

/** Words that open a question: "how many lessons have u had", "wat do u need". */
const INTERROGATIVES: ReadonlySet<string> = new Set('how hows what whats wat wut when whens where wheres which who whos whom whose why'.split(' '));
/** Verbs that open a question when a subject follows ("can we go", "did u hear"; "will do" is no question). */
const AUXILIARIES: ReadonlySet<string> = new Set(
  'am are r is was were do does did can could will would shall should have has had may might dont doesnt didnt isnt arent wasnt werent cant couldnt wont wouldnt shouldnt havent hasnt'.split(' '),
);
const SUBJECTS: ReadonlySet<string> = new Set('u you ya ye we i they he she it ur your the this that these those there anyone anybody someone somebody everyone ppl people'.split(' '));
/** Words chat puts before a question without changing it ("ok so when is it"). */
const OPENERS: ReadonlySet<string> = new Set('ok okay k so and but also btw wait hey oh omg lol haha um hmm well anyway then'.split(' '));

/** A sentence's words, lower case, apostrophes dropped ("Don't you" -> ["dont", "you"]). */
const openingWords = (text: string): readonly string[] =>
  text
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);

/** The index of the first word past at most two of `openers` ("oh ok so when ..." -> "so"). */
const skipOpeners = (words: readonly string[], openers: ReadonlySet<string>): number => {
  let at = 0;
  while (at < 2 && openers.has(words[at] ?? '')) at += 1;
  return at;
};

/**
 * Whether a transcript line asks the one spoken to something, so that the next speaker's line
 * answers it: its last sentence ends with a question mark, or (chat leaves the mark out) opens,
 * after an "ok" or "so", with a question word or with a verb followed by its subject ("how many
 * lessons have u had now", "can we go to the lake one again"). A sentence ending in "." or "!"
 * does not ("did it!"), nor one that opens with a verb and no subject ("will do").
 */
export const asksQuestion = (line: string): boolean => {
  const sentences = bodyOf(line)
    .split(SENTENCE_END)
    .map((x) => x.trim())
    // An emoji after the question is no sentence of its own ("schlachtensee? 😂").
    .filter((x) => /[\p{L}\p{N}]/u.test(x));
  const last = sentences[sentences.length - 1];
  if (last === undefined) return false;
  if (/\?[^\p{L}\p{N}]*$/u.test(last)) return true;
  if (/\.[^\p{L}\p{N}]*$/u.test(last)) return false;
  const opening = openingWords(last);
  const at = skipOpeners(opening, OPENERS);
  const first = opening[at] ?? '';
  const second = opening[at + 1] ?? '';
  // Chat ends an eager question with "!" ("how was it!!!", "where are u!!"): a question word and
  // then a verb asks whatever the mark; "what a day!", "how cool is that!" exclaim.
  if (/![^\p{L}\p{N}]*$/u.test(last)) return INTERROGATIVES.has(first) && AUXILIARIES.has(second);
  return INTERROGATIVES.has(first) || (AUXILIARIES.has(first) && SUBJECTS.has(second));
};

/**
 * The questions a transcript line asks before its last sentence: "What concert was it? The
 * advocacy event was a cool experience - so much love and support" asks what concert, though
 * the line ends on a statement (so `asksQuestion` is false). The answer after it answers that
 * question, not the rest of the line.
 */
export const earlierQuestions = (line: string): readonly string[] => {
  if (!line.includes('?')) return [];
  const sentences = bodyOf(line).split(SENTENCE_END);
  return sentences
    .slice(0, -1)
    .map((s) => s.trim())
    .filter((s) => /\?[^\p{L}\p{N}]*$/u.test(s));
};

/** Words that answer a yes/no question ("ya st clare's", "nope, friday"); not "noooo", which reacts. */
const YES_OR_NO: ReadonlySet<string> = new Set('yes yess yesss yeah yea yeh ya yah yep yup yh no nope nah'.split(' '));
/** Words chat puts before an answer without changing it ("ngl yes", "oh yeah"). */
const ANSWER_OPENERS: ReadonlySet<string> = new Set('ok okay oh um hmm well ngl tbh honestly lol haha omg'.split(' '));

/**
 * Whether a transcript line opens with a yes or a no, after at most two words such as "oh" or
 * "ngl": it answers what the other said just before as a question, whether or not that line had
 * a question mark ("its for st clairs right not the other hospice" -> "ya st clare's, the one that
 * looked after grandad"). Chat drops the mark; the answer still says it was asked.
 */
export const opensWithYesOrNo = (line: string): boolean => {
  const opening = openingWords(bodyOf(line));
  return YES_OR_NO.has(opening[skipOpeners(opening, ANSWER_OPENERS)] ?? '');
};

/** A speaker of fewer lines is a label, not a participant ("Accessibility: pages pass axe"). */
export const MIN_LINES = 2;

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * The participants `query` names, written as the bank writes them (case matters: "Mark" is a
 * name, "mark" a word), as whole words ("Priya's" names Priya).
 */
export const namedParticipants = (query: string, participants: Iterable<string>): string[] => {
  const out: string[] = [];
  for (const p of participants) {
    for (let at = query.indexOf(p); at >= 0; at = query.indexOf(p, at + 1)) {
      const before = query[at - 1];
      const after = query[at + p.length];
      if ((before === undefined || !WORD_CHAR.test(before)) && (after === undefined || !WORD_CHAR.test(after))) {
        out.push(p);
        break;
      }
    }
  }
  return out;
};
