/** Making server text safe to show the model: memory is data, never instructions or control bytes. */
import { redact } from '../config/redact.js';

// C0/C1 controls except tab and newline, bidi overrides and isolates, zero-width characters.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export const cleanText = (text: string, maxChars = 2000): string => {
  const clean = redact(text.replace(UNSAFE, ''));
  return clean.length > maxChars ? `${clean.slice(0, maxChars)}…` : clean;
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
