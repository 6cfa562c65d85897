/**
 * The hub's first lines: memory's state and where it goes, in at most three lines of an
 * 80-column terminal, so the hub's twelve choices and its title fit a 24-row screen (five
 * lines pushed the state off the top). Not set up: the placeholder bank a scope names until
 * then is no place memory goes, so it is not shown; the hub's own entry is named instead.
 */
export interface HubGlanceInput {
  /** Setup's state, or `off`. */
  readonly state: string;
  readonly detail: string | null;
  readonly bank: string;
  readonly tag: string;
  readonly queue?: { readonly depth: number; readonly deadLetters: number };
  /** Why the retain queue stopped delivering (a refused key), while it does. */
  readonly savingPaused?: string;
  /** The hub entry that starts guided setup. */
  readonly setupEntry: string;
  /** The terminal's columns, when pi draws in one (default 80): pi re-wraps a longer line at column 1. */
  readonly columns?: number;
}

/** pi draws a dialog's title one column in, and keeps one free at the right. */
const widthOf = (columns: number | undefined): number => Math.max(20, (columns ?? 80) - 2);

const clipTo = (width: number) => (text: string): string => {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join('')}…`;
};

/** Words in lines of at most `width` characters, at most `max` lines (the last marked "…" when cut). */
const linesOf = (width: number, text: string, max: number): string[] => {
  const clip = clipTo(width);
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  out.push(line);
  if (out.length <= max) return out.map(clip);
  const last = out[max - 1] ?? '';
  return [...out.slice(0, max - 1).map(clip), last.length < width ? `${last}…` : `${last.slice(0, width - 1)}…`];
};

export const hubGlance = (input: HubGlanceInput): string => {
  const width = widthOf(input.columns);
  const clip = clipTo(width);
  const lines = (text: string, max: number): string[] => linesOf(width, text, max);
  if (input.state === 'unconfigured') {
    return [...lines('Memory: not set up in this project yet; nothing is recalled or saved.', 2), ...lines(`Choose "${input.setupEntry}" below.`, 1)].join('\n');
  }
  const queue = input.queue === undefined ? '' : ` · ${input.queue.depth} queued, ${input.queue.deadLetters} dead letter${input.queue.deadLetters === 1 ? '' : 's'}`;
  const state = `Memory: ${input.state}${input.detail === null || input.state === 'ready' ? '' : ` (${input.detail})`}`;
  // Degraded, what failed and the next step (the command that starts the server, or Settings)
  // matter more than a bank nothing reaches now: they take the bank's line.
  // Four lines at 80 columns, five at 60: the command's path takes most of one.
  if (input.state === 'degraded') return lines(state, width < 70 ? 5 : 4).join('\n');
  // Seventh pass: a wrong key paused saving (footer "memory: paused · q1") while this said
  // only "Memory: ready": why, and its next step, take up to three lines, as degraded's do.
  if (input.savingPaused !== undefined) return [...lines(`${state}, but saving is paused: ${input.savingPaused}`, 3), clip(`Bank ${input.bank}, tagged ${input.tag}${queue}`)].join('\n');
  return [...lines(state, 2), clip(`Bank ${input.bank}, tagged ${input.tag}${queue}`)].join('\n');
};
