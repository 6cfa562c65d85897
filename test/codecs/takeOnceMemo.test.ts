import { describe, expect, it } from 'vitest';
import { takeOnceMemo } from '../../src/codecs/takeOnceMemo.js';

describe('takeOnceMemo', () => {
  it('answers an equal text once, never a different one, and keeps only texts within its bounds', () => {
    const memo = takeOnceMemo<number>({ minChars: 4, maxTexts: 3, maxChars: 20 });
    memo.put('abcd', 1);
    expect(memo.take('abce')).toBeUndefined();
    expect(memo.take(['a', 'b', 'c', 'd'].join(''))).toBe(1);
    expect(memo.take('abcd')).toBeUndefined();
    memo.put('abc', 2); // shorter than minChars
    memo.put('x'.repeat(21), 3); // longer than maxChars
    expect(memo.size()).toBe(0);
  });

  it('forgets the oldest past its count or its characters', () => {
    const memo = takeOnceMemo<string>({ minChars: 1, maxTexts: 3, maxChars: 12 });
    for (const t of ['aaaa', 'bbbb', 'cccc', 'dddd']) memo.put(t, t.toUpperCase());
    expect(memo.size()).toBe(3);
    expect(memo.take('aaaa')).toBeUndefined();
    memo.put('eeeeeeeeee', 'E'); // 10 characters: the three older texts go to stay within 12
    expect(memo.take('eeeeeeeeee')).toBe('E');
    expect(memo.take('dddd')).toBeUndefined();
    expect(memo.size()).toBe(0);
  });
});
