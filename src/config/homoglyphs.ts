/**
 * Letters that look like ASCII ones, for the redactor: a key or a secret's name typed, pasted or
 * forged with a Cyrillic `р` or a Greek `ο` (`ghр_…`, `pаssword=`), in fullwidth forms
 * (`ｇｈｐ_…`), in mathematical letters and digits (`ghp_𝐚𝐛𝐜…`, `sk_live_𝟏𝟐𝟑…`), or with a
 * Unicode hyphen (`sk‐proj-…`) is the same secret to whoever reads it. A disguise is a
 * look-alike or a fullwidth digit beside an ASCII letter, digit or `_` (`AKIA１２３…`), or a
 * fullwidth letter or `_`, or a mathematical letter or digit: the run of such characters
 * around it is read as ASCII. A word wholly in Cyrillic or
 * Greek (`сборка`, also in `Linux-сборка`) is a word of that language and is not touched, and
 * neither is an en dash (`2019–2020`). One regex scan finds the disguises; only their runs are
 * read again.
 */

// Cyrillic and Greek letters whose glyph is an ASCII letter's (the common confusables), and hyphens.
const LOOKALIKES: Readonly<Record<string, string>> = {
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', і: 'i', ј: 'j', ѕ: 's', һ: 'h', ԁ: 'd', ԛ: 'q', ԝ: 'w', ӏ: 'l',
  А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', Х: 'X', І: 'I', Ј: 'J', Ѕ: 'S', Ү: 'Y', Ԛ: 'Q', Ԝ: 'W',
  α: 'a', ο: 'o', ρ: 'p', ν: 'v', ι: 'i', κ: 'k', τ: 't', υ: 'u',
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\ufe63': '-',
};
const LOOK = Object.keys(LOOKALIKES).join('');
// Fullwidth letters and `_` (not digits alone: Japanese and Chinese text writes numbers so,
// `２０２４年`; a fullwidth digit is a disguise only beside an ASCII letter, digit or `_`).
const FULLWIDTH_WORD = String.raw`\uff21-\uff3a\uff41-\uff5a\uff3f`;
const FULLWIDTH_DIGIT = String.raw`\uff10-\uff19`;
// Mathematical alphanumerics (U+1D400-1D7FF) are one surrogate pair each, all behind U+D835.
const MATH_HIGH = 0xd835;
const DISGUISE = new RegExp(`[A-Za-z0-9_][${LOOK}${FULLWIDTH_DIGIT}]|[${LOOK}${FULLWIDTH_DIGIT}][A-Za-z0-9_]|[${FULLWIDTH_WORD}]|\\ud835[\\udc00-\\udfff]`, 'g');
// One character class first: most text holds none of them, and this scan is the cheapest.
const MAY_HOLD = new RegExp(`[${LOOK}${FULLWIDTH_WORD}${FULLWIDTH_DIGIT}\\ud835]`);

const fullwidth = (code: number): string | undefined => (code >= 0xff01 && code <= 0xff5e ? String.fromCharCode(code - 0xfee0) : undefined);

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * True when the code unit at `at` is of a disguised run: ASCII letters, digits, `_` and `-`,
 * look-alikes, fullwidth ASCII forms, and either half of a mathematical letter or digit.
 */
const inRun = (text: string, at: number): boolean => {
  const code = text.charCodeAt(at);
  if (code === MATH_HIGH) return isLowSurrogate(text.charCodeAt(at + 1));
  if (isLowSurrogate(code)) return text.charCodeAt(at - 1) === MATH_HIGH;
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45 || (code >= 0xff01 && code <= 0xff5e) || LOOKALIKES[text.charAt(at)] !== undefined;
};

const ascii = (run: string): string => {
  let out = '';
  for (const ch of run) out += fullwidth(ch.charCodeAt(0)) ?? LOOKALIKES[ch] ?? (ch.charCodeAt(0) === MATH_HIGH ? ch.normalize('NFKC') : ch);
  return out;
};

/** `text` with its disguised runs read as ASCII; equal to `text` when it has none. */
export const withoutLookalikes = (text: string): string => {
  if (!MAY_HOLD.test(text)) return text;
  DISGUISE.lastIndex = 0;
  let hit = DISGUISE.exec(text);
  if (hit === null) return text;
  let out = '';
  let copied = 0;
  while (hit !== null) {
    // `copied` is a run's end, so the run holding this hit starts at or after it.
    let start = hit.index;
    while (start > copied && inRun(text, start - 1)) start -= 1;
    let end = hit.index + hit[0].length;
    while (end < text.length && inRun(text, end)) end += 1;
    out += `${text.slice(copied, start)}${ascii(text.slice(start, end))}`;
    copied = end;
    DISGUISE.lastIndex = end;
    hit = DISGUISE.exec(text);
  }
  return `${out}${text.slice(copied)}`;
};
