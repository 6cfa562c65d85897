/**
 * Hex SHA-256 of a text: the ids port's digest (the retain queue's content hashes and job keys)
 * and, remembered, the import's document hashes (`src/hosts/importer.ts`).
 *
 * An import hashes each document's content when the plan builds it (its checkpoint hash), and
 * the retain queue hashes the same content again for the job a few dozen documents later: about
 * 16 MB twice for the import bench's 542 documents. So the import's digest remembers a large
 * text's digest (`rememberedSha256Hex`) and the next `sha256Hex` of an equal text takes it
 * (and forgets it). The answer is always the hash of the text given: a remembered digest is
 * used only for a text equal to the one it was made from. What is remembered is bounded (the
 * most recent 128 texts, 4 M characters in all) and released as the queue takes it.
 */
import { createHash } from 'node:crypto';
import { takeOnceMemo } from '../../codecs/takeOnceMemo.js';

/** Shorter texts are not remembered (ids, keys, short messages): hashing them is cheap. */
export const REMEMBERED_MIN_CHARS = 4_096;
const REMEMBERED_MAX_TEXTS = 128;
const REMEMBERED_MAX_CHARS = 4_000_000;

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

const memo = takeOnceMemo<string>({ minChars: REMEMBERED_MIN_CHARS, maxTexts: REMEMBERED_MAX_TEXTS, maxChars: REMEMBERED_MAX_CHARS });

/** `sha256Hex`, and the digest remembered for the next `sha256Hex` of an equal text. */
export const rememberedSha256Hex = (text: string): string => {
  const digest = hash(text);
  memo.put(text, digest);
  return digest;
};

/** Hex SHA-256 of `text` (a digest remembered for an equal text is taken, and forgotten). */
export const sha256Hex = (text: string): string => memo.take(text) ?? hash(text);

/** How many texts are remembered now (tests). */
export const rememberedCount = (): number => memo.size();
