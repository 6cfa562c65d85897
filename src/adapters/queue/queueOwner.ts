/**
 * Whose retain queue a journal is. The journal lives in the project (`.pi/memory`), where a
 * cloned repository can commit one: its queued jobs name any bank and any tags, and the first
 * flush would deliver them (another project's memories poisoned under that project's tag, or
 * the user bank every project recalls from). A journal this user's memory writes carries a mark
 * beside it (`retain-queue.owner`): an HMAC, under a key only this user holds (in pi's agent
 * dir, 0600), of the journal's absolute path. A repository cannot forge it, and a mark copied
 * from another directory does not fit. A journal without a valid mark is set aside whole,
 * never delivered, and the user is told where it is and how to take it back.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, rmSync, unlinkSync, writeSync, constants } from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../../codecs/errno.js';
import { dirNamesSync } from '../fs/dirNames.js';
import { inCheckedDirEntriesSync, readStateFileSync, tempNameFor, trustUserDir } from '../fs/safeFile.js';
import { queueFiles } from './queueFiles.js';

/** The key file in pi's agent dir: 32 random bytes as hex, created once, owner-only. */
export const ownerKeyFile = (agentDir: string): string => path.join(agentDir, 'memory-queue.key');

const KEY_HEX = /^[0-9a-f]{64}$/;

/**
 * This user's queue key, created on first use. Created by hard-linking a complete temp file to
 * the name (fails if it exists), so two processes starting at once agree on one key and neither
 * reads a half-written one.
 */
export const readOwnerKey = (agentDir: string): string => {
  const file = ownerKeyFile(agentDir);
  trustUserDir(agentDir);
  // `agent-memory flush` may run before pi ever made its agent dir.
  mkdirSync(agentDir, { recursive: true, mode: 0o700 });
  const existing = readStateFileSync(file, 4096);
  if (existing !== undefined) {
    const key = existing.trim();
    if (!KEY_HEX.test(key)) throw new Error(`${file} is not a queue key (64 hex characters); remove it and memory makes a new one (queued turns are kept, set aside)`);
    return key;
  }
  // Created and linked in the agent dir held open, as every state file is (`inCheckedDirEntriesSync`).
  inCheckedDirEntriesSync(agentDir, (entry) => {
    const temp = entry(path.basename(tempNameFor(file)));
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, entry(path.basename(file)));
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
    } finally {
      rmSync(temp, { force: true });
    }
  });
  return readOwnerKey(agentDir);
};

/** The mark of the journal at `journalPath` under `key`. */
export const ownerMark = (key: string, journalPath: string): string =>
  createHmac('sha256', Buffer.from(key, 'hex')).update(`agent-memory/retain-queue-owner\n${path.resolve(journalPath)}`).digest('hex');

/**
 * Withdraws this user's mark from a journal git tracks (`memoryDir`-relative names in `tracked`).
 * The mark is of the path, not the content, and `.pi/memory/.gitignore` makes the journal an
 * ignored file, which git overwrites without a word when a pull or checkout brings a tracked
 * one: the repository's journal then sat beside the user's valid mark, and once the user
 * untracked it as the refusal says, it was delivered. Without the mark it is set aside unread.
 * Returns whether git tracks the journal, its dead letters or its mark (the mark is gone then).
 */
export const withdrawTrackedMark = (journalPath: string, memoryDir: string, tracked: readonly string[]): boolean => {
  const files = queueFiles(journalPath);
  const names = new Set(tracked);
  const isTracked = (file: string): boolean => {
    const relative = path.relative(memoryDir, file);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) && names.has(relative.split(path.sep).join('/'));
  };
  if (![files.journal, files.deadLetters, files.owner].some(isTracked)) return false;
  // Removed in the directory held open (never through a link swapped in on the way).
  inCheckedDirEntriesSync(path.dirname(files.owner), (entry) => {
    try {
      unlinkSync(entry(path.basename(files.owner)));
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
  });
  return true;
};

/** The queue files set aside beside the journal at `journalPath` (`retain-queue.untrusted-….jsonl`, `retain-queue.dead.untrusted-….jsonl`). */
export const setAsideQueueFiles = (journalPath: string): readonly string[] => {
  const dir = path.dirname(journalPath);
  const base = path.basename(journalPath).replace(/\.jsonl$/, '');
  return dirNamesSync(dir)
    .filter((name) => name.startsWith(`${base}.`) && /\.untrusted-[0-9TZ-]+\.jsonl$/.test(name))
    .sort()
    .map((name) => path.join(dir, name));
};

/**
 * What delivers a set-aside queue file the user moved back, where they read the notice: a
 * command line that runs (the CLI's own, from selfCommand.ts; never a program name that may be
 * on no PATH), or in pi a new session: it claims the journal at start under the mark already
 * written beside it. A session running now folds a journal moved in under it at its next sync
 * and keeps its own queued jobs (`queueGate.ts`), but its compaction at the moment of the move
 * could still write over it: pi is quit first.
 */
export type TakeBack = { readonly kind: 'run'; readonly command: string } | { readonly kind: 'restart-pi' };

/** What the user is told about a set-aside queue file, until they move or delete it. */
export const setAsideNotice = (file: string, takeBack: TakeBack): string =>
  `${file}: a retain queue file this user's memory did not write (a cloned repository can commit one, naming any bank and tags) was set aside and nothing in it was delivered; delete it, or if it is your own queue from an earlier version, check its jobs, ${
    takeBack.kind === 'run'
      ? `move it back (retain-queue.jsonl or retain-queue.dead.jsonl) and run ${takeBack.command}`
      : 'quit pi, move it back (retain-queue.jsonl or retain-queue.dead.jsonl) and start pi again in this project: its first session delivers it'
  }`;
