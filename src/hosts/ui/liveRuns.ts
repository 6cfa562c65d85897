/**
 * The machines of every session of a project, live: the journals the runtime writes under
 * `{state_dir}/memory/trace` (`session.journal.<stamp>-<pid>.jsonl`, `setup.journal...`; a shell
 * command's runtime adds its name, `...-<pid>.import.jsonl`, and its run is named as it), the
 * shared retain queue and the import checkpoint are read as they grow (polled: watch events
 * are not delivered on every file system; where they are, a change is read at once), each new record folded through its gate's machine,
 * its payload redacted, and the step handed to every listener. A run is one process (the pid in
 * its journals' names); it is running while that process is. A file that shrinks or is replaced
 * (a compaction) is folded again from the start.
 */
import { constants, watch, type FSWatcher } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import type { LoadedConfig } from '../../config/load.js';
import { redactValue } from '../../config/redact.js';
import { sharedEventTypes } from '../../machines/retainDelivery/events.js';
import { JournalRecord } from '../../codecs/codecs.js';
import { decodeJson } from '../../codecs/decode.js';
import { vizGates, type VizGate } from '../../viz/gates.js';
import { gateFold, type GateFold, type GateStep } from '../../viz/steps.js';
import { processStartedAt } from '../../adapters/fs/processStart.js';
import { pidExists } from '../../adapters/fs/pidExists.js';
import { fileReadProblem, isGone, linkProblem, notAFileProblem, traceDirProblem, withoutPaths } from './readProblem.js';

export interface LiveStep extends GateStep {
  readonly run: string;
  /** Position of the step in its run, from 0. */
  readonly index: number;
}

export interface RunView {
  readonly run: string;
  readonly pid: number | null;
  readonly running: boolean;
  readonly startedAt: string | null;
  readonly files: readonly string[];
  readonly steps: readonly LiveStep[];
  /** Why a file of the run could not be read now, and what to do: one sentence each (file names only, never a path). */
  readonly problems: readonly string[];
}

export type LiveChange = { readonly step: LiveStep } | { readonly reset: string } | { readonly problems: string };

export interface LiveRuns {
  runs(): readonly RunView[];
  /** Called with each new step, with `reset` when a run's steps were folded again, and with `problems` when a run's problems changed. */
  subscribe(listener: (change: LiveChange) => void): () => void;
  close(): void;
}

/** `<gate>.journal.<stamp>-<pid>[.<command>].jsonl`: a shell command's runtime (`import`) names itself after the pid. */
const JOURNAL = /^(session|setup)\.journal\.(.+?)-(\d+)(?:\.([a-z-]+))?\.jsonl$/;

/**
 * A run's name, as the browser shows it: what ran and its pid (`pi session · pid 42`,
 * `agent-memory import · pid 42`). The one place a run is worded; the page shows it as it is.
 */
const runName = (pid: string, command: string | undefined): string =>
  `${command === undefined ? 'pi session' : `agent-memory ${command === 'import-dry-run' ? 'import --dry-run' : command}`} · pid ${pid}`;
/** While a browser watches the machines; otherwise the runs are kept current at a slower pace. */
const POLL_MS = 150;
const IDLE_POLL_MS = 2_000;
const MAX_STEPS = 5_000;
const MAX_READ_BYTES = 4 * 1024 * 1024;

interface Tail {
  readonly file: string;
  readonly run: string;
  /** The process that writes it; null for the project's shared files. */
  readonly pid: number | null;
  readonly gate: VizGate;
  fold: GateFold;
  offset: number;
  ino: number;
  rest: string;
  line: number;
  /** When the run's process opened this journal (the stamp in its name), epoch ms. */
  readonly openedAt: number | null;
  /** Why the file could not be read at the last poll; null when it was. */
  problem: string | null;
}

const gateNamed = (name: string): VizGate => {
  const gate = vizGates.find((g) => g.name === name);
  if (gate === undefined) throw new Error(`no gate ${name}`);
  return gate;
};

/** A start after the journal was opened by more than this is another process (/proc's times are to about a second). */
const REUSE_SLACK_MS = 5_000;

/**
 * Whether the process that wrote the run's journals is alive: a live pid is not enough, since
 * the kernel hands a pid out again (the browser said "running" for a run long ended); a process
 * that started after the run opened its journal is another one.
 */
