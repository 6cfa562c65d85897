/**
 * Help text laid out for an 80-column terminal: words wrapped, each continuation under the
 * column its line's text starts in (an option's description, a usage line's first option).
 * Every command's usage goes through it, so a long one is never cut or wrapped to the margin.
 */
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
