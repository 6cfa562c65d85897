/**
 * Session files of other coding agents (Claude Code, Codex) read as pi-shaped entries, so an
 * import treats every host alike: people switch agents and want one memory. A file's first
 * complete line says which reader applies.
 */
import type { SessionEntry, SessionHost } from '../../effects/ports/sessionFiles.js';
import { isRecord } from '../../codecs/codecs.js';
import { claudeCodeLineParser, looksLikeClaudeCode } from './claudeCodeSession.js';
import { codexLineParser, looksLikeCodex } from './codexSession.js';

/** Decodes one foreign session's lines as they come, numbering lines from 1. */
export interface ForeignLineParser {
  readonly host: SessionHost;
  /** Feeds one complete line (without its newline); false when the first line is not this host's. */
  push(line: string): boolean;
  /** Known once a line names the session (Codex: line 1; Claude Code: the first turn). */
  readonly header: { readonly id: string; readonly cwd: string | undefined; readonly timestamp: string | undefined } | undefined;
  readonly entries: SessionEntry[];
  readonly damaged: { line: number; reason: string }[];
}

/** The reader for a file whose first line is `line`, or undefined when no foreign host wrote it. */
export const foreignParserFor = (line: string): ForeignLineParser | undefined => {
  let first: unknown;
  try {
    first = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(first)) return undefined;
  const record = first;
  if (looksLikeCodex(record)) return codexLineParser();
  if (looksLikeClaudeCode(record)) return claudeCodeLineParser();
  return undefined;
};
