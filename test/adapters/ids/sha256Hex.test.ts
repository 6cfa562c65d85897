import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { REMEMBERED_MIN_CHARS, rememberedCount, rememberedSha256Hex, sha256Hex } from '../../../src/adapters/ids/sha256Hex.js';
import { nodeIds } from '../../../src/adapters/ids/nodeIds.js';

const reference = (text: string): string => createHash('sha256').update(text).digest('hex');

// Seeded texts of about the threshold's length and more, some of equal length (told apart only by content).
const texts = (count: number, seed: number): string[] => {
  let s = seed;
  const rand = (): number => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s;
  };
  return Array.from({ length: count }, () => {
    const length = REMEMBERED_MIN_CHARS - 2 + (rand() % 3) * 1_000;
    let out = '';
    while (out.length < length) out += String.fromCharCode(32 + (rand() % 95), ...(rand() % 50 === 0 ? [0xe9, 0xd83d, 0xde00] : []));
    return out.slice(0, length);
  });
};

describe('sha256Hex: the digest of the text given, remembered or not', () => {
  it('equals SHA-256 hex for every text, remembered by an import or asked by the ids port, in any order of remembering and asking', () => {
    const all = texts(600, 7);
    for (const [i, text] of all.entries()) {
      // The reader remembers some texts; the queue asks for these, their copies, and others.
      if (i % 3 !== 2) expect(rememberedSha256Hex(text)).toBe(reference(text));
      const copy = `${text.slice(0, 1)}${text.slice(1)}`;
      expect(nodeIds.digest(i % 2 === 0 ? text : copy)).toBe(reference(text));
      const other = all[(i * 7) % all.length] ?? '';
      expect(sha256Hex(other)).toBe(reference(other));
    }
  });

  it('never answers for a text of the same length with other content', () => {
    const base = 'a'.repeat(REMEMBERED_MIN_CHARS * 2);
    rememberedSha256Hex(base);
    const changed = `${base.slice(0, -1)}b`;
    expect(sha256Hex(changed)).toBe(reference(changed));
    expect(sha256Hex(base)).toBe(reference(base));
  });

  it('forgets a text once taken, and keeps at most 128 texts', () => {
    const all = texts(300, 11).filter((t) => t.length >= REMEMBERED_MIN_CHARS);
    const before = rememberedCount();
    const one = all[0] ?? '';
    rememberedSha256Hex(one);
    expect(rememberedCount()).toBe(Math.min(128, before + 1));
    sha256Hex(one);
    for (const text of all) rememberedSha256Hex(text);
    expect(rememberedCount()).toBeLessThanOrEqual(128);
    for (const text of all) expect(sha256Hex(text)).toBe(reference(text));
  });
});
