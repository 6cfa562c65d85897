/**
 * `sanitizeMemoryText` skips NFKC and its four removals for text of printable ASCII, tab and
 * newline only. This holds it to the full pipeline, every step on every text (kept here as it
 * ran before the skip), over generated text made of what each step looks for: fence names and
 * openers in any case, escapes, controls (carriage return among them), format characters,
 * separators, odd spaces, fullwidth and compatibility look-alikes, and plain ASCII around them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODELS_TAG, RECALL_TAG, sanitizeMemoryText } from '../../src/config/memoryText.js';

// eslint-disable-next-line no-control-regex -- the reference's own patterns
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g;
const INVISIBLE = /(?![\n\t])\p{Cc}|\p{Cf}|\p{Default_Ignorable_Code_Point}|\p{Variation_Selector}|\p{Co}|\p{Cn}|\p{Cs}/gu;
const SEPARATOR = /\p{Zl}|\p{Zp}/gu;
const ODD_SPACE = /(?! )\p{Zs}/gu;
const WORD_GAP = String.raw`[\p{Pd}_\s]*`;
const NAMES = [RECALL_TAG, MODELS_TAG, 'system-reminder', 'system', 'instructions', 'instruction'].map((name) => name.split('-').join(WORD_GAP));
const FENCE_LIKE = new RegExp(String.raw`(?![>=+(\[{])[\p{Sm}\p{Ps}\p{Pi}]([^\p{L}\p{N}\n]{0,3})(${NAMES.join('|')})(?![\p{L}\p{N}])`, 'giu');

/** Every step on every text. */
const reference = (raw: string): { text: string; removed: number } => {
  let removed = 0;
  const count = (re: RegExp, replacement: string | ((m: string, gap?: string, name?: string) => string)) => (s: string) =>
    s.replace(re, (m: string, gap?: string, name?: string) => {
      removed += 1;
      return typeof replacement === 'string' ? replacement : replacement(m, gap, name);
    });
  let text = raw.normalize('NFKC');
  text = count(ANSI, '')(text);
  text = count(INVISIBLE, '')(text);
  text = count(SEPARATOR, '\n')(text);
  text = count(ODD_SPACE, ' ')(text);
  text = count(FENCE_LIKE, (_m, gap = '', name = '') => `&lt;${gap.replace(/\s/g, '').replace(/</g, '&lt;')}${name}`)(text);
  text = text.replace(/\r\n?/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
  return { text, removed };
};

const PIECES = [
  '<', '</', '<< /', '|', '~', '>', '=', '+', '(', '[', '{', ' ', '  ', '\t', '\n', '\n\n\n', '\r\n', '\r', '-', '_', '/',
  RECALL_TAG, MODELS_TAG, 'MEMORY RECALL', 'memory_mental models', 'system', 'SYSTEM-REMINDER', 'Instructions', 'instruction', 'systemic',
  'plain text', 'a', 'Z', '0', '&lt;', '\u001b[31m', '\u001b', '\u0000', '\u007f', '\u0085', '\u00ad', '\u200b', '\u202e', '\u2028', '\u2029',
  '\u00a0', '\u3000', '\uff1c', '\uff0f', '\u2039', '\u27e8', '\ufe64', '\ufe0f', '\ue000', '\ud800', '\u{1F600}', '\u212A', '\u017F', '\u00e9',
];
const text = fc
  .array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.string({ maxLength: 5 }) }), { maxLength: 20 })
  .map((xs) => xs.join(''));

describe('sanitizeMemoryText: the plain-ASCII path gives what every step gives', () => {
  it('the same text and the same count over 5,000 generated texts, ASCII-only and not', () => {
    fc.assert(
      fc.property(text, (input) => {
        expect(sanitizeMemoryText(input)).toEqual(reference(input));
      }),
      { numRuns: 5_000 },
    );
  });

  it('plain ASCII with a fence in it is still escaped; a text whose only non-ASCII is one character takes every step', () => {
    expect(sanitizeMemoryText('before </memory-recall> after').text).toBe('before &lt;/memory-recall> after');
    expect(sanitizeMemoryText('x\r\ny\u200b')).toEqual(reference('x\r\ny\u200b'));
    expect(sanitizeMemoryText('a\u0000b')).toEqual({ text: 'ab', removed: 1 });
  });
});
