/**
 * An inter-process lock file, hard-linked into place from a fully written draft: `link` is
 * atomic and fails when the name exists, so the lock holds its owner ({pid, host, token, at})
 * from the moment it exists.
 *
 * A lock is stale when its owner is a process on this host that no longer exists (or whose pid
 * another process now has: the owner records its start in /proc's boot-relative clock ticks,
 * which no wall-clock jump moves, and a live pid that started otherwise is not it), when its
 * heartbeat (the file's mtime) has not moved for `staleMs`, or when it is empty for 2 s (the
 * owner died between create and write). "Not moved for" is timed on this process's monotonic
 * clock from when it first saw that heartbeat, never as wall-clock now minus mtime: a wall clock
 * that jumps (an NTP step, a VM resume; the chaos run does it) made a live holder look hours
 * stale, and two processes delivered at once. A stale lock is claimed by renaming it to a unique tombstone (only one
 * contender's rename wins), so two processes never both take it over. Release removes the
 * file only while the token still matches.
 *
 * proper-lockfile was not used: it detects staleness by mtime alone (a SIGKILLed holder
 * blocks others for the whole stale period) and its takeover races (its issue #121).
 */
import { randomUUID } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, lstatSync, lutimesSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { ensurePrivateDirSync, inCheckedDirEntriesSync, isUnsafeFileError, openStateFileSync, readStateFileSync } from './safeFile.js';
import { errnoCode } from '../../codecs/errno.js';
import { pidExists } from './pidExists.js';
import { processStartTicks } from './processStart.js';
import { isRecord } from '../../codecs/codecs.js';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  readonly at: number;
  /** The holder's start (clock ticks since boot, /proc), when it could read it: tells a reused pid from the holder. */
  readonly startTicks?: number;
}

export interface HeldLock {
  readonly token: string;
  /** Removes the lock if this holder still owns it. */
  release(): Promise<void>;
  /** `release`, synchronously (for a lock taken with `acquireSync`). */
  releaseSync(): void;
  /** Refreshes the heartbeat; false when the lock was taken over (this holder lost it). */
  refresh(): Promise<boolean>;
}

export interface DirLockOptions {
  readonly path: string;
  /** A lock whose heartbeat is older than this is stale. */
  readonly staleMs?: number;
  /** Poll interval while waiting. */
  readonly retryMs?: number;
  /**
   * Check the token before removing the lock on release (default true). A lock held for
   * milliseconds by a live process cannot have been judged stale, so it may skip the read.
   */
  readonly verifyRelease?: boolean;
}

export interface DirLock {
  readonly path: string;
  /** Takes the lock if it is free (or stale); undefined when a live holder has it. */
  tryAcquire(): Promise<HeldLock | undefined>;
  /** Waits up to `timeoutMs` for the lock; rejects with a message naming the lock and its holder. */
  acquire(timeoutMs: number): Promise<HeldLock>;
  /**
   * `acquire`, blocking the thread between attempts: for locks held for one write (the
   * journal's), taken on a path that must not yield (pi's `agent_end`). Throws on timeout.
   */
  acquireSync(timeoutMs: number): HeldLock;
  /** The current holder, if any (for status and errors). */
  holder(): Promise<LockOwner | undefined>;
}

/** Removes a lock file by name; gone already is fine. (`rmSync` would lstat it first: one call more on every enqueue.) */
const unlinkIfPresent = (file: string): void => {
  try {
    unlinkSync(file);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
};

// The lock's file operations are a handful of metadata calls, each microseconds: done
// synchronously, so a lock taken on a path that must not yield and one taken from async code
// share one implementation, and no await sits between checking the lock and claiming it.
//
// Every one of them reaches the lock's directory held open and checked (`inCheckedDirEntriesSync`,
// on Linux): the lock lives in the project's `.pi/memory`, and a directory on the way swapped for
// a link between a check and a call by path (by an account that may rename entries above it) made
// the draft, the lock and its tombstone be created, renamed and removed in the link's target.

const OWNER_MAX = 64 * 1024;

const parseOwner = (text: string): LockOwner | undefined => {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isRecord(parsed)) return undefined;
    const { pid, token, host, at, startTicks } = parsed;
    if (typeof pid !== 'number' || typeof token !== 'string' || typeof host !== 'string') return undefined;
    const started = typeof startTicks === 'number' ? { startTicks } : {};
    return { pid, host, token, at: typeof at === 'number' ? at : 0, ...started };
  } catch {
    return undefined;
  }
};

