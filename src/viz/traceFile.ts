/** Reads a JSONL trace for replay. A line that does not decode is reported by number, never dropped silently. */
import { readFileSync } from 'node:fs';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { TraceRecord } from '../effects/ports/trace.js';
import { JsonValue } from '../codecs/codecs.js';
import { decodeJson } from '../codecs/decode.js';

const TraceLine = t.type({
  gate: t.string,
  kind: t.keyof({ event: null, transition: null, effect: null, rejected: null }),
  at: t.string,
  data: JsonValue,
});

export interface TraceFile {
  readonly records: readonly TraceRecord[];
  readonly problems: readonly string[];
}

export const readTraceFile = (file: string): TraceFile => {
  const records: TraceRecord[] = [];
  const problems: string[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const decoded = decodeJson(TraceLine, `${file} line ${i + 1}`)(line);
      if (E.isLeft(decoded)) problems.push(decoded.left.message);
      else records.push(decoded.right);
    });
  return { records, problems };
};
