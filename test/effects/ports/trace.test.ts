/** The JSONL trace file and the in-memory trace keep the same contract. */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { jsonlTrace, memoryTrace } from '../../../src/adapters/trace/jsonlTrace.js';
import type { TraceRecord } from '../../../src/effects/ports/trace.js';
import { describeTraceConformance } from './conformance/trace.js';

const readLines = async (file: string): Promise<TraceRecord[]> =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as TraceRecord);

describeTraceConformance('JSONL trace file', async () => {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'am-trace-')), 'trace', 'gate.jsonl');
  return { trace: jsonlTrace({ path: file, redact: (v) => v }), records: () => readLines(file) };
});

describeTraceConformance('memory trace (twin)', async () => {
  const trace = memoryTrace();
  return { trace, records: async () => trace.records };
});

it('the file trace redacts each record before it is written', async () => {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'am-trace-')), 'gate.jsonl');
  jsonlTrace({ path: file, redact: () => '[redacted]' }).write({ gate: 'g', kind: 'event', at: '2026-11-23T10:00:00.000Z', data: { key: 'secret' } });
  expect((await readLines(file))[0]?.data).toBe('[redacted]');
});
