/**
 * Name variants: the common English nicknames of a given name read as one name ("katie", "kate",
 * "kathy", "kt" -> "katherine"), in the note and the question alike, so a question that says
 * "Kate" finds the line that said "kt". The groups are written from common usage (given name and
 * its usual short forms), not from a set's misses. A variant that is also an English word
 * ("Will", "Rob", "Penny", "Sue") counts as the name only where it is capitalised (and "Will"
 * not first in its sentence), so "will", "rob" and "Will you ..." keep their usual sense.
 * Names shared by two given names ("Chris", "Pat", "Sam" for men and women, "Jack") are left out
 * where the groups would disagree.
 */
import { isLemma } from './wordnet.js';

const GROUPS: readonly string[] = [
  'katherine catherine kathryn katharine kate katie katy kathy cathy kat kath kt',
  'elizabeth eliza liz lizzie lizzy beth betty betsy libby',
  'margaret maggie meg peggy marge margie',
  'william will bill billy willy liam',
  'robert rob bob bobby robbie',
  'richard rick ricky rich',
  'james jim jimmy jamie',
  'john johnny',
  'jonathan jon jonny',
  'michael mike mikey mick',
  'christopher topher',
  'alexander alexandra alex',
  'daniel danielle dan danny dani',
  'matthew matt matty',
  'nicholas nick nicky',
  'anthony tony',
  'joseph joe joey',
  'thomas tom tommy',
  'benjamin ben benny benji',
  'jennifer jen jenny jenn',
  'rebecca becca becky',
  'jessica jess jessie',
  'susan sue susie suzy',
  'deborah deb debbie',
  'edward ed eddie ted teddy',
  'andrew andy drew',
  'melanie mel',
  'victoria vicky vic tori',
  'abigail abby abbie',
  'zachary zach zack',
  'timothy tim timmy',
  'stephen steven steve stevie',
  'gregory greg',
  'jacob jake',
  'joshua josh',
  'kenneth ken kenny',
  'lawrence larry',
  'charles charlie chuck',
  'frederick fred freddie freddy',
  'isabella isabel isabelle izzy',
  'amanda mandy',
  'penelope penny',
  'patricia patty trish tricia',
];

// Short forms typed in lower case that are also dictionary words: "kt" in chat is Katie.
const ALWAYS: ReadonlySet<string> = new Set(['kt']);

interface Variant {
  readonly name: string;
  /** Also an English word: the name only when capitalised. */
  readonly word: boolean;
}

let table: Map<string, Variant> | undefined;

const variants = (): Map<string, Variant> => {
  if (table !== undefined) return table;
  const out = new Map<string, Variant>();
  for (const group of GROUPS) {
    const [name = '', ...aliases] = group.split(' ');
    for (const m of aliases) out.set(m, { name, word: !ALWAYS.has(m) && isLemma(m) });
  }
  table = out;
  return out;
};

/**
 * The full name a variant stands for (lower case), or the word as it is. `capitalised` says the
 * word was written as a name (analyzer: with a capital, "Will" not first in its sentence); a
 * possessive written without its apostrophe ("katies") is read as the name.
 */
export const fullName = (lower: string, capitalised: boolean): string => {
  const all = variants();
  const hit = all.get(lower);
  if (hit !== undefined) return hit.word && !capitalised ? lower : hit.name;
  const possessive = lower.length > 3 && lower.endsWith('s') ? all.get(lower.slice(0, -1)) : undefined;
  // "Bills", "toms": a plural of the word, not the name's possessive.
  return possessive === undefined || possessive.word ? lower : possessive.name;
};

// Capitalised words that name a time, not a person ("3 June": not "John"; "Mon": not "Monica").
const CALENDAR: ReadonlySet<string> = new Set(
  'january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun'.split(' '),
);

/** A name's consonant skeleton: its first letter, then its consonants but h, w and y, a double once ("john", "jon" -> "jn"). */
export const nameSkeleton = (lower: string): string => {
  const rest = lower.slice(1).replace(/[aeiouhwy]/g, '').replace(/(.)\1+/g, '$1');
  return `${lower.slice(0, 1)}${rest}`;
};

/**
 * The participant of a bank a word stands for when it is written as a name the bank does not
 * have: one whose name it begins ("Caro" -> "Caroline", three letters at least) or whose
 * name's consonant skeleton it shares, opening with the same two letters and within two of its
 * length ("Jon" -> "John", "Mellanie" -> "Melanie"). Month and day names never. Undefined
 * when no participant fits or several do: a short form as near to two names says nothing.
 */
export const participantFor = (word: string, participants: readonly string[]): string | undefined => {
  const lower = word.toLowerCase();
  if (lower.length < 3 || CALENDAR.has(lower)) return undefined;
  const skeleton = nameSkeleton(lower);
  const fits = participants.filter((p) => {
    const name = p.toLowerCase().split(' ')[0] ?? '';
    if (name === lower) return false;
    if (name.startsWith(lower)) return name.length - lower.length <= 5;
    // Same opening and about the same length: "June" and "Jean" are not "John".
    return name.slice(0, 2) === lower.slice(0, 2) && Math.abs(name.length - lower.length) <= 2 && nameSkeleton(name) === skeleton;
  });
  return fits.length === 1 ? fits[0] : undefined;
};
