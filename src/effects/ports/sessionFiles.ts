/**
 * The session-reader port: finds host session files and reads them without changing them.
 * Readers stream (a large session never sits in memory as text), read complete lines only
 * (a file still being written keeps its torn tail for the next run), and report every
 * malformed line with file and line number instead of stopping. Implemented by
 * `src/adapters/sessions/piSessionFiles.ts` (pi's files, and Claude Code's and Codex's read
 * as pi-shaped entries).
 */
import type * as E from 'fp-ts/lib/Either.js';

/** Why a file or session was not imported; each has a sentence in `skipReasonText`. */
export type SkipReason =
  | 'not-a-session'
  | 'unreadable'
  | 'other-project'
  | 'no-directory'
  | 'too-large'
  | 'empty'
  | 'not-a-file'
  | 'symlink'
  | 'before-since'
  | 'no-such-path';

export interface Skip {
  readonly path: string;
  readonly reason: SkipReason;
  /** Redacted detail: an errno code, the header's cwd, the size. */
  readonly detail: string;
}

export interface FoundFile {
  readonly path: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

/** A file's size and modification time: a later look tells whether it changed since. */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

export interface ScanResult {
  readonly files: readonly FoundFile[];
  readonly skipped: readonly Skip[];
}

/** One pi session entry with the fields an import reads (v1 entries get ids `v1-<n>`). */
export interface SessionEntry {
  readonly type: string;
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp?: string;
  readonly message?: unknown;
  readonly customType?: string;
  readonly summary?: string;
  readonly content?: unknown;
  readonly fromId?: string;
  /** A `custom` entry's data (an extension's own state). */
  readonly data?: unknown;
}

/** The agent that wrote a session file. */
export type SessionHost = 'pi' | 'claude-code' | 'codex';

export interface SessionRead {
  readonly path: string;
  /** Absent: pi. */
  readonly host?: SessionHost;
  readonly sessionId: string;
  readonly version: number;
  readonly cwd: string | undefined;
  readonly timestamp: string | undefined;
  /** Entries in file order. */
  readonly entries: readonly SessionEntry[];
  /** Malformed lines, each with its 1-based line number and what was wrong. */
  readonly damaged: readonly { readonly line: number; readonly reason: string }[];
  /** Bytes after the last newline: a line still being written, left for the next run. */
  readonly pendingTailBytes: number;
  /** Bytes read (complete lines). */
  readonly bytes: number;
  /** The file as the read found it when it began. */
  readonly stamp: FileStamp;
}

export interface ScanOptions {
  /** Only files changed at or after this time (epoch ms). */
  readonly sinceMs?: number;
  /** Files larger than this are skipped as `too-large`. */
  readonly maxBytes: number;
}

export interface ReadOptions {
  /** The project's working directory: a session recorded elsewhere is `other-project`. */
  readonly cwd?: string;
  readonly maxBytes: number;
}

export interface SessionFilesPort {
  /** Session files under `paths` (files, or directories walked recursively; symlinks skipped). */
  scan(paths: readonly string[], options: ScanOptions): Promise<ScanResult>;
  /** Streams one session file; a skip names why it cannot be imported at all. */
  read(file: string, options: ReadOptions): Promise<E.Either<Skip, SessionRead>>;
  /** The file's stamp now (never following a symlink); undefined when it is gone or not a regular file. */
  stamp(file: string): Promise<FileStamp | undefined>;
  /** A stable content hash (hex). */
  digest(text: string): string;
}

