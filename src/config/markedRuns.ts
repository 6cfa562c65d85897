/**
 * Keys disguised with marks, for the redactor: a combining mark glued inside a key
 * (`AKIA\u0301IOSF…`, which NFKC composes to `AKIÁIOSF…` in a turn's run), an accented Latin
 * letter typed in one, or a braille blank (U+2800, drawn as nothing and no space to a regex) was
 * kept whole: the key was no longer its shape. A run of key characters (ASCII letters, digits,
 * `_`, `-`) holding such a character is read with the marks and blanks dropped and the accented
 * letters as their ASCII base, when the run looks like a key: 12 characters or more, with a
 * digit, `_` or `-`. Words (`café`, `résumé`, `naïve`) are short and hold none of them, so prose
 * in any Latin language is not read again. As for look-alikes, that reading is the answer only
 * when it holds a secret (`redact.ts`).
 */

// A combining mark of the blocks that combine with Latin letters, a precomposed Latin letter with
// a diacritic, or the braille blank. (Marks of other scripts sit on their own letters, no key's.)
// The marks and the blank are read as nothing, the accented letters as their ASCII base (`base`).
const MARK_OR_BLANK_CHARS = String.raw`\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u2800`;
const ACCENTED = String.raw`\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff`;
const MARK = `${MARK_OR_BLANK_CHARS}${ACCENTED}`;
const KEY = String.raw`A-Za-z0-9_\-`;
const KEY_LIKE_RUN = 12;
// eslint-disable-next-line no-misleading-character-class -- a mark alone is what is matched
const MAY_HOLD = new RegExp(`[${MARK}]`);
// A run of key characters and marked ones holding at least one marked one, read from where the
// run starts (the look-ahead reads its ASCII head once; no other start is tried inside a run).
// eslint-disable-next-line no-misleading-character-class -- a mark alone is what is matched
const MARKED_RUN = new RegExp(`(?<![${KEY}${MARK}])(?=[${KEY}${MARK}]{${KEY_LIKE_RUN}})(?=[${KEY}]*[${MARK}])[${KEY}${MARK}]+`, 'g');
// eslint-disable-next-line no-misleading-character-class -- a mark alone is what is matched
const MARK_OR_BLANK = new RegExp(`^[${MARK_OR_BLANK_CHARS}]$`);
const KEY_CHAR = /^[A-Za-z0-9_-]$/;
const HAS_KEY_SEPARATOR = /[0-9_-]/;

/** A marked character as a key reads it: nothing for a mark or a blank, the ASCII base of an accented letter. */
const base = (ch: string): string => {
  if (KEY_CHAR.test(ch)) return ch;
  if (MARK_OR_BLANK.test(ch)) return '';
  const first = ch.normalize('NFD').charAt(0);
  return KEY_CHAR.test(first) ? first : ch;
};

const readRun = (run: string): string => {
  if (run.length < KEY_LIKE_RUN || !HAS_KEY_SEPARATOR.test(run)) return run;
  let plain = '';
  for (const ch of run) plain += base(ch);
  return plain.length >= KEY_LIKE_RUN ? plain : run;
};

/** `text` with its key-like marked runs read without their marks; equal to `text` when it has none. */
export const withoutMarks = (text: string): string => (MAY_HOLD.test(text) ? text.replace(MARKED_RUN, readRun) : text);
