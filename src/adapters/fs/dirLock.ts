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
import { linkSync, lstatSync, mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { readStateFileSync } from './safeFile.js';
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

// The lock's file operations are a handful of metadata calls, each microseconds: done
// synchronously, so a lock taken on a path that must not yield and one taken from async code
// share one implementation, and no await sits between checking the lock and claiming it.
const readOwner = (file: string): { owner?: LockOwner; mtimeMs?: number } => {
  let mtimeMs: number;
  try {
    mtimeMs = lstatSync(file).mtimeMs;
  } catch {
    return {};
  }
  try {
    // A lock planted as a link (to /dev/zero, say) or grown huge is unreadable, never followed.
    const parsed: unknown = JSON.parse(readStateFileSync(file, 64 * 1024) ?? '');
    if (!isRecord(parsed)) return { mtimeMs };
    const { pid, token, host, at, startTicks } = parsed;
    if (typeof pid !== 'number' || typeof token !== 'string' || typeof host !== 'string') return { mtimeMs };
    const started = typeof startTicks === 'number' ? { startTicks } : {};
    return { owner: { pid, host, token, at: typeof at === 'number' ? at : 0, ...started }, mtimeMs };
  } catch {
    return { mtimeMs };
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

  /**
   * Moves the stale lock aside. If another contender replaced it with a live lock between our
   * check and the rename, the moved file is not the one we judged: it is put back.
   */
  const claimStale = (judged: string): void => {
    const tomb = `${lockPath}.stale-${randomUUID()}`;
    try {
      renameSync(lockPath, tomb);
    } catch {
      return; // Someone else claimed it (or the holder released it): try again from the top.
    }
    const { owner } = readOwner(tomb);
    if ((owner?.token ?? '') !== judged) {
      try {
        linkSync(tomb, lockPath);
      } catch {
        // A new holder is in place already; the judged one is gone either way.
      }
    }
    rmSync(tomb, { force: true });
  };

  const tryAcquireNow = (): HeldLock | undefined => {
    const token = randomUUID();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const owner: LockOwner = { pid: process.pid, host, token, at: Date.now(), ...ownStartTicks() };
      // Written aside, then hard-linked into place: the lock appears with its owner in one
      // atomic step (link fails if it exists), so it is never seen empty.
      const draft = `${lockPath}.${token}.owner`;
      try {
        writeFileSync(draft, JSON.stringify(owner), { mode: 0o600, flag: 'wx' });
        linkSync(draft, lockPath);
      } catch (error) {
        rmSync(draft, { force: true });
        if (errnoCode(error) === 'ENOENT') {
          mkdirSync(path.dirname(lockPath), { recursive: true, mode: 0o700 });
          continue;
        }
        if (errnoCode(error) !== 'EEXIST') throw error;
        const judged = staleToken();
        if (judged === undefined) return undefined;
        claimStale(judged);
        continue;
      }
      rmSync(draft, { force: true });
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
    rmSync(lockPath, { force: true });
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
        utimesSync(lockPath, now, now);
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
