/**
 * The retain queue's journal: a JSONL file shared by every process of one project.
 *
 * - Every mutation (append, tail repair, compaction) runs under the inter-process mutation
 *   lock and is synchronous from taking the lock to letting it go: `appendSync` is durable
 *   (fsync'd) when it returns, so pi's `agent_end`, which is never awaited, queues a turn with
 *   one write and one fsync, and no await ever sits inside the lock (a synchronous append
 *   waiting on this process's own async holder would wait for good).
 * - A torn last line (a writer died mid-write, a disk filled) is moved to the quarantine file
 *   and cut off before the next append, so it can never glue onto a good record. A damaged
 *   line in the middle is quarantined too and reported as damage; nothing is dropped silently.
 * - Other processes' records are picked up under the lock (`takeForeign`) and handed to the
 *   caller, which folds them in without writing them again. A compaction by another process
 *   replaces the file: `takeForeign` then says `replaced` and the caller reloads.
 */
import { closeSync, fsyncSync, ftruncateSync, lstatSync, renameSync } from 'node:fs';
import path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import type { JournalRecord } from '../../codecs/codecs.js';
import type { JournalDamage, JournalEntry, JournalLoad } from '../../effects/ports/journal.js';
import type { ForeignRecords, SharedJournal } from '../../effects/ports/retainQueueStore.js';
import { createDirLock, type DirLock } from '../fs/dirLock.js';
import { forEachLineSync } from '../fs/fileLines.js';
import { decodeLine, encodeRecord, encodeRecordBytes } from './recordCodec.js';
import { fsyncDirectorySync } from '../fs/atomicFile.js';
import { appendDurableSync, queueFiles, type QueueFiles } from './queueFiles.js';
import { ensurePrivateDirSync, inCheckedDirEntriesSync, openStateFileSync, readStateFileSync, UnsafeFileError, writePrivateFileSync } from '../fs/safeFile.js';
import { errnoCode } from '../../codecs/errno.js';

/** The file operations a fault can hit; tests pass a failing twin (a full disk, a torn write). */
export interface JournalFs {
  appendDurable(file: string, data: Buffer): { created: boolean };
}

export const nodeJournalFs: JournalFs = { appendDurable: appendDurableSync };

export type { ForeignRecords } from '../../effects/ports/retainQueueStore.js';

export interface QueueJournal extends SharedJournal {
  readonly files: QueueFiles;
}

export interface JsonlJournalOptions {
  readonly path: string;
  readonly fs?: JournalFs;
  /** How long an append waits for another process's lock before failing. */
  readonly lockTimeoutMs?: number;
  readonly lockStaleMs?: number;
  /** Called for every damaged record found (also returned as damage). */
  readonly onDamage?: (damage: JournalDamage) => void;
  /**
   * This user's mark for the journal (`queueOwner.ts`). When given, a journal (and dead-letter
   * log) without it is set aside before anything is read, and the mark is written; `trust`
   * writes the mark for the journal as it is (the user took a set-aside queue back).
   */
  readonly owner?: { readonly mark: string; readonly trust: boolean };
  /**
   * Asked when the file at the journal's path is not the one this process last read (another
   * process's compaction, a first journal another process made, or a file put there: a `git
   * pull` writes over the ignored journal, beside this user's mark, which is of the path). A
   * reason refuses the journal from then on: nothing more is read from it or written to it.
   */
  readonly refuseNewFile?: () => string | undefined;
}

interface Position {
  /** Which file: inode and birth time (`fileIdentity`). */
  ino: string | null;
  end: number;
  records: number;
}

/**
 * A file's identity: its inode number and its birth time. The number alone is not enough: git
 * removes a file before it writes the new one, and ext4 gave the new file the same number every
 * time (a pull over the ignored journal then looked like the same file, longer: read on from
 * where this process stopped, as records appended). Where the file system keeps no birth time
 * (0), the number alone.
 */
