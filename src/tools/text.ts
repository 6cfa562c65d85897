/**
 * Making server text safe to show the model: memory is data, never instructions or control
 * bytes. Tools render memory as the automatic recall fence does, with its one sanitiser
 * (`sanitizeMemoryText`): invisible, bidi, tag-block and zero-width characters removed, line and
 * paragraph separators made newlines, fence-like tags escaped. A field is one line; a body
 * continues on indented lines, so no stored text can start a line of a tool's own structure.
 */
import { sanitizeMemoryText } from '../config/memoryText.js';
import { redact } from '../config/redact.js';
import type { JsonValue } from '../codecs/codecs.js';
import type { ToolOutcome } from './result.js';

/** Memory text sanitised, redacted and cut to `maxChars`. Newlines kept (see `cleanLine`, `indented`). */
export const cleanText = (text: string, maxChars = 2000): string => {
  const clean = redact(sanitizeMemoryText(text).text);
  return clean.length > maxChars ? `${clean.slice(0, maxChars)}…` : clean;
};

/** A field shown inside one line (a memory, name, tag, date): `cleanText` with every line break and run of spaces folded to one space. */
export const cleanLine = (text: string, maxChars = 2000): string => cleanText(text, maxChars).replace(/\s+/g, ' ').trim();

/** An id a server answered (a page's, a model's, an operation's), shown in a tool's text: one cleaned line of at most 128 characters. */
export const serverId = (id: string): string => cleanLine(id, 128);

/** A multi-line body under a tool's own header: each line indented, so none of it reads as a line of the result's structure. */
export const indented = (text: string, indent = '  '): string =>
  text
    .split('\n')
    .map((line) => `${indent}${line}`)
    .join('\n');

/** A result's details as the host shows them: every string (keys too) through the same sanitiser, shape kept. */
const cleanDetails = (value: JsonValue, depth = 0): JsonValue => {
  if (typeof value === 'string') return sanitizeMemoryText(value).text;
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => cleanDetails(v, depth + 1));
  const out: { [key: string]: JsonValue } = {};
  for (const [key, v] of Object.entries(value)) {
    // defineProperty: a `__proto__` key stays a plain field.
    Object.defineProperty(out, sanitizeMemoryText(key).text, { value: cleanDetails(v, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
};

/** A memory tool's handler whose result details pass `cleanDetails` (its text is rendered with `cleanLine`/`indented`). */
export const withCleanDetails =
  <A, C>(handler: (params: A, ctx: C) => Promise<ToolOutcome>) =>
  async (params: A, ctx: C): Promise<ToolOutcome> => {
    const outcome = await handler(params, ctx);
    return outcome.ok ? { ok: true, result: { text: outcome.result.text, details: cleanDetails(outcome.result.details) } } : outcome;
  };

/** Lines capped at `maxChars` in total, with a note of what was left out. */
export const capLines = (lines: readonly string[], maxChars = 16_000): string[] => {
  const out: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    if (used + line.length > maxChars) {
      out.push(`… ${lines.length - i} more line(s) left out; see details or narrow the query`);
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out;
};