/** The owner a lock file names and its heartbeat (mtime); `{}` when there is no such file. */
const readOwner = (file: string): { owner?: LockOwner; mtimeMs?: number } => {
  let fd: number;
  try {
    fd = openStateFileSync(file, 'read');
  } catch (error) {
    // A lock planted as a link (to /dev/zero, say) is never followed: it has a heartbeat and no owner.
    if (!isUnsafeFileError(error)) return {};
    try {
      return { mtimeMs: inCheckedDirEntriesSync(path.dirname(file), (entry) => lstatSync(entry(path.basename(file))).mtimeMs) };
    } catch {
      return {};
    }
  }
  try {
    const { mtimeMs, size } = fstatSync(fd);
    if (size > OWNER_MAX) return { mtimeMs };
    const buffer = Buffer.alloc(size);
    const read = size === 0 ? 0 : readSync(fd, buffer, 0, size, 0);
    const owner = parseOwner(buffer.toString('utf8', 0, read));
    return owner === undefined ? { mtimeMs } : { owner, mtimeMs };
  } catch {
    return {};
  } finally {
    closeSync(fd);
  }
};

/** Whether a holder on this host is gone: its pid is free, or another process (started at other ticks) has it. */
const holderGone = (owner: LockOwner): boolean => {
  if (!pidExists(owner.pid)) return true;
  if (owner.startTicks === undefined) return false;
  const ticks = processStartTicks(owner.pid);
  return ticks !== undefined && ticks !== owner.startTicks;
};

/** This process's start ticks, read once (they never change). */
let ownStart: { readonly ticks: number | undefined } | undefined;
const ownStartTicks = (): { startTicks?: number } => {
  ownStart ??= { ticks: processStartTicks(process.pid) };
  return ownStart.ticks === undefined ? {} : { startTicks: ownStart.ticks };
};

/** Blocks this thread for `ms` (a wait between lock attempts that must not yield). */
const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * Tokens of the locks this process holds now, by lock path (across every DirLock of the
 * path). A lock file naming this process with a token not in here is one whose release
 * failed (a read-only or full disk): stale, though its owner is alive.
 */
const heldHere = new Map<string, Set<string>>();

