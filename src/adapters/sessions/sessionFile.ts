/**
 * Reads a pi session file (JSONL) without pi and without touching it: pi's own `open()`
 * rewrites old files in place. Whole lines only: a partial last line (pi may be appending)
 * is left for the next read; a malformed line is counted, never fatal.
 *
 * Versions: v2/v3 entries form a tree by `id`/`parentId`; v1 entries have no ids and are a
 * linear list, given ids `v1-<n>` here. The current branch ends at the last line's entry
 * (pi's leaf after a restart); every entry no other entry names as parent is a leaf.
 */
import { readFileSync } from 'node:fs';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { decodeJson } from '../../codecs/decode.js';
import { errnoCode } from '../../codecs/errno.js';

const SessionHeader = t.intersection([
  t.type({ type: t.literal('session'), id: t.string }),
  t.partial({ version: t.number, timestamp: t.string, cwd: t.string, parentSession: t.string }),
]);
type SessionHeader = t.TypeOf<typeof SessionHeader>;

export const SessionEntry = t.intersection([
  t.type({ type: t.string }),
  t.partial({ id: t.string, parentId: t.union([t.string, t.null]), timestamp: t.string, message: t.unknown, customType: t.string, summary: t.string, content: t.unknown, fromId: t.string, data: t.unknown }),
]);
export type SessionEntry = t.TypeOf<typeof SessionEntry> & { readonly id: string; readonly parentId: string | null };

export interface SessionFile {
  readonly path: string;
  readonly header: SessionHeader;
  /** In file order, every entry with an id (v1 entries get `v1-<n>`). */
  readonly entries: readonly SessionEntry[];
  /** Lines that were not JSON or not an entry, with the reason (field named). */
  readonly damaged: readonly { readonly line: number; readonly reason: string }[];
  /** Bytes of a last line without its newline: still being written, not read. */
  readonly pendingTailBytes: number;
}

export type ReadSessionError = { readonly _tag: 'unreadable'; readonly message: string } | { readonly _tag: 'notASession'; readonly message: string };

/** Decodes one session's lines as they come: the header first, then entries, numbering lines from 1. */
export interface SessionLineParser {
  /** Feeds one complete line (without its newline); false when the first line is not a header. */
  push(line: string): boolean;
  readonly header: SessionHeader | undefined;
  readonly entries: SessionEntry[];
  readonly damaged: { line: number; reason: string }[];
}

export const sessionLineParser = (file: string, slim: (entry: SessionEntry) => SessionEntry = (e) => e): SessionLineParser => {
  const entries: SessionEntry[] = [];
  const damaged: { line: number; reason: string }[] = [];
  let header: SessionHeader | undefined;
  let linear = false;
  let previous: string | null = null;
  let lineNo = 0;
  return {
    get header() {
      return header;
    },
    entries,
    damaged,
    push: (line) => {
      lineNo += 1;
      if (header === undefined) {
        const decoded = decodeJson(SessionHeader, `${file} line 1`)(line);
        if (E.isLeft(decoded)) return false;
        header = decoded.right;
        linear = header.version === undefined || header.version < 2;
        return true;
      }
      if (line.trim() === '') return true;
      // `is` first: a well-formed entry (nearly all) is used as parsed, without the copy a decode makes.
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        parsed = undefined;
      }
      const entry = parsed !== undefined && SessionEntry.is(parsed) ? E.right(parsed) : decodeJson(SessionEntry, `${file} line ${lineNo}`)(line);
      if (E.isLeft(entry)) {
        damaged.push({ line: lineNo, reason: entry.left.message });
        return true;
      }
      const id = linear ? `v1-${entries.length}` : entry.right.id;
      if (id === undefined) {
        damaged.push({ line: lineNo, reason: `${file} line ${lineNo}: field id: expected a string, got undefined` });
        return true;
      }
      const parentId = linear ? previous : (entry.right.parentId ?? null);
      const complete = !linear && entry.right.parentId !== undefined ? (entry.right as SessionEntry) : { ...entry.right, id, parentId };
      entries.push(slim(complete));
      previous = id;
      return true;
    },
  };
};

export const parseSessionText = (file: string, text: string): E.Either<ReadSessionError, SessionFile> => {
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  const lines = complete.split('\n').filter((line, i, all) => !(i === all.length - 1 && line === ''));
  const parser = sessionLineParser(file);
  const first = lines[0];
  if (first === undefined || !parser.push(first) || parser.header === undefined) {
    return E.left({ _tag: 'notASession', message: `${file}: the first line is not a pi session header ({"type":"session","id":...})` });
  }
  for (const line of lines.slice(1)) parser.push(line);
  return E.right({ path: file, header: parser.header, entries: parser.entries, damaged: parser.damaged, pendingTailBytes: Buffer.byteLength(text) - Buffer.byteLength(complete) });
};

export const readSessionFile = (file: string): E.Either<ReadSessionError, SessionFile> => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    return E.left({ _tag: 'unreadable', message: `${file}: cannot read (${errnoCode(cause) ?? 'error'})` });
  }
  return parseSessionText(file, text);
};

/** Root -> `leafId` (default: the last entry), following parent ids; a cycle or gap ends the walk. */
export const branchTo = (session: SessionFile, leafId?: string): SessionEntry[] => {
  const byId = new Map(session.entries.map((e) => [e.id, e]));
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let current = leafId === undefined ? session.entries[session.entries.length - 1] : byId.get(leafId);
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return path.reverse();
};

/** Entries no other entry names as parent: one per conversation variant. */
export const leafIds = (session: SessionFile): string[] => {
  const parents = new Set(session.entries.map((e) => e.parentId).filter((p): p is string => p !== null));
  return session.entries.filter((e) => !parents.has(e.id)).map((e) => e.id);
};

/** The messages of a branch, as pi's `message` entries carry them (in context order). */
export const branchMessages = (branch: readonly SessionEntry[]): unknown[] =>
  branch.flatMap((entry) => (entry.type === 'message' && entry.message !== undefined ? [entry.message] : []));
