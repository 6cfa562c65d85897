/**
 * Memory text made safe to show a model: the one sanitiser the automatic recall fence and every
 * tool that returns memory text use. Memory is untrusted (anything a past session saw may be in
 * it), so what a human cannot see is removed, line separators become newlines, and anything
 * shaped like a fence or reserved tag is escaped.
 */
import { redact } from './redact.js';

/** The automatic recall block's tag, and the mental models block's. */
export const RECALL_TAG = 'memory-recall';
export const MODELS_TAG = 'memory-mental-models';

// eslint-disable-next-line no-control-regex -- matching escape sequences is the point
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g;
// Removed by Unicode property, never by list: controls (but tab and newline), every format
// character (bidi marks and overrides, zero-width characters, soft hyphen, U+061C, U+180E,
// the tag block), everything default-ignorable (variation selectors, U+034F, Hangul fillers
// such as U+3164), line and paragraph separators, private-use, unassigned and lone surrogate
// code points: nothing a reader cannot see survives, so nothing can hide data or a fence.
const INVISIBLE = /(?![\n\t])\p{Cc}|\p{Cf}|\p{Default_Ignorable_Code_Point}|\p{Variation_Selector}|\p{Co}|\p{Cn}|\p{Cs}/gu;
// Line and paragraph separators end a line for a reader: they become a plain newline.
const SEPARATOR = /\p{Zl}|\p{Zp}/gu;
// Every space but U+0020 (no-break, ideographic, Ogham...): one plain space.
const ODD_SPACE = /(?! )\p{Zs}/gu;
// Tags our fences use and tags hosts reserve, as a look-alike may write them after NFKC: any
// opening bracket-like character (`<`, `‹`, `〈`, `⟨`...: Sm, Ps, Pi), then up to three
// non-letters (spaces, any slash), then the name with any dash, underscore or space between
// its words. Such an opener is escaped, so it can neither close the fence nor open a new one.
const WORD_GAP = String.raw`[\p{Pd}_\s]*`;
const FENCE_NAMES = [RECALL_TAG, MODELS_TAG, 'system-reminder', 'system', 'instructions', 'instruction'].map((name) =>
  name.split('-').join(WORD_GAP),
);
const FENCE_LIKE = new RegExp(String.raw`(?![>=+(\[{])[\p{Sm}\p{Ps}\p{Pi}]([^\p{L}\p{N}\n]{0,3})(${FENCE_NAMES.join('|')})(?![\p{L}\p{N}])`, 'giu');

// Any character but printable ASCII, tab and newline.
const NOT_PLAIN_ASCII = /[^\t\n\u0020-\u007e]/;

export interface Sanitized {
  readonly text: string;
  /** How many characters were removed or escaped: shown in the last-recall sidecar. */
  readonly removed: number;
}

export const sanitizeMemoryText = (raw: string): Sanitized => {
  let removed = 0;
  const count = (re: RegExp, replacement: string | ((m: string, ...g: string[]) => string)) => (s: string) =>
    s.replace(re, (...args: string[]) => {
      removed += 1;
      return typeof replacement === 'string' ? replacement : replacement(...(args as [string, ...string[]]));
    });
  let text = raw;
  // Printable ASCII, tab and newline only (most text): NFKC and the four removals below change
  // nothing in it (every escape, control, format character, separator and odd space lies outside), so
  // only the fence detector runs.
  if (NOT_PLAIN_ASCII.test(text)) {
    // NFKC first: fullwidth `＜／`, small-form and compatibility look-alikes become the ASCII they
    // imitate, so one detector sees them.
    text = text.normalize('NFKC');
    text = count(ANSI, '')(text);
    text = count(INVISIBLE, '')(text);
    text = count(SEPARATOR, '\n')(text);
    text = count(ODD_SPACE, ' ')(text);
  }
  // A `<` inside the gap (`<< /memory-recall>`) is escaped too: the match consumed it.
  text = count(FENCE_LIKE, (_m, gap = '', name = '') => `&lt;${gap.replace(/\s/g, '').replace(/</g, '&lt;')}${name}`)(text);
  text = text.replace(/\r\n?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  return { text, removed };
};

/**
 * Memory text as a model is shown it: sanitised, then redacted (a memory stored before a rule
 * existed, or by another client of a shared bank, may hold a secret today's rules catch), then
 * sanitised again, so nothing redaction took out can join two pieces into a fence-like tag.
 */
export const shownMemoryText = (raw: string): Sanitized => {
  const first = sanitizeMemoryText(raw);
  const redacted = redact(first.text);
  if (redacted === first.text) return first;
  const second = sanitizeMemoryText(redacted);
  return { text: second.text, removed: first.removed + second.removed };
};

// Controls a terminal acts on (C0 but for newline in a message, DEL, C1 such as U+009B CSI),
// bidi controls and line separators: in a name read from disk they are shown, never sent.
// eslint-disable-next-line no-control-regex -- matching controls is the point
const TERMINAL_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * A name from disk (a session file's path, a reason quoting one) made safe to print on one
 * terminal line: every control is written as `\xNN` / `\uNNNN`, so a file name cannot set the
 * window title, clear the screen or start a new line.
 */
export const escapeControls = (text: string): string =>
  text.replace(TERMINAL_UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });

// The same set less line feed and tab, and less a carriage return that ends a line (`\r\n`).
// eslint-disable-next-line no-control-regex -- matching controls is the point
const TERMINAL_UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

/**
 * Text of many lines (a report, a notice) made safe to show in a terminal or pi's screen: lines
 * and tabs stay, every other control is written as `\uNNNN` (valid inside JSON strings too). A
 * repository's config file can hold `ESC]52;…` (set the clipboard), `ESC]0;…` (the window title)
 * or `ESC[2J`, and the doctor, status and scope quote its values and field names.
 */
export const terminalText = (text: string): string =>
  text.replace(TERMINAL_UNSAFE_IN_TEXT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** JSON for a terminal: `JSON.stringify` escapes C0 controls but not C1 or bidi controls; these are escaped too (still valid JSON). */
export const terminalJson = (json: string): string => json.replace(/[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