export const createDirLock = (options: DirLockOptions): DirLock => {
  const lockPath = options.path;
  const staleMs = options.staleMs ?? 30_000;
  const retryMs = options.retryMs ?? 5;
  const verifyRelease = options.verifyRelease ?? true;
  const host = hostname();

  // The heartbeat last seen, and since when (monotonic ms) it has not moved.
  let watched: { readonly heartbeat: string; readonly since: number } | undefined;
  const unchangedFor = (heartbeat: string): number => {
    const now = performance.now();
    if (watched?.heartbeat !== heartbeat) watched = { heartbeat, since: now };
    return now - watched.since;
  };

  /** The stale holder's token ('' when the file has no owner), or undefined when it is live. */
  const staleToken = (): string | undefined => {
    const { owner, mtimeMs } = readOwner(lockPath);
    if (mtimeMs === undefined) return undefined; // Gone already: the next attempt creates it.
    const age = unchangedFor(`${owner?.token ?? ''}@${mtimeMs}`);
    if (owner === undefined) return age > Math.min(staleMs, 2_000) ? '' : undefined;
    if (owner.host === host && owner.pid !== process.pid && holderGone(owner)) return owner.token;
    if (owner.host === host && owner.pid === process.pid && heldHere.get(lockPath)?.has(owner.token) !== true) return owner.token;
    return age > staleMs ? owner.token : undefined;
  };

  const lockDir = path.dirname(lockPath);
  const lockName = path.basename(lockPath);

  /**
   * Moves the stale lock aside. If another contender replaced it with a live lock between our
   * check and the rename, the moved file is not the one we judged: it is put back.
   */
  const claimStale = (judged: string): void => {
    const tombName = `${lockName}.stale-${randomUUID()}`;
    inCheckedDirEntriesSync(lockDir, (entry) => {
      try {
        renameSync(entry(lockName), entry(tombName));
      } catch {
        return; // Someone else claimed it (or the holder released it): try again from the top.
      }
      const { owner } = readOwner(path.join(lockDir, tombName));
      if ((owner?.token ?? '') !== judged) {
        try {
          linkSync(entry(tombName), entry(lockName));
        } catch {
          // A new holder is in place already; the judged one is gone either way.
        }
      }
      unlinkIfPresent(entry(tombName));
    });
  };

  /** Creates the lock holding `owner`, or throws (EEXIST: it is held; ENOENT: no directory). */
  const createLock = (owner: LockOwner): void => {
    // Written aside, then hard-linked into place: the lock appears with its owner in one
    // atomic step (link fails if it exists), so it is never seen empty.
    const draftName = `${lockName}.${owner.token}.owner`;
    inCheckedDirEntriesSync(lockDir, (entry) => {
      const draft = entry(draftName);
      try {
        const fd = openSync(draft, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
        try {
          writeSync(fd, JSON.stringify(owner));
        } finally {
          closeSync(fd);
        }
        linkSync(draft, entry(lockName));
      } finally {
        unlinkIfPresent(draft);
      }
    });
  };

  const tryAcquireNow = (): HeldLock | undefined => {
    const token = randomUUID();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        createLock({ pid: process.pid, host, token, at: Date.now(), ...ownStartTicks() });
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') {
          // Created a step at a time, each refused if a link stands in its place.
          ensurePrivateDirSync(lockDir);
          continue;
        }
        if (errnoCode(error) !== 'EEXIST') throw error;
        const judged = staleToken();
        if (judged === undefined) return undefined;
        claimStale(judged);
        continue;
      }
      const tokens = heldHere.get(lockPath) ?? new Set<string>();
      tokens.add(token);
      heldHere.set(lockPath, tokens);
      return heldLock(token);
    }
    return undefined;
  };

  const releaseNow = (token: string): void => {
    // No longer held, whatever the removal below does: if it fails, the file is stale.
    heldHere.get(lockPath)?.delete(token);
    if (verifyRelease) {
      let text: string;
      try {
        text = readStateFileSync(lockPath, 64 * 1024) ?? '';
      } catch {
        return;
      }
      if (!text.includes(`"token":"${token}"`)) return;
    }
    try {
      inCheckedDirEntriesSync(lockDir, (entry) => unlinkIfPresent(entry(lockName)));
    } catch (error) {
      // Its directory is gone, or was swapped for a link: nothing of ours to remove there.
      if (!isUnsafeFileError(error) && errnoCode(error) !== 'ENOENT') throw error;
    }
  };

  const heldLock = (token: string): HeldLock => ({
    token,
    release: async () => releaseNow(token),
    releaseSync: () => releaseNow(token),
    refresh: async () => {
      const { owner } = readOwner(lockPath);
      if (owner?.token !== token) return false;
      const now = new Date();
      try {
        // lutimes: the name is touched, never what a link in its place leads to.
        inCheckedDirEntriesSync(lockDir, (entry) => lutimesSync(entry(lockName), now, now));
      } catch {
        // The next refresh tries again; a holder that cannot touch it is judged by its pid.
      }
      return true;
    },
  });

  const timedOut = (timeoutMs: number): Error => {
    const { owner } = readOwner(lockPath);
    const who = owner === undefined ? 'an unknown process' : `process ${owner.pid} on ${owner.host}`;
    return new Error(`timed out after ${timeoutMs} ms waiting for the lock ${lockPath} held by ${who}; if that process is gone, remove the file`);
  };

  return {
    path: lockPath,
    tryAcquire: async () => tryAcquireNow(),
    acquire: async (timeoutMs) => {
      const until = performance.now() + timeoutMs;
      for (;;) {
        const held = tryAcquireNow();
        if (held !== undefined) return held;
        if (performance.now() >= until) throw timedOut(timeoutMs);
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    },
    acquireSync: (timeoutMs) => {
      const until = performance.now() + timeoutMs;
      for (;;) {
        const held = tryAcquireNow();
        if (held !== undefined) return held;
        if (performance.now() >= until) throw timedOut(timeoutMs);
        sleepSync(retryMs);
      }
    },
    holder: async () => readOwner(lockPath).owner,
  };
};
