/**
 * A runtime's diagnostics under `{state_dir}/memory/trace/`: the opt-in trace of each gate and
 * the per-run journals of the session and setup gates. The directory holds diagnostics only, so
 * when it cannot be made (a read-only or full state dir, where Node's recursive mkdir says
 * ENOENT) tracing is off for this runtime with one warning, and memory goes on without it.
 */
import * as path from 'node:path';
import { openTraceJournal, runJournalPath, type TraceJournal } from '../../adapters/journal/traceJournal.js';
import { ensurePrivateDirSync } from '../../adapters/fs/safeFile.js';
import { jsonlTrace } from '../../adapters/trace/jsonlTrace.js';
import { redact, redactValue } from '../../config/redact.js';
import type { ClockPort } from '../../effects/ports/clock.js';
import type { TracePort } from '../../effects/ports/trace.js';

export interface TraceFilesOptions {
  readonly memoryDir: string;
  /** `true`: a JSONL file per gate; a port: that port for every gate; absent or `false`: none. */
  readonly trace: boolean | TracePort | undefined;
  /** False for memory switched off or a refused state dir: nothing is written under it. */
  readonly journals: boolean;
  /** The shell command this process runs (`import`), named in its journals' names after the pid. */
  readonly command?: string;
  readonly clock: ClockPort;
  /** Said once, when the directory cannot be made. */
  readonly onUnusable: (text: string) => void;
}

export interface TraceFiles {
  traceFor(gate: string): TracePort | undefined;
  journalFor(gate: string): Promise<TraceJournal | undefined>;
  close(): Promise<void>;
}

export const openTraceFiles = (o: TraceFilesOptions): TraceFiles => {
  const traceDir = path.join(o.memoryDir, 'trace');
  let usable: boolean | undefined;
  const ready = (): boolean => {
    if (usable !== undefined) return usable;
    try {
      ensurePrivateDirSync(traceDir);
      usable = true;
    } catch (error) {
      usable = false;
      o.onUnusable(
        `Memory tracing is off in this session: ${traceDir} could not be created (${redact(error instanceof Error ? error.message : String(error))}); recall and retain go on without it. /memory:doctor checks the state dir.`,
      );
    }
    return usable;
  };
  const journals: TraceJournal[] = [];
  return {
    traceFor: (gate) => {
      if (o.trace === undefined || o.trace === false) return undefined;
      if (o.trace === true) return ready() ? jsonlTrace({ path: path.join(traceDir, `${gate}.jsonl`), redact: redactValue }) : undefined;
      return o.trace;
    },
    // Session and setup inputs go through the same dispatch -> journal -> fold path as the queue,
    // into a trace-grade journal per runtime (`trace/<gate>.journal.<stamp>.jsonl`).
    journalFor: async (gate) => {
      if (!o.journals || !ready()) return undefined;
      const command = o.command === undefined ? '' : `.${o.command.replace(/[^a-z-]/g, '')}`;
      const stamp = `${new Date(o.clock.now()).toISOString().replace(/[:.]/g, '-')}-${process.pid}${command}`;
      const journal = openTraceJournal({ path: await runJournalPath(traceDir, gate, stamp) });
      journals.push(journal);
      return journal;
    },
    close: async () => {
      await Promise.all(journals.map((journal) => journal.close()));
    },
  };
};
