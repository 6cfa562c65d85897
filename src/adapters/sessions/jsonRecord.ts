/** Loose JSON helpers for the foreign session readers: their lines are read, never trusted. */
export type JsonRecord = Record<string, unknown>;

export const isRecord = (v: unknown): v is JsonRecord => typeof v === 'object' && v !== null && !Array.isArray(v);
export const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One line as a JSON object, or the reason it is not one (for the damaged-lines report). */
const recordOfLine = (line: string, lineNo: number): { readonly record: JsonRecord } | { readonly damage: string } => {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { damage: `line ${lineNo}: not JSON (${(error as Error).message})` };
  }
  return isRecord(value) ? { record: value } : { damage: `line ${lineNo}: expected a JSON object` };
};

/**
 * Numbers a session file's lines from 1 and parses each: `record` is absent for a blank line
 * and for a damaged one, which is added to `damaged`. A reader refuses the file when its first
 * line is damaged (`lineNo === 1`).
 */
export const jsonLineReader = (damaged: { line: number; reason: string }[]) => {
  let lineNo = 0;
  return (line: string): { readonly lineNo: number; readonly record?: JsonRecord; readonly blank: boolean } => {
    lineNo += 1;
    if (line.trim() === '') return { lineNo, blank: true };
    const parsed = recordOfLine(line, lineNo);
    if ('damage' in parsed) {
      damaged.push({ line: lineNo, reason: parsed.damage });
      return { lineNo, blank: false };
    }
    return { lineNo, record: parsed.record, blank: false };
  };
};
