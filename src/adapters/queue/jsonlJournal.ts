/**
 * The retain queue's journal: a JSONL file shared by every process of one project.
 *
 * - Every mutation (append, tail repair, compaction) runs under the inter-process mutation
 *   lock, inside an in-process chain; concurrent appends of one process share one write and
 *   one fsync (group commit), and `append` resolves only after that fsync.
 * - A torn last line (a writer died mid-write, a disk filled) is moved to the quarantine file
 *   and cut off before the next append, so it can never glue onto a good record. A damaged
 *   line in the middle is quarantined too and reported as damage; nothing is dropped silently.
 * - Other processes' records are picked up under the lock (`takeForeign`) and handed to the
 *   caller, which folds them in without writing them again. A compaction by another process
 *   replaces the file: `takeForeign` then says `replaced` and the caller reloads.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import type { JournalRecord } from '../../machines/shared/codecs.js';
import type { JournalDamage, JournalEntry, JournalLoad } from '../../effects/ports/journal.js';
import type { ForeignRecords, SharedJournal } from '../../effects/ports/retainQueueStore.js';
import { createDirLock, type DirLock } from '../fs/dirLock.js';
import { decodeLine, encodeRecord } from './recordCodec.js';
import { fsyncDirectory, writeAtomic } from '../fs/atomicFile.js';
import { appendDurable, queueFiles, type QueueFiles } from './queueFiles.js';
import { ensurePrivateDir, openStateFile, UnsafeFileError } from '../fs/safeFile.js';

/** The file operations a fault can hit; tests pass a failing twin (a full disk, a torn write). */
export interface JournalFs {
  appendDurable(file: string, data: Buffer): Promise<{ created: boolean }>;
}

export const nodeJournalFs: JournalFs = { appendDurable };

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
}

interface Position {
  ino: number | null;
  end: number;
  records: number;
}

const NEWLINE = 0x0a;

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

/** What went wrong and what to do, without the underlying error's object (it may be large). */
const writeFailure = (file: string, error: unknown): Error => {
  const code = errorCode(error);
  const hint =
    code === 'ENOSPC'
      ? 'the disk is full; free space and retry'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'the queue directory is not writable; fix its permissions or set retain.queuePath'
        : 'check the disk and retry';
  const detail = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error(`retain queue: could not write ${file} (${detail}); nothing was queued; ${hint}`), { code });
};