const fileIdentity = (stat: { readonly ino: number; readonly birthtimeMs: number }): string => `${stat.ino}:${stat.birthtimeMs}`;

/** What went wrong and what to do, without the underlying error's object (it may be large). */
const writeFailure = (file: string, error: unknown): Error => {
  const code = errnoCode(error);
  const hint =
    code === 'ENOSPC'
      ? 'the disk is full; free space and retry'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'the queue directory is not writable; fix its permissions or set retain.queuePath'
        : 'check the disk and retry';
  const detail = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error(`retain queue: could not write ${file} (${detail}); nothing was queued; ${hint}`), { code });
};

/** Runs `fn` now; a throw becomes a rejection (the async face of a synchronous operation). */
const settle = <T>(fn: () => T): Promise<T> => new Promise((resolve) => resolve(fn()));

export const openJsonlJournal = async (options: JsonlJournalOptions): Promise<QueueJournal> => {
  const files = queueFiles(options.path);
  const journalFs = options.fs ?? nodeJournalFs;
  const lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  // Held for one write at a time (milliseconds), so release skips the ownership read.
  const lock: DirLock = createDirLock({ path: files.lock, staleMs: options.lockStaleMs ?? 30_000, verifyRelease: false });
  const position: Position = { ino: null, end: 0, records: 0 };
  let nextSeq = 0;
  let closed = false;

  ensurePrivateDirSync(path.dirname(files.journal));

  /** Sets aside a journal (and dead letters) this user's memory did not write; caller holds the lock. */
  const claim = (owner: NonNullable<JsonlJournalOptions['owner']>): void => {
    if (!owner.trust && readStateFileSync(files.owner, 4096)?.trim() === owner.mark) return;
    if (!owner.trust) {
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      for (const file of [files.journal, files.deadLetters]) {
        const stat = statOf(file);
        if (stat === undefined || stat.size === 0) continue;
        const aside = `${path.basename(file).replace(/\.jsonl$/, '')}.untrusted-${stamp}.jsonl`;
        // Renamed in the directory held open (a swapped directory never takes the rename elsewhere).
        inCheckedDirEntriesSync(path.dirname(file), (entry) => renameSync(entry(path.basename(file)), entry(aside)));
      }
    }
    writePrivateFileSync(files.owner, `${owner.mark}\n`);
    fsyncDirectorySync(path.dirname(files.journal));
  };

  // Why the journal is refused (`refuseNewFile`): every later read and write fails with it.
  let refused: string | undefined;
  const refusedError = (reason: string): Error => new Error(`retain queue: ${files.journal} is refused (${reason}); nothing was queued or delivered from it`);

  const locked = <T>(fn: () => T): T => {
    if (refused !== undefined) throw refusedError(refused);
    const held = lock.acquireSync(lockTimeoutMs);
    try {
      return fn();
    } finally {
      held.releaseSync();
    }
  };

  const quarantine = (bytes: Buffer, offset: number, reason: string): JournalDamage => {
    const line = JSON.stringify({ at: new Date().toISOString(), source: files.journal, offset, reason, bytes: bytes.toString('base64') });
    appendDurableSync(files.quarantine, Buffer.from(`${line}\n`));
    const damage: JournalDamage = { line: offset, reason: `${reason} (bytes at offset ${offset} moved to ${files.quarantine})`, quarantinedTo: files.quarantine };
    options.onDamage?.(damage);
    return damage;
  };

  const statOf = (file: string): { ino: string; size: number } | undefined => {
    try {
      // lstat: a journal planted as a link to another file is refused, never read or cut.
      const stat = lstatSync(file);
      if (!stat.isFile()) throw new UnsafeFileError(file, stat.isSymbolicLink() ? 'it is a symbolic link (a cloned repository can plant one); remove it' : 'it is not a regular file; remove it');
      return { ino: fileIdentity(stat), size: stat.size };
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  };
  const statJournal = (): { ino: string; size: number } | undefined => statOf(files.journal);

  // Before anything of the journal is read: a queue this user's memory did not write is never folded.
  if (options.owner !== undefined) {
    const owner = options.owner;
    locked(() => claim(owner));
  }

  const truncateTo = (size: number, durable: boolean): void => {
    const fd = openStateFileSync(files.journal, 'readWrite');
    try {
      ftruncateSync(fd, size);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };

  /**
   * Parses bytes `[from, to)` of the journal, read in chunks: complete lines become records or
   * damage; a fragment after the last newline is quarantined and cut off the file. Caller holds
   * the lock.
   */
  const parseRange = (from: number, to: number): { records: JournalRecord[]; damage: JournalDamage[]; damagedLines: number; end: number } => {
    const records: JournalRecord[] = [];
    const damage: JournalDamage[] = [];
    let damagedLines = 0;
    // Where the last complete line ends: what this process has read up to.
    let end = from;
    const fd = openStateFileSync(files.journal, 'read');
    let tail;
    try {
      tail = forEachLineSync(fd, from, to, (bytes, start, lineEnd, at) => {
        end = at + (lineEnd - start) + 1;
        const text = bytes.toString('utf8', start, lineEnd);
        if (text.trim().length === 0) return;
        const decoded = decodeLine(text);
        if (E.isRight(decoded)) records.push(decoded.right);
        else {
          damagedLines += 1;
          damage.push(quarantine(bytes.subarray(start, lineEnd), at, `damaged record: ${decoded.left}`));
        }
      });
      if (tail !== undefined) damage.push(quarantine(tail.buf.subarray(0, tail.end), tail.at, 'torn last line (a writer stopped mid-write)'));
    } finally {
      closeSync(fd);
    }
    if (tail !== undefined) truncateTo(tail.at, true);
    return { records, damage, damagedLines, end };
  };

  const seqAfter = (records: readonly JournalRecord[]): void => {
    for (const record of records) if (record.seq >= nextSeq) nextSeq = record.seq + 1;
  };

  /** Brings this process up to the file's end (caller holds the lock). */
  const catchUp = (): ForeignRecords => {
    const stat = statJournal();
    if (stat === undefined) {
      const replaced = position.ino !== null;
      Object.assign(position, { ino: null, end: 0, records: 0 });
      return { records: [], damage: [], replaced };
    }
    if (options.refuseNewFile !== undefined && (position.ino === null || stat.ino !== position.ino || stat.size < position.end)) {
      const reason = options.refuseNewFile();
      if (reason !== undefined) {
        refused = reason;
        throw refusedError(reason);
      }
    }
    if (position.ino !== null && stat.ino !== position.ino) {
      Object.assign(position, { ino: stat.ino, end: stat.size, records: 0 });
      return { records: [], damage: [], replaced: true };
    }
    position.ino = stat.ino;
    if (stat.size < position.end) {
      // Shorter than we wrote: someone cut it. Reload rather than guess.
      position.end = stat.size;
      return { records: [], damage: [], replaced: true };
    }
    if (stat.size === position.end) return { records: [], damage: [], replaced: false };
    const region = parseRange(position.end, stat.size);
    position.end = region.end;
    position.records += region.records.length;
    seqAfter(region.records);
    return { records: region.records, damage: region.damage, replaced: false };
  };

  // What other processes appended, met by this process's own appends: handed over by `takeForeign`.
  let foreignBacklog: JournalRecord[] = [];
  let damageBacklog: JournalDamage[] = [];
  let replacedSeen = false;

  const keepForeign = (caught: ForeignRecords): void => {
    foreignBacklog.push(...caught.records);
    damageBacklog.push(...caught.damage);
    if (caught.replaced) replacedSeen = true;
  };

  const appendNow = (entries: readonly JournalEntry[]): JournalRecord[] => {
    if (entries.length === 0) return [];
    try {
      return locked(() => {
        keepForeign(catchUp());
        const records: JournalRecord[] = [];
        const lines: Buffer[] = [];
        for (const entry of entries) {
          const { record, bytes } = encodeRecordBytes(entry, nextSeq);
          nextSeq += 1;
          records.push(record);
          lines.push(bytes);
        }
        const data = lines.length === 1 && lines[0] !== undefined ? lines[0] : Buffer.concat(lines);
        const before = position.end;
        try {
          journalFs.appendDurable(files.journal, data);
        } catch (error) {
          // Take back whatever part of the write landed, so no unacknowledged record survives.
          try {
            truncateTo(before, false);
          } catch {
            // The next append finds the fragment and quarantines it.
          }
          throw writeFailure(files.journal, error);
        }
        if (position.ino === null) position.ino = statJournal()?.ino ?? null;
        position.end = before + data.length;
        position.records += lines.length;
        return records;
      });
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('retain queue:')) throw error;
      // The lock itself failed (timed out, unwritable directory).
      throw new Error(`retain queue: ${error instanceof Error ? error.message : String(error)}; nothing was queued`, { cause: error });
    }
  };

  /** Replaces the journal whole: temp file, fsync, rename, directory fsync (a crash leaves the old or the new). */
  const replaceWith = (text: string): void => {
    writePrivateFileSync(files.journal, text);
    fsyncDirectorySync(path.dirname(files.journal));
  };

  const rewrite = (entries: readonly JournalEntry[]): void => {
    nextSeq = 0;
    const lines = entries.map((entry) => {
      const { line } = encodeRecord(entry, nextSeq);
      nextSeq += 1;
      return line;
    });
    replaceWith(lines.join(''));
    const stat = statJournal();
    Object.assign(position, { ino: stat?.ino ?? null, end: stat?.size ?? 0, records: lines.length });
  };

  const journal: QueueJournal = {
    files,
    appendSync: (entries) => {
      if (closed) throw new Error(`retain queue: ${files.journal} is closed; nothing was queued`);
      return appendNow(entries);
    },
    append: (entries) => settle(() => journal.appendSync(entries)),

    load: () =>
      settle((): JournalLoad =>
        locked(() => {
          const stat = statJournal();
          foreignBacklog = [];
          damageBacklog = [];
          replacedSeen = false;
          nextSeq = 0;
          if (stat === undefined) {
            Object.assign(position, { ino: null, end: 0, records: 0 });
            return { records: [], damage: [] };
          }
          const region = parseRange(0, stat.size);
          seqAfter(region.records);
          if (region.damagedLines > 0) {
            // Damaged lines are safe in the quarantine file now; rewrite without them so the
            // next load does not report (and quarantine) them again.
            replaceWith(region.records.map((r) => `${JSON.stringify(r)}\n`).join(''));
          }
          const after = statJournal();
          Object.assign(position, { ino: after?.ino ?? null, end: after?.size ?? 0, records: region.records.length });
          return { records: region.records, damage: region.damage };
        }),
      ),

    takeForeign: () =>
      settle(() =>
        locked(() => {
          const caught = catchUp();
          const out: ForeignRecords = {
            records: [...foreignBacklog, ...caught.records],
            damage: [...damageBacklog, ...caught.damage],
            replaced: replacedSeen || caught.replaced,
          };
          foreignBacklog = [];
          damageBacklog = [];
          replacedSeen = false;
          return out;
        }),
      ),

    compact: (entries) =>
      settle(() =>
        locked(() => {
          catchUp();
          rewrite(entries);
        }),
      ),

    compactIfCurrent: (build) =>
      settle(() =>
        locked(() => {
          keepForeign(catchUp());
          if (foreignBacklog.length > 0 || replacedSeen) return false;
          rewrite(build());
          return true;
        }),
      ),

    stats: () => ({ records: position.records, bytes: position.end }),

    close: async () => {
      closed = true;
    },
  };

  return journal;
};
