/**
 * The trace as a JSONL file, one record a line, for the visualiser and for bug reports.
 * Writes are synchronous appends: a trace is opt-in debugging output, and a synchronous
 * append keeps its order identical to the order of the steps it records.
 */
import { closeSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JsonValue } from '../../codecs/codecs.js';
import type { TracePort, TraceRecord } from '../../effects/ports/trace.js';
import { redactKnownValues } from '../../config/redact.js';
import { ensurePrivateDirSync, openStateFileSync } from '../fs/safeFile.js';

export interface JsonlTraceOptions {
  readonly path: string;
  /** Applied to each record's data before it is written: traces never hold secrets. */
  readonly redact: (value: JsonValue) => JsonValue;
}

export const jsonlTrace = ({ path, redact }: JsonlTraceOptions): TracePort => {
  ensurePrivateDirSync(dirname(path));
  return {
    write: (record: TraceRecord) => {
      // Opened per record with no-follow: a trace file swapped for a link is refused, not followed.
      const fd = openStateFileSync(path, 'append');
      try {
        writeSync(fd, redactKnownValues(`${JSON.stringify({ ...record, data: redact(record.data) })}\n`));
      } finally {
        closeSync(fd);
      }
    },
  };
};

/** The in-memory twin: keeps records in an array, for tests and the live visualiser. */
export const memoryTrace = (): TracePort & { readonly records: TraceRecord[] } => {
  const records: TraceRecord[] = [];
  return { records, write: (record) => void records.push(record) };
};
