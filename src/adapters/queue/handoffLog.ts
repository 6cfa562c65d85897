/**
 * The session's write-ahead hand-off to the retain queue, and its retain cursor.
 *
 * pi does not await `agent_end` handlers and may die without `session_shutdown` (SIGTERM,
 * Ctrl+C in print mode), so a run's delta is written here synchronously, fsync'd, in the
 * handler's synchronous part, before anything is awaited. The queue's own (async) enqueue
 * follows; a `done` line records it. On the next start, lines without `done` are enqueued.
 *
 * The cursor is the set of message fingerprints already handed off, per session: a message
 * seen again (the same branch, a resumed session) is never retained twice, and a message of
 * a new branch or an edit has a new fingerprint, so it is. The set only grows.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, readSync } from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { decodeJson } from '../../machines/shared/decode.js';
import { redactKnownValues } from '../../config/redact.js';
import { RetainItem } from '../../effects/ports/memoryServer.js';
import type { PendingHandoff, RetainLog } from '../../effects/ports/retainLog.js';
import { ensurePrivateDirSync, openStateFileSync, readStateFileSync, writeAllSync, writePrivateFileSync } from '../fs/safeFile.js';

const JobDraft = t.intersection([
  t.type({ bankId: t.string, documentId: t.string, updateMode: t.literal('append'), item: RetainItem }),
  t.partial({ async: t.boolean }),
]);
const HandoffLine = t.union([
  t.type({ v: t.literal(1), kind: t.literal('job'), key: t.string, sessionId: t.string, fingerprints: t.array(t.string), jobs: t.array(JobDraft) }),
  t.type({ v: t.literal(1), kind: t.literal('done'), key: t.string }),
]);
type HandoffLine = t.TypeOf<typeof HandoffLine>;

const CursorFile = t.type({
  v: t.literal(1),
  sessions: t.record(t.string, t.type({ fingerprints: t.array(t.string), updatedAt: t.number })),
});
type CursorFile = t.TypeOf<typeof CursorFile>;

/** Bounds: enough for any real session, small enough to rewrite on every run. */
const MAX_FINGERPRINTS = 5_000;
const MAX_SESSIONS = 200;

export type { PendingHandoff, RetainLog } from '../../effects/ports/retainLog.js';

/** Bound of what is read back: far above a real backlog, far below what exhausts memory. */
const MAX_READ_BYTES = 64 * 1024 * 1024;

/** The file's text, undefined when missing; a symlinked or non-regular file throws (never followed). */
const readText = (file: string): string | undefined => readStateFileSync(file, MAX_READ_BYTES);

/** Whether the file's last byte is a newline (or the file is empty): a new line may go right after it. */
const endsClean = (file: string): boolean => {
  const fd = openStateFileSync(file, 'read');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
};

/**
 * Appends one line. A torn last line (a full disk, a writer killed mid-write) is never glued
 * onto: the line then starts with a newline, so the fragment stays a damaged line of its own
 * and the new record reads back whole. The fragment is not cut off: another process may be
 * appending right now, and cutting could take its bytes. A failed write leaves at most a
 * fragment, which the next append steps over the same way.
 */
