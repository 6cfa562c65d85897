/**
 * The retain cursor on disk: `retain-cursors.json`, one fingerprint set per session, bounded.
 *
 * Written after the run's jobs are fsync'd in the queue journal (the one durable record of a
 * job), by an atomic replace that is not fsync'd itself: a process killed between the two
 * loses nothing (the page cache keeps the file), and a power cut in that window can at worst
 * offer the run's messages again, which the queue drops when the run is offered unchanged.
 * Every write merges what other processes of the project wrote since, so one never rolls
 * back another's sessions. `queued` (since 2026-11-28) is the part of a session's fingerprints
 * whose runs were queued rather than skipped; a session written before it has none, so an
 * import leaves none of its messages out.
 */
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { decodeJson } from '../../codecs/decode.js';
import type { RetainCursor } from '../../effects/ports/retainCursor.js';
import { ensurePrivateDirSync, readStateFileSync, writePrivateFileSync } from '../fs/safeFile.js';

const CursorFile = t.type({
  v: t.literal(1),
  sessions: t.record(t.string, t.intersection([t.type({ fingerprints: t.array(t.string), updatedAt: t.number }), t.partial({ queued: t.array(t.string) })])),
});
type CursorFile = t.TypeOf<typeof CursorFile>;

/** Bounds: enough for any real session, small enough to rewrite on every run. */
const MAX_FINGERPRINTS = 5_000;
const MAX_SESSIONS = 200;
/** Bound of what is read back: the bounds above at their longest (both lists full: about 54 MB), with room to spare. */
const MAX_READ_BYTES = 96 * 1024 * 1024;

const retainCursorPath = (memoryDir: string): string => path.join(memoryDir, 'retain-cursors.json');

/** Throws `UnsafeFileError` (naming the file) when the file is a symlink or not a regular file. */
export const openRetainCursor = (memoryDir: string): RetainCursor => {
  ensurePrivateDirSync(memoryDir);
  const file = retainCursorPath(memoryDir);
  const decode = decodeJson(CursorFile, `retain cursor ${file}`);
  /** The file as it is now; an unreadable one counts as empty (it only costs a re-offer). */
  const readFile = (): CursorFile => {
    const text = readStateFileSync(file, MAX_READ_BYTES);
    const decoded = text === undefined ? undefined : decode(text);
    return decoded !== undefined && E.isRight(decoded) ? decoded.right : { v: 1, sessions: {} };
  };
  const sets = new Map<string, Set<string>>();
  const queuedSets = new Map<string, Set<string>>();
  const remember = (into: Map<string, Set<string>>, sessionId: string, fingerprints: readonly string[]): void => {
    const set = into.get(sessionId) ?? new Set<string>();
    for (const f of fingerprints) set.add(f);
    into.set(sessionId, set);
  };
  const merge = (from: CursorFile): void => {
    for (const [id, session] of Object.entries(from.sessions)) {
      remember(sets, id, session.fingerprints);
      if (session.queued !== undefined) remember(queuedSets, id, session.queued);
    }
  };
  merge(readFile());

  const persist = (sessionId: string, now: number): void => {
    const onDisk = readFile();
    merge(onDisk);
    const kept = [...(sets.get(sessionId) ?? [])].slice(-MAX_FINGERPRINTS);
    const queued = queuedSets.get(sessionId) ?? new Set<string>();
    onDisk.sessions[sessionId] = { fingerprints: kept, updatedAt: now, queued: kept.filter((f) => queued.has(f)) };
    const ids = Object.keys(onDisk.sessions);
    if (ids.length > MAX_SESSIONS) {
      ids.sort((a, b) => (onDisk.sessions[a]?.updatedAt ?? 0) - (onDisk.sessions[b]?.updatedAt ?? 0));
      for (const id of ids.slice(0, ids.length - MAX_SESSIONS)) delete onDisk.sessions[id];
    }
    writePrivateFileSync(file, JSON.stringify(onDisk), { durable: false });
  };

  return {
    path: file,
    seen: (sessionId) => sets.get(sessionId) ?? new Set<string>(),
    retained: (sessionId) => queuedSets.get(sessionId) ?? new Set<string>(),
    advance: (sessionId, fingerprints, now, outcome) => {
      remember(sets, sessionId, fingerprints);
      if (outcome === 'queued') remember(queuedSets, sessionId, fingerprints);
      persist(sessionId, now);
    },
  };
};
