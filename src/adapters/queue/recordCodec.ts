/**
 * One journal line: the `JournalRecord` envelope as JSON, with a checksum that catches damage
 * which still parses. The line is `{"v":1,"seq":…,"type":…,"at":…,"payload":…,"checksum":"…"}`
 * and the checksum is the first 16 hex chars of SHA-256 over the line's text before
 * `,"checksum"` (the canonical JSON of v, seq, type, at and payload, exactly as written), so a
 * reader verifies the bytes it read without serialising anything again.
 */
import { createHash } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { IsoTimestamp, NonEmptyString, NonNegativeInt, type JournalRecord } from '../../codecs/codecs.js';
import { decodeWith } from '../../codecs/decode.js';
import type { JournalEntry } from '../../effects/ports/journal.js';
import { redactKnownInValue } from '../../config/redact.js';
import { jsonEncode } from '../../codecs/jsonEncode.js';

const CHECKSUM_FIELD = ',"checksum":"';

const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** The payload with known secret values removed, and the line's text before `,"checksum"`. */
const headOf = (entry: JournalEntry, seq: number): { payload: JournalRecord['payload']; head: string } => {
  // Known secret values never reach the journal, whatever event carries them (a failure
  // reason echoing the key); done before the checksum, so the line still verifies.
  const payload = redactKnownInValue(entry.payload);
  // A job's content is encoded here and again in its request body: `jsonEncode` does it once.
  return { payload, head: `{"v":1,"seq":${seq},"type":${JSON.stringify(entry.type)},"at":${JSON.stringify(entry.at)},"payload":${jsonEncode(payload)}` };
};

const recordOf = (entry: JournalEntry, seq: number, payload: JournalRecord['payload'], checksum: string): JournalRecord =>
  ({ v: 1, seq, type: entry.type, at: entry.at, payload, checksum }) as JournalRecord;

/** The record for `entry` at `seq`, and its line (with the trailing newline). */
export const encodeRecord = (entry: JournalEntry, seq: number): { record: JournalRecord; line: string } => {
  const { payload, head } = headOf(entry, seq);
  const checksum = digest(head);
  return { record: recordOf(entry, seq, payload, checksum), line: `${head}${CHECKSUM_FIELD}${checksum}"}\n` };
};

// The line's end after the checksum's 16 hex characters.
const LINE_END = '"}\n';
const TAIL_BYTES = CHECKSUM_FIELD.length + 16 + LINE_END.length;

/**
 * `encodeRecord` with the line as the UTF-8 bytes appended: the same bytes as
 * `Buffer.from(line)`, encoded once (the checksum is taken over those bytes, which is what
 * hashing the text does), where the text was encoded once to hash and again to write.
 */
export const encodeRecordBytes = (entry: JournalEntry, seq: number): { record: JournalRecord; bytes: Buffer } => {
  const { payload, head } = headOf(entry, seq);
  const headBytes = Buffer.byteLength(head, 'utf8');
  const bytes = Buffer.allocUnsafe(headBytes + TAIL_BYTES);
  bytes.write(head, 0, 'utf8');
  const checksum = createHash('sha256').update(bytes.subarray(0, headBytes)).digest('hex').slice(0, 16);
  bytes.write(`${CHECKSUM_FIELD}${checksum}${LINE_END}`, headBytes, 'utf8');
  return { record: recordOf(entry, seq, payload, checksum), bytes };
};

// The shared `JournalRecord` envelope, except that the payload is not walked again: it came
// out of JSON.parse, so it is a JSON value by construction (and the checksum covers it).
const ParsedEnvelope = t.intersection([
  t.type({ v: t.literal(1), seq: NonNegativeInt, type: NonEmptyString, at: IsoTimestamp, payload: t.unknown, checksum: t.string }),
  t.partial({ machine: t.string }),
]);
const decodeEnvelope = decodeWith(ParsedEnvelope, 'retain queue line');

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
  const record = decoded.right as JournalRecord;
  const cut = line.lastIndexOf(CHECKSUM_FIELD);
  if (cut === -1) return E.left('checksum field is not last on the line');
  const expected = digest(line.slice(0, cut));
  return record.checksum === expected ? E.right(record) : E.left(`checksum mismatch (line says ${record.checksum.slice(0, 16)}, content gives ${expected})`);
};
