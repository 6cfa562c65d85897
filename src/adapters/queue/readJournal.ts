/**
 * The retain queue's journal read without touching it: no lock, no quarantine, no tail
 * repair, no rewrite. For `agent-memory status` and `doctor`, which must work (and change
 * nothing) on a read-only, locked or damaged state dir. A torn or damaged line is reported as
 * damage and skipped; the writer that opens the queue next repairs it.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { JournalRecord } from '../../codecs/codecs.js';
import type { JournalDamage, JournalLoad, JournalPort } from '../../effects/ports/journal.js';
import { openStateFile } from '../fs/safeFile.js';
import { decodeLine } from './recordCodec.js';
import { errnoCode } from '../../codecs/errno.js';

/** Far above any live queue (compaction keeps it small), far below what exhausts memory. */
const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;

/** The intact records of `file`; a missing file is an empty queue. Throws on a link, a device or an I/O error. */
const readJournalReadOnly = async (file: string): Promise<JournalLoad> => {
  let handle;
  try {
    handle = await openStateFile(file, 'read');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { records: [], damage: [] };
    throw error;
  }
  let text: string;
  try {
    const { size } = await handle.stat();
    if (size > MAX_JOURNAL_BYTES) throw new Error(`${file} is larger than ${MAX_JOURNAL_BYTES / (1024 * 1024)} MB; it was not read`);
    text = (await handle.readFile()).toString('utf8');
  } finally {
    await handle.close();
  }
  const records: JournalRecord[] = [];
  const damage: JournalDamage[] = [];
  const lines = text.split('\n');
  const torn = lines.pop() ?? '';
  let offset = 0;
  for (const line of lines) {
    if (line.trim() !== '') {
      const decoded = decodeLine(line);
      if (E.isRight(decoded)) records.push(decoded.right);
      else damage.push({ line: offset, reason: `damaged record at byte ${offset}: ${decoded.left}` });
    }
    offset += Buffer.byteLength(line) + 1;
  }
  if (torn.trim() !== '') damage.push({ line: offset, reason: `torn last line at byte ${offset} (a writer stopped mid-write); the next process that opens the queue repairs it` });
  return { records, damage };
};

const readOnly = (): Promise<never> => Promise.reject(new Error('this view of the retain queue is read-only'));

/** A journal port that only loads: appends and compactions are refused. */
export const readOnlyJournal = (file: string): JournalPort => ({
  load: () => readJournalReadOnly(file),
  append: readOnly,
  compact: readOnly,
  close: async () => undefined,
});