export const openJsonlJournal = async (options: JsonlJournalOptions): Promise<QueueJournal> => {
  const files = queueFiles(options.path);
  const journalFs = options.fs ?? nodeJournalFs;
  const lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  // Held for one write at a time (milliseconds), so release skips the ownership read.
  const lock: DirLock = createDirLock({ path: files.lock, staleMs: options.lockStaleMs ?? 30_000, verifyRelease: false });
  const position: Position = { ino: null, end: 0, records: 0 };
  let nextSeq = 0;
  let closed = false;

  await ensurePrivateDir(path.dirname(files.journal));

  // One operation at a time in this process; the lock orders processes.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn);
    chain = run.catch(() => undefined);
    return run;
  };
  const locked = <T>(fn: () => Promise<T>): Promise<T> =>
    serial(async () => {
      const held = await lock.acquire(lockTimeoutMs);
      try {
        return await fn();
      } finally {
        await held.release();
      }
    });

  const quarantine = async (bytes: Buffer, offset: number, reason: string): Promise<JournalDamage> => {
    const line = JSON.stringify({ at: new Date().toISOString(), source: files.journal, offset, reason, bytes: bytes.toString('base64') });
    await appendDurable(files.quarantine, Buffer.from(`${line}\n`));
    const damage: JournalDamage = { line: offset, reason: `${reason} (bytes at offset ${offset} moved to ${files.quarantine})`, quarantinedTo: files.quarantine };
    options.onDamage?.(damage);
    return damage;
  };

  const statJournal = async (): Promise<{ ino: number; size: number } | undefined> => {
    try {
      // lstat: a journal planted as a link to another file is refused, never read or cut.
      const stat = await fs.lstat(files.journal);
      if (!stat.isFile()) throw new UnsafeFileError(files.journal, stat.isSymbolicLink() ? 'it is a symbolic link (a cloned repository can plant one); remove it' : 'it is not a regular file; remove it');
      return { ino: stat.ino, size: stat.size };
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  };

  const readRange = async (start: number, end: number): Promise<Buffer> => {
    const handle = await openStateFile(files.journal, 'read');
    try {
      const buffer = Buffer.alloc(end - start);
      let read = 0;
      while (read < buffer.length) {
        const { bytesRead } = await handle.read(buffer, read, buffer.length - read, start + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return buffer.subarray(0, read);
    } finally {
      await handle.close();
    }
  };

  /**
   * Parses `bytes` (file content from `start`): complete lines become records or damage; a
   * fragment after the last newline is quarantined and cut off the file. Caller holds the lock.
   */
  const parseRegion = async (bytes: Buffer, start: number): Promise<{ records: JournalRecord[]; damage: JournalDamage[]; damagedLines: number; end: number }> => {
    const records: JournalRecord[] = [];
    const damage: JournalDamage[] = [];
    let damagedLines = 0;
    let lineStart = 0;
    for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, lineStart)) {
      const text = bytes.toString('utf8', lineStart, i);
      if (text.trim().length > 0) {
        const decoded = decodeLine(text);
        if (E.isRight(decoded)) records.push(decoded.right);
        else {
          damagedLines += 1;
          damage.push(await quarantine(bytes.subarray(lineStart, i), start + lineStart, `damaged record: ${decoded.left}`));
        }
      }
      lineStart = i + 1;
    }
    if (lineStart < bytes.length) {
      damage.push(await quarantine(bytes.subarray(lineStart), start + lineStart, 'torn last line (a writer stopped mid-write)'));
      const handle = await openStateFile(files.journal, 'readWrite');
      await handle
        .truncate(start + lineStart)
        .then(() => handle.sync())
        .finally(() => handle.close());
    }
    return { records, damage, damagedLines, end: start + lineStart };
  };

  const seqAfter = (records: readonly JournalRecord[]): void => {
    for (const record of records) if (record.seq >= nextSeq) nextSeq = record.seq + 1;
  };

  /** Brings this process up to the file's end (caller holds the lock). */
  const catchUp = async (): Promise<ForeignRecords> => {
    const stat = await statJournal();
    if (stat === undefined) {
      const replaced = position.ino !== null;
      Object.assign(position, { ino: null, end: 0, records: 0 });
      return { records: [], damage: [], replaced };
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
    const region = await parseRegion(await readRange(position.end, stat.size), position.end);
    position.end = region.end;
    position.records += region.records.length;
    seqAfter(region.records);
    return { records: region.records, damage: region.damage, replaced: false };
  };

  // Group commit: appends that arrive while a write is under way go out together in the next.
  let waiting: { entries: readonly JournalEntry[]; resolve: (r: JournalRecord[]) => void; reject: (e: Error) => void }[] = [];
  let foreignBacklog: JournalRecord[] = [];
  let damageBacklog: JournalDamage[] = [];
  let replacedSeen = false;
  let writerScheduled = false;

  const writeWaiting = async (): Promise<void> => {
    writerScheduled = false;
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return;
    try {
      const caught = await catchUp();
      foreignBacklog.push(...caught.records);
      damageBacklog.push(...caught.damage);
      if (caught.replaced) replacedSeen = true;
      const results: JournalRecord[][] = [];
      const lines: string[] = [];
      for (const item of batch) {
        const recs: JournalRecord[] = [];
        for (const entry of item.entries) {
          const { record, line } = encodeRecord(entry, nextSeq);
          nextSeq += 1;
          recs.push(record);
          lines.push(line);
        }
        results.push(recs);
      }
      const data = Buffer.from(lines.join(''), 'utf8');
      const before = position.end;
      try {
        await journalFs.appendDurable(files.journal, data);
      } catch (error) {
        // Take back whatever part of the write landed, so no unacknowledged record survives.
        await openStateFile(files.journal, 'readWrite')
          .then((handle) => handle.truncate(before).finally(() => handle.close()))
          .catch(() => undefined);
        throw writeFailure(files.journal, error);
      }
      if (position.ino === null) position.ino = (await statJournal())?.ino ?? null;
      position.end = before + data.length;
      position.records += lines.length;
      batch.forEach((item, i) => item.resolve(results[i] ?? []));
    } catch (error) {
      const failure = error instanceof Error && error.message.startsWith('retain queue:') ? error : writeFailure(files.journal, error);
      for (const item of batch) item.reject(failure);
    }
  };

  const journal: QueueJournal = {
    files,
    append: (entries) => {
      if (closed) return Promise.reject(new Error(`retain queue: ${files.journal} is closed; nothing was queued`));
      if (entries.length === 0) return Promise.resolve([]);
      return new Promise<JournalRecord[]>((resolve, reject) => {
        waiting.push({ entries, resolve, reject });
        if (!writerScheduled) {
          writerScheduled = true;
          locked(writeWaiting).catch((error: unknown) => {
            // The lock itself failed: fail everyone still waiting with that reason.
            const failure = error instanceof Error ? error : new Error(String(error));
            const stranded = waiting;
            waiting = [];
            writerScheduled = false;
            for (const item of stranded) item.reject(new Error(`retain queue: ${failure.message}; nothing was queued`));
          });
        }
      });
    },

    load: () =>
      locked(async (): Promise<JournalLoad> => {
        const stat = await statJournal();
        foreignBacklog = [];
        damageBacklog = [];
        replacedSeen = false;
        nextSeq = 0;
        if (stat === undefined) {
          Object.assign(position, { ino: null, end: 0, records: 0 });
          return { records: [], damage: [] };
        }
        const region = await parseRegion(await readRange(0, stat.size), 0);
        seqAfter(region.records);
        if (region.damagedLines > 0) {
          // Damaged lines are safe in the quarantine file now; rewrite without them so the
          // next load does not report (and quarantine) them again.
          await writeAtomic(files.journal, region.records.map((r) => `${JSON.stringify(r)}\n`).join(''));
        }
        const after = await statJournal();
        Object.assign(position, { ino: after?.ino ?? null, end: after?.size ?? 0, records: region.records.length });
        return { records: region.records, damage: region.damage };
      }),

    takeForeign: () =>
      locked(async () => {
        const caught = await catchUp();
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

    compact: (entries) =>
      locked(async () => {
        await catchUp();
        await rewrite(entries);
      }),

    compactIfCurrent: (build) =>
      locked(async () => {
        const caught = await catchUp();
        foreignBacklog.push(...caught.records);
        damageBacklog.push(...caught.damage);
        if (caught.replaced) replacedSeen = true;
        if (foreignBacklog.length > 0 || replacedSeen) return false;
        await rewrite(build());
        return true;
      }),

    stats: () => ({ records: position.records, bytes: position.end }),

    close: async () => {
      closed = true;
      await serial(async () => undefined);
    },
  };

  const rewrite = async (entries: readonly JournalEntry[]): Promise<void> => {
    nextSeq = 0;
    const lines = entries.map((entry) => {
      const { line } = encodeRecord(entry, nextSeq);
      nextSeq += 1;
      return line;
    });
    const text = lines.join('');
    await writeAtomic(files.journal, text);
    await fsyncDirectory(path.dirname(files.journal));
    const stat = await statJournal();
    Object.assign(position, { ino: stat?.ino ?? null, end: stat?.size ?? 0, records: lines.length });
  };

  return journal;
};
