/**
 * A trace-grade journal for gates whose state is not worth a disk flush (session, setup): one
 * JSONL file per runtime, records in the same envelope as every journal, written in order but
 * batched (one write per 50 ms at most, through one file handle kept open, opened no-follow)
 * and never fsync'd, so a dispatch on the prompt path does not wait for the disk. A
 * crash may lose the last lines; the visualiser replays what is there (`agent-memory viz
 * --journal`). Lines carry no checksum (`""`): a torn last line is reported as damage.
 */
import { mkdir, readFile, readdir, rm, writeFile, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import type { JournalDamage, JournalEntry, JournalPort } from '../../effects/ports/journal.js';
import { JournalRecord } from '../../codecs/codecs.js';
import { decodeJson } from '../../codecs/decode.js';
import { openStateFile } from '../fs/safeFile.js';
import { errnoCode } from '../../codecs/errno.js';

/** How long appended lines may wait for company before they are written. */
const BATCH_MS = 50;

export interface TraceJournalOptions {
  readonly path: string;
}

export interface TraceJournal extends JournalPort {
  readonly path: string;
  appendSync(entries: readonly JournalEntry[]): readonly JournalRecord[];
  /** Resolves once every appended line is written. */
  flush(): Promise<void>;
}

/** Reads a journal file's records in order; lines that do not decode are damage, never thrown. */
export const readJournalFile = async (file: string): Promise<{ records: JournalRecord[]; damage: JournalDamage[] }> => {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { records: [], damage: [] };
    throw error;
  }
  const records: JournalRecord[] = [];
  const damage: JournalDamage[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const decoded = decodeJson(JournalRecord, `${file} line ${i + 1}`)(line);
    if (E.isLeft(decoded)) damage.push({ line: i + 1, reason: decoded.left.message });
    else records.push(decoded.right);
  });
  return { records, damage };
};

export const openTraceJournal = (options: TraceJournalOptions): TraceJournal => {
  const file = options.path;
  let seq = 0;
  // Records wait unserialised: encoding them is the batch's work, off the dispatch path.
  let buffer: JournalRecord[] = [];
  // A directory that cannot be made fails the writes, which are best effort; never the gate.
  let writing: Promise<void> = mkdir(path.dirname(file), { recursive: true }).then(
    () => undefined,
    () => undefined,
  );
  let closed = false;
  let handle: Promise<FileHandle> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  // Opened once (no-follow, 0600) and kept: an open and a close per batch cost more than the write.
  const handleOf = (): Promise<FileHandle> => (handle ??= openStateFile(file, 'append'));
  const closeHandle = async (): Promise<void> => {
    const open = handle;
    handle = undefined;
    if (open !== undefined) await open.then((h) => h.close()).catch(() => undefined);
  };

  const writeBuffered = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return;
    const text = buffer.map((record) => `${JSON.stringify(record)}\n`).join('');
    buffer = [];
    // A trace that cannot be written must never break the gate: the write is best effort, and
    // a failed handle is dropped so the next batch opens the file again.
    writing = writing
      .then(async () => {
        await (await handleOf()).write(text);
      })
      .catch(async () => {
        await closeHandle();
      });
  };

  const journal: TraceJournal = {
    path: file,
    append: (entries) => new Promise((resolve) => resolve(journal.appendSync(entries))),
    // Buffering is all an append does here, so it is synchronous: the gate dispatches
    // synchronously and its decision is made before a host hook that is never awaited returns.
    appendSync: (entries) => {
      if (closed) throw new Error(`journal ${file} is closed`);
      const records = entries.map((entry) => ({ v: 1, seq: seq++, type: entry.type, at: entry.at, payload: entry.payload, checksum: '' }) as JournalRecord);
      const wasEmpty = buffer.length === 0;
      buffer.push(...records);
      // One write per batch window, whatever the number of dispatches in it. Unref'd: close()
      // and flush() write what is left, and a trace must not keep a process alive.
      if (wasEmpty) {
        timer = setTimeout(writeBuffered, BATCH_MS);
        timer.unref();
      }
      return records;
    },
    load: async () => {
      writeBuffered();
      await writing;
      const loaded = await readJournalFile(file);
      seq = loaded.records.reduce((next, r) => Math.max(next, r.seq + 1), seq);
      return loaded;
    },
    compact: async (entries) => {
      writeBuffered();
      const rewrite = async (): Promise<void> => {
        // The file is replaced: the kept handle would write to the old one.
        await closeHandle();
        seq = 0;
        const lines = entries.map((entry) => `${JSON.stringify({ v: 1, seq: seq++, type: entry.type, at: entry.at, payload: entry.payload, checksum: '' })}\n`);
        await writeFile(file, lines.join(''), { mode: 0o600 });
      };
      const done = writing.then(rewrite);
      writing = done.catch(() => undefined);
      await done;
    },
    flush: async () => {
      writeBuffered();
      await writing;
    },
    close: async () => {
      closed = true;
      writeBuffered();
      await writing;
      await closeHandle();
    },
  };
  return journal;
};

/**
 * The journal file for `gate` in this runtime, under `{dir}`; older files of the gate beyond
 * the newest `keep` are removed so the directory does not grow without bound.
 */
export const runJournalPath = async (dir: string, gate: string, stamp: string, keep = 5): Promise<string> => {
  const prefix = `${gate}.journal.`;
  try {
    const old = (await readdir(dir)).filter((name) => name.startsWith(prefix) && name.endsWith('.jsonl')).sort();
    for (const name of old.slice(0, Math.max(0, old.length - (keep - 1)))) await rm(path.join(dir, name), { force: true });
  } catch {
    // No directory yet: nothing to prune.
  }
  return path.join(dir, `${prefix}${stamp}.jsonl`);
};
