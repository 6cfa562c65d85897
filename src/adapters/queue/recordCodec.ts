/**
 * One journal line: the `JournalRecord` envelope as JSON, with a checksum that catches damage
 * which still parses. The checksum is the first 16 hex chars of SHA-256 over
 * `JSON.stringify([v, seq, type, at, payload])`; a parsed payload stringifies to the same text,
 * so the reader recomputes it from what it parsed.
 */
import { createHash } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { JournalRecord, type JsonValue } from '../../machines/shared/codecs.js';
import { decodeWith } from '../../machines/shared/decode.js';
import type { JournalEntry } from '../../effects/ports/journal.js';

export const checksumOf = (seq: number, type: string, at: string, payload: JsonValue): string =>
  createHash('sha256').update(JSON.stringify([1, seq, type, at, payload])).digest('hex').slice(0, 16);

/** The record for `entry` at `seq`, and its line (with the trailing newline). */
export const encodeRecord = (entry: JournalEntry, seq: number): { record: JournalRecord; line: string } => {
  const checksum = checksumOf(seq, entry.type, entry.at, entry.payload);
  const record = { v: 1, seq, type: entry.type, at: entry.at, payload: entry.payload, checksum } as JournalRecord;
  return { record, line: `${JSON.stringify(record)}\n` };
};

const decodeEnvelope = decodeWith(JournalRecord, 'retain queue line');

/** Parses one line (without its newline): the record, or why it is damaged. */
export const decodeLine = (line: string): E.Either<string, JournalRecord> => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    return E.left(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const decoded = decodeEnvelope(parsed);
  if (E.isLeft(decoded)) return E.left(decoded.left.message);
  const record = decoded.right;
  const expected = checksumOf(record.seq, record.type, record.at, record.payload);
  return record.checksum === expected ? E.right(record) : E.left(`checksum mismatch (line says ${record.checksum.slice(0, 16)}, content gives ${expected})`);
};
