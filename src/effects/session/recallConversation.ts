/**
 * What a recalled memory says, as statements a reader can take one per line. Retained turns are
 * stored as the raw structured delta (a JSON array of messages) and a server without fact
 * extraction recalls it as is, or a 3000-character chunk of it cut anywhere; an observation
 * from the embedded server is a heading over sentences quoted from its facts. Shown as they
 * are, the model reads JSON syntax and headings; here each becomes what was said and by whom.
 * Anything else is one statement, exactly as it was.
 */

import { conversationStatements, saidBy, type Speaker, type Statement } from '../../codecs/conversationText.js';

export type { Speaker, Statement } from '../../codecs/conversationText.js';

/** How a statement's speaker is named where it is shown ("User", "Tool (bash)", "Tool error (bash)"); undefined when nobody is known. */
export const speakerLabel = (who: Speaker, tool?: string, error?: true): string | undefined =>
  saidBy({ who, ...(tool === undefined ? {} : { tool }), ...(error === undefined ? {} : { error }) });

const HEADING = /^\*\*.*\*\* \(\d+ facts?\)$/;
const MORE = /^…and \d+ more$/;

/** The consolidator's observation: its quoted sentences, without the heading. */
const quotedSentences = (trimmed: string): Statement[] | undefined => {
  const [heading, ...lines] = trimmed.split('\n');
  if (heading === undefined || !HEADING.test(heading.trim())) return undefined;
  return lines.flatMap((line) => {
    const quoted = /^\s*- (.*)$/.exec(line)?.[1]?.trim();
    return quoted === undefined || quoted === '' || MORE.test(quoted) ? [] : [{ who: undefined, text: quoted }];
  });
};

export const memoryStatements = (raw: string): Statement[] => {
  const trimmed = raw.trim();
  if (trimmed === '') return [];
  return conversationStatements(trimmed) ?? quotedSentences(trimmed) ?? [{ who: undefined, text: trimmed }];
};
