/**
 * Round 10: keys disguised with Unicode forms that read as ASCII. A run of a turn is
 * NFKC-normalised before redaction (the fence's sanitiser), but `redact` alone (the explicit
 * `memory_retain`, tool results, errors, the CLI) read fullwidth digits beside ASCII
 * (`AKIA１２３４…`, a `ghp_` key ending `１２３`) and mathematical letters and digits
 * (`ghp_𝐚𝐛𝐜…`, `sk_live_𝟏𝟐𝟑…`) as other characters: `memory_retain` sent them to the server
 * and the queue journal whole. Now a fullwidth digit glued to an ASCII letter, digit or `_`,
 * and any mathematical alphanumeric, is read as ASCII, as fullwidth letters were; Japanese
 * numbers (`２０２４年`) and fancy text without a secret stay as written. And a key split by a
 * default-ignorable code point that is not a format character (a variation selector, U+034F,
 * a Hangul filler) was kept whole by `redact`, as zero-width spaces no longer were. The real redactor,
 * the real `memory_retain` and queue, a scripted server that records what it is sent.
 */
import { describe, expect, it } from 'vitest';
import { redact } from '../../src/config/redact.js';
import { expectRetainSendsNone } from '../helpers/redactedPastes.js';

const DISGUISED: readonly (readonly [string, string])[] = [
  ['AKIA１２３４５６７８９０ABCDEF', '１２３４５６７８９０'],
  ['ghp_abcdefghijklmnopqrstuvwx１２３', 'wx１２３'],
  ['sk_live_𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗𝟎abc', '𝟏𝟐𝟑𝟒𝟓'],
  ['ghp_𝐚𝐛𝐜𝐝𝐞𝐟𝐠𝐡𝐢𝐣𝐤𝐥𝐦𝐧𝐨𝐩𝐪𝐫𝐬𝐭', '𝐚𝐛𝐜𝐝𝐞'],
  ['the key is 𝙨𝙠-𝙥𝙧𝙤𝙟-𝟬𝟭𝟮𝟯𝟰𝟱𝟲𝟳𝟴𝟵𝙖𝙗𝙘𝙙𝙚𝙛', '𝟬𝟭𝟮𝟯𝟰'],
  // Split by default-ignorable code points that are not format characters: a variation
  // selector, the combining grapheme joiner, a Hangul filler, a supplementary variation selector.
  ['ghp_abcdef\ufe0fghijklmnopqrstuvwx0123', 'ghijklmnopqrstuvwx0123'],
  ['sk_live_abc\u034fdefghij0123', 'defghij0123'],
  ['AKIAIOSFOD\u3164NN7EXAMPLE', 'NN7EXAMPLE'],
  ['xoxb-123456\u{E0100}7890-abcdefghij', '7890-abcdefghij'],
];

describe('keys in fullwidth digits and mathematical letters, or split by invisible characters', () => {
  it.each(DISGUISED)('%s is hidden by redact', (text, part) => {
    const out = redact(text);
    expect(out).toContain('[REDACTED]');
    expect(out).not.toContain(part);
  });

  it('numbers and fancy text without a secret are left as written', () => {
    for (const text of ['２０２４年１２月 the build 12 passed', 'ver１２ is ok', '𝐁𝐨𝐥𝐝 heading 😀 and x = 𝑓(𝑥) + 1', 'ＰＣ１台', 'I ❤\ufe0f this 👨\u200d👩\u200d👧 build']) expect(redact(text)).toBe(text);
  });

  it('memory_retain sends none of them to the server or the queue journal', async () => {
    await expectRetainSendsNone(DISGUISED);
  }, 60_000);
});
