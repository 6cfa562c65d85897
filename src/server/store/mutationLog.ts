/**
 * The append-only mutation log in segments `log-<firstSeq>.jsonl`. Appends are group
 * committed: every batch queued while an fsync runs goes out in the next write + fsync, and
 * each batch's `onDurable` runs synchronously right after its fsync, in order. A snapshot is
 * taken between batches, so it sees exactly the mutations whose seq is below its mark.
 */
import { open, readdir, readFile, truncate, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeLine } from './logFormat.js';

const SEGMENT = /^log-(\d{12})\.jsonl$/;
export const segmentName = (firstSeq: number): string => `log-${String(firstSeq).padStart(12, '0')}.jsonl`;

interface PendingBatch {
  readonly lines: readonly Buffer[];
  readonly onDurable: () => void;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface LogReplay {
  /** Payloads with seq >= fromSeq, in order. */
  readonly entries: readonly { readonly seq: number; readonly value: unknown }[];
  readonly nextSeq: number;
  /** Bytes cut from a torn last line, if any. */
  readonly truncatedBytes: number;
}

/** Reads every segment; a bad last line of the newest segment is cut off (a torn write), a bad line elsewhere is an error. */
export const replayLog = async (dir: string, fromSeq: number): Promise<LogReplay> => {
  const names = (await readdir(dir)).filter((n) => SEGMENT.test(n)).sort();
  const entries: { seq: number; value: unknown }[] = [];
  let nextSeq = fromSeq;
  let truncatedBytes = 0;
  for (const [index, name] of names.entries()) {
    const first = Number(SEGMENT.exec(name)?.[1]);
    const path = join(dir, name);
    const text = await readFile(path, 'utf8');
    let offset = 0;
    let seq = first;
    const isLast = index === names.length - 1;
    while (offset < text.length) {
      const end = text.indexOf('\n', offset);
      const line = end === -1 ? text.slice(offset) : text.slice(offset, end);
      const check = end === -1 ? ({ ok: false, reason: 'torn last line (no newline)' } as const) : decodeLine(line);
      if (!check.ok) {
        const restIsLastLine = end === -1 || end === text.length - 1;
        if (isLast && restIsLastLine) {
          // A crash mid-write leaves at most one partial line at the end: it was never acknowledged.
          const keep = Buffer.byteLength(text.slice(0, offset), 'utf8');
          truncatedBytes = Buffer.byteLength(text, 'utf8') - keep;
          await truncate(path, keep);
          break;
        }
        throw new Error(
          `server data: ${path} line ${seq - first + 1} is damaged (${check.reason}); move the file aside or restore a backup, then start again`,
        );
      }
      if (seq >= fromSeq) entries.push({ seq, value: check.value });
      seq += 1;
      offset = end + 1;
    }
    nextSeq = Math.max(nextSeq, seq);
  }
  return { entries, nextSeq, truncatedBytes };
};

export class MutationLog {
  private handle: FileHandle | undefined;
  private size = 0;
  private pending: PendingBatch[] = [];
  private running = false;
  private idleWaiters: (() => void)[] = [];
  private betweenBatches: (() => Promise<void>) | undefined;

  private constructor(
    private readonly dir: string,
    private nextSeqValue: number,
  ) {}

  /** Opens a fresh segment starting at `nextSeq` (after replay). */
  static async open(dir: string, nextSeq: number): Promise<MutationLog> {
    const log = new MutationLog(dir, nextSeq);
    await log.openSegment();
    return log;
  }

  get nextSeq(): number {
    return this.nextSeqValue;
  }

  private async openSegment(): Promise<void> {
    const path = join(this.dir, segmentName(this.nextSeqValue));
    this.handle = await open(path, 'a', 0o600);
    await this.handle.chmod(0o600);
    this.size = (await this.handle.stat()).size;
  }

  /** Queues lines (each `encodeLineBytes`); resolves once they are fsync'd and `onDurable` has run. */
  append(lines: readonly Buffer[], onDurable: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ lines, onDurable, resolve, reject });
      void this.drain();
    });
  }

  /** Runs `task` between two batches (nothing being written); used for snapshots and rotation. */
  runBetweenBatches(task: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.betweenBatches = async () => {
        try {
          await task();
          resolve();
        } catch (error) {
          reject(error);
        }
      };
      void this.drain();
    });
  }

  /**
   * Closes the current segment and starts a new one at the current seq; deletes segments
   * that end before `keepFrom` (already in a snapshot).
   */
  async rotate(keepFrom: number): Promise<void> {
    await this.handle?.close();
    await this.openSegment();
    const names = (await readdir(this.dir)).filter((n) => SEGMENT.test(n)).sort();
    for (let i = 0; i + 1 < names.length; i += 1) {
      const nextFirst = Number(SEGMENT.exec(names[i + 1] ?? '')?.[1]);
      if (nextFirst <= keepFrom) await unlink(join(this.dir, names[i] ?? ''));
    }
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const task = this.betweenBatches;
        if (task !== undefined) {
          this.betweenBatches = undefined;
          await task();
          continue;
        }
        if (this.pending.length === 0) break;
        const batch = this.pending;
        this.pending = [];
        await this.writeBatch(batch);
      }
    } finally {
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async writeBatch(batch: readonly PendingBatch[]): Promise<void> {
    const handle = this.handle;
    const lines = batch.flatMap((b) => b.lines);
    // One line (the usual batch) is written as it is, not copied.
    const bytes = lines.length === 1 && lines[0] !== undefined ? lines[0] : Buffer.concat(lines);
    try {
      if (handle === undefined) throw new Error('server data: the log is closed');
      await handle.write(bytes, 0, bytes.length, null);
      await handle.datasync();
    } catch (error) {
      // Cut back whatever part was written, so a later append does not follow torn bytes.
      if (handle !== undefined) await handle.truncate(this.size).catch(() => undefined);
      for (const b of batch) b.reject(error);
      return;
    }
    this.size += bytes.length;
    for (const b of batch) {
      this.nextSeqValue += b.lines.length;
      try {
        b.onDurable();
        b.resolve();
      } catch (error) {
        b.reject(error);
      }
    }
  }

  /** Waits for queued writes, then closes the segment. */
  async close(): Promise<void> {
    if (this.running || this.pending.length > 0) {
      await new Promise<void>((resolve) => {
        this.idleWaiters.push(resolve);
        void this.drain();
      });
    }
    await this.handle?.close();
    this.handle = undefined;
  }
}
