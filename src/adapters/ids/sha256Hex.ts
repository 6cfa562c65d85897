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

/** Shorter texts are not remembered (ids, keys, short messages): hashing them is cheap. */
export const REMEMBERED_MIN_CHARS = 4_096;
const REMEMBERED_MAX_TEXTS = 128;
const REMEMBERED_MAX_CHARS = 4_000_000;

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

// Oldest first. A text of another length is told apart by `===` at once; an equal one is
// compared whole, which costs far less than hashing it.
let remembered: { readonly text: string; readonly digest: string }[] = [];
let rememberedChars = 0;

/** `sha256Hex`, and the digest remembered for the next `sha256Hex` of an equal text. */
export const rememberedSha256Hex = (text: string): string => {
  const digest = hash(text);
  if (text.length < REMEMBERED_MIN_CHARS || text.length > REMEMBERED_MAX_CHARS) return digest;
  remembered.push({ text, digest });
  rememberedChars += text.length;
  let drop = 0;
  while (remembered.length - drop > REMEMBERED_MAX_TEXTS || rememberedChars > REMEMBERED_MAX_CHARS) {
    rememberedChars -= remembered[drop]?.text.length ?? 0;
    drop += 1;
  }
  if (drop > 0) remembered = remembered.slice(drop);
  return digest;
};

/** Hex SHA-256 of `text` (a digest remembered for an equal text is taken, and forgotten). */
export const sha256Hex = (text: string): string => {
  if (text.length >= REMEMBERED_MIN_CHARS && remembered.length > 0) {
    const at = remembered.findIndex((entry) => entry.text === text);
    const entry = remembered[at];
    if (entry !== undefined) {
      remembered.splice(at, 1);
      rememberedChars -= text.length;
      return entry.digest;
    }
  }
  return hash(text);
};

/** How many texts are remembered now (tests). */
export const rememberedCount = (): number => remembered.length;
