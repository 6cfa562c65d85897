/**
 * The analyzer's word tokenising as it was before its per-word work was memoised and its ASCII
 * scans written as character loops (2026-11-27): the plain reference the differential test
 * holds the fast code to, token for token.
 */
import { chatWord } from '../../../../src/server/search/chatWords.js';
import { codingWord } from '../../../../src/server/search/codingWords.js';
import { EMOJI, emojiName } from '../../../../src/server/search/emoji.js';
import { fullName } from '../../../../src/server/search/names.js';
import { STOP_WORDS } from '../../../../src/server/search/stopwords.js';

const WORD = /[\p{L}\p{N}_]+/gu;
const HYPHENATED = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu;
// What an apostrophe leaves behind: "Mel's" -> "s", "don't" -> "don" + "t", "I've" -> "ve".
const CONTRACTION_PARTS: ReadonlySet<string> = new Set(
  'aren couldn didn doesn don hadn hasn haven isn ll mustn re shan shouldn ve wasn weren won wouldn'.split(' '),
);

const skip = (lower: string): boolean => STOP_WORDS.has(lower) || CONTRACTION_PARTS.has(lower) || (lower.length === 1 && !/\d/.test(lower));
// A capital after a lower-case letter or digit starts a part ("retainQueue"), and so does the
// last capital of an acronym run before a word ("TRDeadlockDetected" -> "TR", "Deadlock",
// "Detected"), but not a plural's ("URLs", "PRs" stay whole).
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll}{2})/u;
const NON_ASCII = /[^\t\n\r\u0020-\u007e]/;

// "log in", "signed up": the particle is a stop word, so the verb would stand alone and "log in"
// would search the logging vocabulary. The pair is read as one word ("login", "signup") where
// what follows says it is the verb (a preposition, a conjunction, the end of a clause), not a
// noun and a place ("the deploy log in CI", "the logs in Grafana").
const PHRASAL = /\b(log|sign)(?:s|ged|ging|ed|ing)?[ \t]+(in|on|out|up)(?=[ \t]+(?:to|with|via|using|through|as|from|for|again|and|or|before|after|first)\b|[ \t]*(?:[.,;:!?)]|$))/gim;

// A verb and particle that tech writing also spells as one word ("set up" / "setup", "back up" /
// "backup", "roll back" / "rollback"): joined wherever they meet, since the particle alone is a
// stop word or says nothing, and the notes say "setup", "backup", "rollback".
const COMPOUNDS: ReadonlySet<string> = new Set(['setup', 'backup', 'rollback', 'rollout', 'cleanup', 'lookup', 'startup', 'shutdown', 'teardown', 'warmup']);
const COMPOUND = /\b(set|back|roll|clean|look|start|shut|tear|warm)(?:s|ed|ing|ting|ped|ping)?[ \t]+(up|down|back|out)\b/gi;

const joinParticles = (text: string): string =>
  text
    .replace(PHRASAL, '$1$2')
    .replace(COMPOUND, (whole: string, verb: string, particle: string) => (COMPOUNDS.has(`${verb}${particle}`.toLowerCase()) ? `${verb}${particle}` : whole));

const SENTENCE_END = /[.!?:\n]\s*$/;

/**
 * A word written as a name: capitalised ("Tom: ...", "ask Rob"), and for a stop word ("Will")
 * not the first of its sentence ("Will you ..." is the verb).
 */
const asName = (text: string, raw: string, lower: string, at: number): boolean =>
  /^\p{Lu}\p{Ll}/u.test(raw) && (!STOP_WORDS.has(lower) || (at > 0 && !SENTENCE_END.test(text.slice(Math.max(0, at - 4), at))));

/** Lower-cased word tokens without stop words, not stemmed (query expansion needs the words). */
export const referenceWords = (input: string): string[] => {
  const out: string[] = [];
  const joined = joinParticles(input);
  // An emoji counts as the words of its name ("🎂" -> "birthday cake").
  const text = NON_ASCII.test(joined) ? joined.replace(EMOJI, (e) => ` ${emojiName(e)} `) : joined;
  for (const match of text.matchAll(WORD)) {
    // An acronym used as a verb is the acronym ("DJed" -> "DJ").
    const raw = /^(\p{Lu}{2,5})(?:ed|ing)$/u.exec(match[0])?.[1] ?? match[0];
    // Chat spelling to the word it stands for ("tmrw" -> "tomorrow", "sooo" -> "so").
    // and a nickname to the name it stands for ("kt", "Kate" -> "katherine").
    const chat = codingWord(chatWord(raw.toLowerCase()));
    const lower = fullName(chat, asName(text, raw, chat, match.index));
    if (!skip(lower)) out.push(lower);
    // Parts of an identifier, after the whole: "retainQueue" also gives "retain" and "queue".
    // Most words are plain lower case: only those with an underscore or a capital are split.
    if (raw === lower && !raw.includes('_')) continue;
    const parts = raw.split(CAMEL).flatMap((p) => p.split('_'));
    if (parts.length > 1) for (const p of parts) if (p.length > 1 && !skip(p.toLowerCase())) out.push(codingWord(p.toLowerCase()));
  }
  // A hyphenated compound also counts as one word ("on-call" gives "oncall", "e-mail" "email"),
  // after its parts so the parts keep their order for phrase matching.
  if (text.includes('-')) for (const match of text.matchAll(HYPHENATED)) out.push(match[0].replace(/-/g, '').toLowerCase());
  return out;
};

