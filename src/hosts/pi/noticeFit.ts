/**
 * A report (doctor, status, import) fitted to pi's chat before it is shown as a notice. pi
 * draws a notice as text padded one column each side ("Warning: " or "Error: " before the
 * first line) and wraps a longer line at column 1, so an indented report lost its layout at
 * 80 columns. Wrapped here first, each line continues under its value (`fitReport`).
 */
import { fitReport } from '../cli/helpText.js';

export type NoticeLevel = 'info' | 'warning' | 'error';

/** pi's padding: one column each side of a notice. */
const PADDING = 2;
/** Narrower than this, pi's own wrapping is left to do its best. */
const MIN_COLUMNS = 30;

const PREFIX: Readonly<Record<NoticeLevel, string>> = { info: '', warning: 'Warning: ', error: 'Error: ' };

/** `text` laid out for a notice in a terminal of `columns`; unchanged without a width, or when it is one line. */
export const fitNotice = (text: string, level: NoticeLevel, columns: number | undefined): string => {
  // One line is prose ("Memory will not save the next run …"): pi's own wrapping at column 1 reads
  // right for it, where a report's hanging indent would not.
  if (columns === undefined || columns < MIN_COLUMNS || !text.includes('\n')) return text;
  const prefix = PREFIX[level];
  const fitted = fitReport(`${prefix}${text}`, columns - PADDING);
  return fitted.startsWith(prefix) ? fitted.slice(prefix.length) : text;
};

/** pi's terminal width, when pi draws in a terminal (not RPC or print). */
export const piColumns = (stream: { readonly isTTY?: boolean; readonly columns?: number } = process.stdout): number | undefined =>
  stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : undefined;
