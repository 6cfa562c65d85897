/**
 * Chat spelling to the words a note or a question uses: "tmrw" -> "tomorrow", "pls" ->
 * "please", "bday" -> "birthday", "nite" -> "night", "dont" -> "don't" (a stop word then), and
 * elongations ("sooo" -> "so", "yesss" -> "yes", "coool" -> "cool"). Written from how people
 * text, not from a set's misses. Left out where code uses the same letters for something else:
 * "def", "min", "rn" (React Native), "txt", "prob", "id", "ill", "mo"; a word English already
 * has ("wont", "lets", "were", "well", "hell") stays itself.
 */
import { isLemma } from './wordnet.js';

const TABLE: Readonly<Record<string, string>> = {
  // Abbreviations and clippings.
  tmrw: 'tomorrow', tmr: 'tomorrow', tmrrw: 'tomorrow', tmrow: 'tomorrow', tomoz: 'tomorrow', '2moro': 'tomorrow', '2morrow': 'tomorrow',
  tonite: 'tonight', '2nite': 'tonight', nite: 'night', nites: 'nights', '2day': 'today',
  yday: 'yesterday', yest: 'yesterday', ystrdy: 'yesterday',
  wknd: 'weekend', wkend: 'weekend', wknds: 'weekends', wk: 'week', wks: 'weeks', hr: 'hour', hrs: 'hours', yr: 'year', yrs: 'years', mins: 'minutes', secs: 'seconds',
  bday: 'birthday', bdays: 'birthdays', appt: 'appointment', appts: 'appointments', convo: 'conversation', convos: 'conversations',
  pls: 'please', plz: 'please', plss: 'please', pleas: 'please',
  thx: 'thanks', thnx: 'thanks', thanx: 'thanks', ty: 'thanks', tysm: 'thanks',
  sry: 'sorry', srry: 'sorry', soz: 'sorry',
  ppl: 'people', msg: 'message', msgs: 'messages', pic: 'photo', pics: 'photos', pix: 'photos', selfie: 'photo', vid: 'video', vids: 'videos',
  // Everyday clippings of health, study and care that WordNet lacks ("the physio said", "hes on meds").
  physio: 'physiotherapist', physios: 'physiotherapists', meds: 'medication', hosp: 'hospital', chemo: 'chemotherapy', rehab: 'rehabilitation',
  uni: 'university', unis: 'universities',
  gf: 'girlfriend', bf: 'boyfriend', bff: 'friend', sis: 'sister', bro: 'brother', mum: 'mom', gramma: 'grandma',
  // What a family calls its grandmother, which WordNet lacks (it has "nan" and "nanna"; "nan" stays, as code's NaN).
  nana: 'grandmother', nanas: 'grandmothers',
  fav: 'favorite', fave: 'favorite', favs: 'favorites', faves: 'favorites', recs: 'recommendations', bc: 'because', bcuz: 'because', cuz: 'because', coz: 'because',
  abt: 'about', thru: 'through', tho: 'though', altho: 'although', b4: 'before', l8r: 'later', gr8: 'great', obvs: 'obviously', obvi: 'obviously',
  prolly: 'probably', probs: 'probably', defo: 'definitely', deffo: 'definitely', rly: 'really', srsly: 'seriously', ofc: 'course',
  ur: 'your', urs: 'yours', ya: 'you', yea: 'yes', yeah: 'yes', yep: 'yes', yup: 'yes', nope: 'no', nah: 'no', ok: 'okay', kk: 'okay',
  // Function words typed fast ("wat was the fix", "wich one"): the stop words they are.
  wat: 'what', wut: 'what', wht: 'what', waht: 'what', wich: 'which', whcih: 'which', teh: 'the', hte: 'the', jsut: 'just', taht: 'that',
  smth: 'something', sth: 'something', sb: 'somebody', smn: 'someone', evry: 'every', evrything: 'everything', bout: 'about', til: 'until', till: 'until',
  // Contractions typed without their apostrophe: the function words they are.
  dont: 'do', doesnt: 'does', didnt: 'did', cant: 'can', couldnt: 'could', shouldnt: 'should', wouldnt: 'would', isnt: 'is', arent: 'are',
  wasnt: 'was', werent: 'were', havent: 'have', hasnt: 'has', hadnt: 'had', aint: 'is', im: 'i', ive: 'i', youre: 'you', youve: 'you', youll: 'you',
  theyre: 'they', theyve: 'they', theyll: 'they', thats: 'that', whats: 'what', hes: 'he', shes: 'she', theres: 'there', heres: 'here',
  wheres: 'where', whos: 'who', hows: 'how', whens: 'when', itll: 'it', wouldve: 'would', couldve: 'could', shouldve: 'should',
};

const ELONGATED = /([a-z])\1{2,}/;

/** A run of three or more of one letter shortened: to two when that makes a word, else to one. */
const shortened = (word: string): string => {
  if (!ELONGATED.test(word)) return word;
  const two = word.replace(/([a-z])\1{2,}/g, '$1$1');
  if (two !== word && isLemma(two)) return two;
  return word.replace(/([a-z])\1{2,}/g, '$1');
};

/** The word a chat spelling stands for, lower case in and out; other words come back as they are. */
export const chatWord = (lower: string): string => (Object.hasOwn(TABLE, lower) ? (TABLE[lower] ?? lower) : lower.length > 3 && lower.length <= 30 && /^[a-z]+$/.test(lower) ? shortened(lower) : lower);
