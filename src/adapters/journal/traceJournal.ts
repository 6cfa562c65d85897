/**
 * A trace-grade journal for gates whose state is not worth a disk flush (session, setup): one
 * JSONL file per runtime, records in the same envelope as every journal, written in order but
 * batched and never fsync'd, so a dispatch on the prompt path does not wait for the disk. A
 * crash may lose the last lines; the visualiser replays what is there (`agent-memory viz
 * --journal`). Lines carry no checksum (`""`): a torn last line is reported as damage.
 */
import { appendFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import type { JournalDamage, JournalEntry, JournalPort } from '../../effects/ports/journal.js';
import { JournalRecord } from '../../machines/shared/codecs.js';
import { decodeJson } from '../../machines/shared/decode.js';

export interface TraceJournalOptions {
  readonly path: string;
}

export interface TraceJournal extends JournalPort {
  readonly path: string;
  /** Resolves once every appended line is written. */
  flush(): Promise<void>;
}

/** Reads a journal file's records in order; lines that do not decode are damage, never thrown. */
export const readJournalFile = async (file: string): Promise<{ records: JournalRecord[]; damage: JournalDamage[] }> => {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], damage: [] };
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
  let buffer: string[] = [];
  let writing: Promise<void> = mkdir(path.dirname(file), { recursive: true }).then(() => undefined);
  let closed = false;

  const writeBuffered = (): void => {
    if (buffer.length === 0) return;
    const text = buffer.join('');
    buffer = [];
    // A trace that cannot be written must never break the gate: the write is best effort.
    writing = writing.then(() => appendFile(file, text, { mode: 0o600 })).catch(() => undefined);
  };

  return {
    path: file,
    append: async (entries: readonly JournalEntry[]) => {
      if (closed) throw new Error(`journal ${file} is closed`);
      const records = entries.map((entry) => ({ v: 1, seq: seq++, type: entry.type, at: entry.at, payload: entry.payload, checksum: '' }) as JournalRecord);
      const wasEmpty = buffer.length === 0;
      for (const record of records) buffer.push(`${JSON.stringify(record)}\n`);
      // One write per turn of the event loop, whatever the number of dispatches in it.
      if (wasEmpty) setImmediate(writeBuffered);
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
    },
  };
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