const append = (file: string, line: string, durable: boolean): void => {
  const fd = openStateFileSync(file, 'append');
  try {
    const text = redactKnownValues(line);
    writeAllSync(fd, Buffer.from(endsClean(file) ? text : `\n${text}`));
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/**
 * Empties the file if it still holds exactly the `expected` bytes read: a line another process
 * appended since (a live hand-off) is never cut. Returns whether it emptied it.
 */
const emptyFileIfUnchanged = (file: string, expected: number): boolean => {
  const fd = openStateFileSync(file, 'append');
  try {
    if (fstatSync(fd).size !== expected) return false;
    ftruncateSync(fd, 0);
    return true;
  } finally {
    closeSync(fd);
  }
};

/** Throws `UnsafeFileError` (naming the file) when a state file is a symlink or not a regular file. */
export const openRetainLog = (memoryDir: string): RetainLog => {
  ensurePrivateDirSync(memoryDir);
  const handoffPath = path.join(memoryDir, 'retain-handoff.jsonl');
  const cursorPath = path.join(memoryDir, 'retain-cursors.json');

  const decodeCursor = decodeJson(CursorFile, `retain cursor ${cursorPath}`);
  const cursorText = readText(cursorPath);
  const decodedCursor = cursorText === undefined ? undefined : decodeCursor(cursorText);
  const cursor: CursorFile = decodedCursor !== undefined && E.isRight(decodedCursor) ? decodedCursor.right : { v: 1, sessions: {} };
  const sets = new Map<string, Set<string>>(Object.entries(cursor.sessions).map(([id, s]) => [id, new Set(s.fingerprints)]));

  const decodeLine = decodeJson(HandoffLine, `retain hand-off ${handoffPath}`);
  const open = new Map<string, PendingHandoff>();
  let damaged = 0;
  const handoffText = readText(handoffPath) ?? '';
  for (const raw of handoffText.split('\n')) {
    if (raw.trim() === '') continue;
    const line = decodeLine(raw);
    if (E.isLeft(line)) {
      damaged += 1;
      continue;
    }
    const value: HandoffLine = line.right;
    if (value.kind === 'job') {
      open.set(value.key, { key: value.key, sessionId: value.sessionId, jobs: value.jobs as PendingHandoff['jobs'] });
      const set = sets.get(value.sessionId) ?? new Set<string>();
      for (const f of value.fingerprints) set.add(f);
      sets.set(value.sessionId, set);
    } else {
      open.delete(value.key);
    }
  }
  // Nothing open: start the hand-off file afresh so it never grows without bound, once the
  // cursor file holds every fingerprint the lines carried (a cursor write lost to a full disk
  // would otherwise let a resumed session retain those messages again). Damaged lines are
  // fragments of writes that never returned: nothing in them was acknowledged.
  if (open.size === 0) {
    try {
      const now = Date.now();
      for (const [id, set] of sets) cursor.sessions[id] = { fingerprints: [...set].slice(-MAX_FINGERPRINTS), updatedAt: cursor.sessions[id]?.updatedAt ?? now };
      if (sets.size > 0) writePrivateFileSync(cursorPath, JSON.stringify(cursor));
      emptyFileIfUnchanged(handoffPath, Buffer.byteLength(handoffText));
    } catch {
      // Not writable now: the lines stay and are read again next time.
    }
  }

  const persistCursor = (sessionId: string, now: number): void => {
    const set = sets.get(sessionId) ?? new Set<string>();
    const list = [...set].slice(-MAX_FINGERPRINTS);
    cursor.sessions[sessionId] = { fingerprints: list, updatedAt: now };
    const ids = Object.keys(cursor.sessions);
    if (ids.length > MAX_SESSIONS) {
      ids.sort((a, b) => (cursor.sessions[a]?.updatedAt ?? 0) - (cursor.sessions[b]?.updatedAt ?? 0));
      for (const id of ids.slice(0, ids.length - MAX_SESSIONS)) delete cursor.sessions[id];
    }
    // Atomic replace; the fsync'd hand-off line already carries these fingerprints.
    writePrivateFileSync(cursorPath, JSON.stringify(cursor));
  };

  const remember = (sessionId: string, fingerprints: readonly string[]): void => {
    const set = sets.get(sessionId) ?? new Set<string>();
    for (const f of fingerprints) set.add(f);
    sets.set(sessionId, set);
  };

  return {
    handoffPath,
    cursorPath,
    get damaged() {
      return damaged;
    },
    seen: (sessionId) => sets.get(sessionId) ?? new Set<string>(),
    handOffSync: (entry, now) => {
      const line: HandoffLine = { v: 1, kind: 'job', key: entry.key, sessionId: entry.sessionId, fingerprints: [...entry.fingerprints], jobs: entry.jobs.map((job) => ({ ...job })) };
      append(handoffPath, `${JSON.stringify(line)}\n`, true);
      open.set(entry.key, { key: entry.key, sessionId: entry.sessionId, jobs: entry.jobs });
      remember(entry.sessionId, entry.fingerprints);
      try {
        persistCursor(entry.sessionId, now);
      } catch {
        // The fsync'd line carries these fingerprints: the hand-off is durable all the same,
        // and the cursor file is brought up to date before the line is ever dropped.
      }
    },
    markSeenSync: (sessionId, fingerprints, now) => {
      remember(sessionId, fingerprints);
      persistCursor(sessionId, now);
    },
    markDone: (key) => {
      if (!open.delete(key)) return;
      try {
        // Not fsync'd: losing it only re-offers a job the queue already holds.
        append(handoffPath, `${JSON.stringify({ v: 1, kind: 'done', key })}\n`, false);
      } catch {
        // The job stays open and is offered again on the next start.
      }
    },
    pending: () => [...open.values()],
  };
};
