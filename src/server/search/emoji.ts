/**
 * An emoji as the words of its name ("🎂" -> "birthday cake", "👨‍🍳" -> "man cook", "🥜" ->
 * "peanuts"), from the `emojilib` keyword list (its first keyword is the emoji's name): in chat
 * an emoji is often the only word for a thing ("ok chef 👨‍🍳", "no 🥜 pls").
 */
import { createRequire } from 'node:module';
import { isRecord } from '../../codecs/codecs.js';

/** One emoji: a pictograph with its variation selector, skin tone or joined pictographs. */
export const EMOJI = /\p{Extended_Pictographic}(?:\uFE0F|[\u{1F3FB}-\u{1F3FF}]|\u200D\p{Extended_Pictographic}\uFE0F?)*/gu;

let names: Map<string, string> | undefined;

const table = (): Map<string, string> => {
  if (names !== undefined) return names;
  const map = new Map<string, string>();
  try {
    const lib: unknown = createRequire(import.meta.url)('emojilib/dist/emoji-en-US.json');
    for (const [emoji, keywords] of Object.entries(isRecord(lib) ? lib : {})) {
      const name: unknown = Array.isArray(keywords) ? keywords[0] : undefined;
      if (typeof name === 'string') map.set(emoji.replace(/\uFE0F/g, ''), name.replace(/_/g, ' '));
    }
  } catch {
    // Without the package an emoji is no word, as before.
  }
  names = map;
  return map;
};

/** The words of an emoji's name, or '' for one the list does not know. */
export const emojiName = (emoji: string): string => {
  const bare = emoji.replace(/\uFE0F/g, '');
  const map = table();
  return map.get(bare) ?? map.get(bare.replace(/[\u{1F3FB}-\u{1F3FF}]/gu, '')) ?? '';
};
