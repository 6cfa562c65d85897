/**
 * Help text laid out for an 80-column terminal: words wrapped, each continuation under the
 * column its line's text starts in (an option's description, a usage line's first option).
 * Every command's usage goes through it, so a long one is never cut or wrapped to the margin.
 */
import { runAsLines } from './selfCommand.js';

export const HELP_WIDTH = 80;

/** A usage line's words: an option in brackets (`[--trace FILE | --journal FILE]`) is one, never split. */
const usageWords = (text: string): string[] => {
  const words: string[] = [];
  let depth = 0;
  let word = '';
  for (const ch of text) {
    if (ch === ' ' && depth === 0) {
      if (word !== '') words.push(word);
      word = '';
      continue;
    }
    if (ch === '[') depth += 1;
    if (ch === ']') depth = Math.max(0, depth - 1);
    word += ch;
  }
  return word === '' ? words : [...words, word];
};

/** Words laid into lines of at most `width` characters (a longer word gets a line of its own). */
export const wrapWords = (text: string, width: number, words: readonly string[] = text.split(' ')): string[] => {
  const lines: string[] = [];
  let line = '';
  for (const word of words.filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
};

/** Where a line's wrapped words continue: under a usage line's first option, an option's description, or its own indent. */
const hangOf = (line: string): number => {
  const usage = /^usage: agent-memory \S+ /.exec(line);
  if (usage !== null) return usage[0].length;
  const option = /^(\s+\S+(?: \S+)*?\s{2,})\S/.exec(line);
  if (option?.[1] !== undefined) return option[1].length;
  return line.length - line.trimStart().length;
};

/**
 * A usage text with every line within `width`. A line indented deeper than its option's
 * column started (a hand-wrapped continuation) joins the paragraph above before it is wrapped.
 */
export const fitUsage = (text: string, width = HELP_WIDTH): string => {
  const paragraphs: { hang: number; text: string }[] = [];
  for (const line of text.split('\n')) {
    const last = paragraphs.at(-1);
    const indent = line.length - line.trimStart().length;
    const continues = last !== undefined && last.hang > 0 && line.trim() !== '' && indent >= last.hang - 2 && !line.trimStart().startsWith('-');
    if (continues) last.text = `${last.text} ${line.trim()}`;
    else paragraphs.push({ hang: hangOf(line), text: line });
  }
  return paragraphs
    .flatMap(({ hang, text }) => {
      if (text.length <= width) return [text];
      const head = text.slice(0, hang);
      const rest = text.slice(hang);
      const words = wrapWords(rest, width - hang, text.startsWith('usage: ') ? usageWords(rest) : rest.split(' '));
      return words.map((w, i) => `${i === 0 ? head : ' '.repeat(hang)}${w}`);
    })
    .join('\n');
};

/**
 * The width a report is wrapped to: the terminal's, or `COLUMNS` where output is not a terminal
 * and it is set; otherwise none (a pipe or a file keeps whole lines, for grep).
 */
export const reportWidth = (stream: { readonly isTTY?: boolean; readonly columns?: number }, env: Readonly<Record<string, string | undefined>>): number | undefined => {
  if (stream.isTTY === true && stream.columns !== undefined && stream.columns > 0) return stream.columns;
  const columns = Number(env['COLUMNS']);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
};

/** `text` fitted to `stream` as `reportWidth` says (unchanged for a pipe without COLUMNS). */
export const fitFor = (stream: { readonly isTTY?: boolean; readonly columns?: number }, env: Readonly<Record<string, string | undefined>>, text: string): string => {
  const width = reportWidth(stream, env);
  return width === undefined ? text : fitReport(text, width);
};

/** Where a report line's wrapped words continue: under its value, else four spaces in (a status line starts with two). */
const reportHang = (line: string): number => {
  // `! Setup: `, `error: `; or a table row's label and the spaces after it (`Messages          `).
  const label = /^(?:[!*~ -] )?[A-Za-z][\w ()]{0,24}: |^[A-Z][A-Za-z ]{0,24}? {2,}(?=\S)/.exec(line);
  return label === null ? 4 : label[0].length;
};

/**
 * A report (doctor, status) laid out for an 80-column terminal: each longer line wrapped at
 * spaces, continuing under its value; a word longer than a line (a path) keeps a line whole,
 * further left.
 */
export const fitReport = (text: string, width = HELP_WIDTH): string =>
  text
    .split('\n')
    .flatMap((line) => {
      if (line.length <= width) return [line];
      const hang = reportHang(line);
      const head = line.slice(0, hang);
      // A word too long for the hang (a path) starts further left, so that it still fits if it can.
      const under = (w: string): string => `${' '.repeat(Math.max(2, Math.min(hang, width - w.length)))}${w}`;
      return wrapWords(line.slice(hang), width - hang).flatMap((w, i) => (i > 0 ? [under(w)] : head.length + w.length <= width ? [`${head}${w}`] : [head.trimEnd(), under(w)]));
    })
    .join('\n');

/** A command's usage: laid out for 80 columns, then how `agent-memory <name>` runs here (`runAsLines`). */
export const commandUsage = (name: string, text: string): string => `${fitUsage(text)}\n\n${runAsLines(name)}`;
