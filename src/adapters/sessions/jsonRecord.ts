/** Loose JSON helpers for the foreign session readers: their lines are read, never trusted. */
export type JsonRecord = Record<string, unknown>;

export const isRecord = (v: unknown): v is JsonRecord => typeof v === 'object' && v !== null && !Array.isArray(v);
export const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One line as a JSON object, or the reason it is not one (for the damaged-lines report). */
export const recordOfLine = (line: string, lineNo: number): { readonly record: JsonRecord } | { readonly damage: string } => {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { damage: `line ${lineNo}: not JSON (${(error as Error).message})` };
  }
  return isRecord(value) ? { record: value } : { damage: `line ${lineNo}: expected a JSON object` };
};