const isRunning = (pid: number, openedAt: number | null): boolean => {
  if (!pidExists(pid)) return false;
  const started = processStartedAt(pid);
  return started === undefined || openedAt === null || started <= openedAt + REUSE_SLACK_MS;
};

/** The time in a journal's name (`2026-11-27T06-00-00-000Z`, written by traceFiles.ts), epoch ms. */
const stampTime = (stamp: string): number | null => {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/.exec(stamp);
  if (m === null) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(ms) ? null : ms;
};

/** A gate's fold as every process folds its journal: the retain queue folds only the events every process shares. */
export const foldFor = (gate: VizGate): GateFold => gateFold(gate, gate.name === 'retainDelivery' ? (r) => sharedEventTypes.has(r.type) : () => true);

export const watchLiveRuns = (loaded: LoadedConfig): LiveRuns => {
  const traceDir = path.join(loaded.stateDir, 'memory', 'trace');
  const tails = new Map<string, Tail>();
  const steps = new Map<string, LiveStep[]>();
  const listeners = new Set<(change: LiveChange) => void>();
  const emit = (change: LiveChange): void => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch {
        // One watcher's failure (a page gone mid-write) is its own: the files are read on for the others.
      }
    }
  };
  /** Why the trace directory could not be listed; shown on the project's run. */
  let dirProblem: string | null = null;
  const setProblem = (tail: Tail, problem: string | null): void => {
    if (tail.problem === problem) return;
    tail.problem = problem;
    emit({ problems: tail.run });
  };

  const shared = [
    { file: loaded.config.queuePath, gate: 'retainDelivery' },
    { file: loaded.config.importCheckpoint, gate: 'import' },
  ];

  const discover = async (): Promise<void> => {
    let names: string[] = [];
    let problem: string | null = null;
    try {
      names = await readdir(traceDir);
    } catch (err) {
      // No trace directory yet: no session has run here. Anything else is said on the project's run.
      if (!isGone(err)) problem = traceDirProblem(err);
    }
    if (problem !== dirProblem) {
      dirProblem = problem;
      emit({ problems: 'project' });
    }
    for (const name of names) {
      const match = JOURNAL.exec(name);
      const file = path.join(traceDir, name);
      if (match === null || tails.has(file)) continue;
      const gate = gateNamed(match[1] ?? '');
      tails.set(file, { file, run: runName(match[3] ?? '?', match[4]), pid: Number(match[3]), gate, fold: foldFor(gate), offset: 0, ino: 0, rest: '', line: 0, openedAt: stampTime(match[2] ?? ''), problem: null });
    }
    for (const { file, gate } of shared) {
      if (!tails.has(file)) tails.set(file, { file, run: 'project', pid: null, gate: gateNamed(gate), fold: foldFor(gateNamed(gate)), offset: 0, ino: 0, rest: '', line: 0, openedAt: null, problem: null });
    }
  };

  const resetRun = (run: string): void => {
    // Every file of the run is folded again from its start.
    steps.set(run, []);
    for (const tail of tails.values()) {
      if (tail.run !== run) continue;
      tail.offset = 0;
      tail.rest = '';
      tail.line = 0;
      tail.fold = foldFor(tail.gate);
    }
    emit({ reset: run });
  };

  /** Reads what the file gained since the last poll; returns why it cannot be read, or null. */
  const readTail = async (tail: Tail): Promise<string | null> => {
    // lstat: a link a cloned repository committed in the trace directory is never followed.
    const info = await lstat(tail.file);
    const name = path.basename(tail.file);
    if (!info.isFile()) return info.isSymbolicLink() ? linkProblem(name) : notAFileProblem(name);
    if ((tail.ino !== 0 && info.ino !== tail.ino) || info.size < tail.offset) {
      tail.ino = info.ino;
      resetRun(tail.run);
    }
    tail.ino = info.ino;
    if (info.size === tail.offset) return null;
    const handle = await open(tail.file, constants.O_RDONLY | constants.O_NOFOLLOW);
    let text: string;
    try {
      // At most MAX_READ_BYTES a poll: a large file is read on over several polls, never held whole.
      const buffer = Buffer.alloc(Math.min(info.size - tail.offset, MAX_READ_BYTES));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, tail.offset);
      tail.offset += bytesRead;
      text = tail.rest + buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
    const lines = text.split('\n');
    tail.rest = lines.pop() ?? '';
    const list = steps.get(tail.run) ?? [];
    steps.set(tail.run, list);
    for (const line of lines) {
      tail.line += 1;
      if (line.trim() === '') continue;
      const decoded = decodeJson(JournalRecord, `${path.basename(tail.file)} line ${tail.line}`)(line);
      // A damaged line is shown as a step that was not folded, never dropped unseen.
      const at = tail.fold.value();
      const rejected = (problem: string): GateStep => ({ gate: tail.gate.name, at: '', event: null, kind: 'rejected', from: at, to: at, effects: [], problem });
      let folded: GateStep;
      try {
        folded = E.isLeft(decoded) ? rejected(decoded.left.message) : tail.fold.step(decoded.right);
      } catch (err) {
        // A record the machine threw on is one rejected step; the lines after it are read on.
        folded = rejected(`${name} line ${tail.line}: could not be folded (${withoutPaths(err instanceof Error ? err.message : String(err))})`);
      }
      const step: LiveStep = { ...folded, event: redactValue(folded.event), run: tail.run, index: list.length };
      list.push(step);
      if (list.length > MAX_STEPS) list.splice(0, list.length - MAX_STEPS);
      emit({ step });
    }
    return null;
  };

  let busy = false;
  const poll = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      await discover();
      // Each file's failure is its own: the others are still read, and the person is told why (a
      // journal another account wrote stopped every file after it, and nothing said so).
      for (const tail of tails.values()) {
        try {
          setProblem(tail, await readTail(tail));
        } catch (err) {
          // Removed between listing and reading (or not written yet, for the shared files): the next poll sees the directory as it is.
          setProblem(tail, isGone(err) ? null : fileReadProblem(path.basename(tail.file), err));
        }
      }
    } finally {
      busy = false;
    }
  };
  // `agent-memory serve` holds this for its memory browser all day: nobody watching, it looks
  // at the files every 2 s instead of every 150 ms.
  let timer = setInterval(() => void poll(), IDLE_POLL_MS);
  let closed = false;
  const pace = (ms: number): void => {
    if (closed) return;
    clearInterval(timer);
    timer = setInterval(() => void poll(), ms);
  };
  void poll();
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(traceDir, { persistent: false }, () => void poll());
    watcher.on('error', () => watcher?.close());
  } catch {
    // No trace directory yet, or no watch support: the interval alone reads the files.
  }

  return {
    runs: () => {
      const byRun = new Map<string, string[]>();
      const pidOf = new Map<string, number | null>();
      // One pid may name runs of several processes over time: the newest journal is the live one's.
      const openedAt = new Map<string, number | null>();
      const problems = new Map<string, string[]>([['project', dirProblem === null ? [] : [dirProblem]]]);
      for (const tail of tails.values()) {
        byRun.set(tail.run, [...(byRun.get(tail.run) ?? []), path.basename(tail.file)]);
        if (tail.problem !== null) problems.set(tail.run, [...(problems.get(tail.run) ?? []), tail.problem]);
        pidOf.set(tail.run, tail.pid);
        const before = openedAt.get(tail.run) ?? null;
        openedAt.set(tail.run, before === null || (tail.openedAt !== null && tail.openedAt > before) ? tail.openedAt : before);
      }
      return [...byRun].map(([run, files]) => {
        const pid = pidOf.get(run) ?? null;
        const list = steps.get(run) ?? [];
        return {
          run,
          pid,
          running: pid === null ? true : isRunning(pid, openedAt.get(run) ?? null),
          startedAt: list[0]?.at ?? null,
          files,
          steps: list,
          problems: problems.get(run) ?? [],
        };
      });
    },
    subscribe: (listener) => {
      listeners.add(listener);
      if (listeners.size === 1) {
        pace(POLL_MS);
        void poll();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) pace(IDLE_POLL_MS);
      };
    },
    close: () => {
      closed = true;
      clearInterval(timer);
      watcher?.close();
    },
  };
};
