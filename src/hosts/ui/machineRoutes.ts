/**
 * The memory browser's Machines view: every gate's diagram (laid out by ELK, drawn by
 * src/viz), the live steps of every session of the project as a server-sent event stream, and
 * the replay of a recorded trace or journal (what `agent-memory viz --trace` and `--journal`
 * show) on the same page. Replay reads only files of the project's trace directory, by name,
 * or the one file given at launch.
 */
import { lstat, readdir } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as path from 'node:path';
import { readJournalFile } from '../../adapters/journal/traceJournal.js';
import type { LoadedConfig } from '../../config/load.js';
import { redactValue } from '../../config/redact.js';
import { HttpError } from '../../server/http/errors.js';
import { vizGates } from '../../viz/gates.js';
import { layoutGraph } from '../../viz/layout.js';
import { machineGraph } from '../../viz/machineGraph.js';
import { stepsOfTrace, type GateStep } from '../../viz/steps.js';
import { renderSvg } from '../../viz/svg.js';
import { readTraceFile } from '../../viz/traceFile.js';
import { foldFor, type LiveRuns } from './liveRuns.js';
import type { ApiRoute } from './memoryRoutes.js';
import { openEventStream } from './security.js';

export interface Diagram {
  readonly name: string;
  readonly machineId: string;
  readonly svg: string;
}

let diagrams: Promise<readonly Diagram[]> | undefined;

/** Every gate drawn once per process: the machines do not change while it runs. */
const gateDiagrams = (): Promise<readonly Diagram[]> =>
  (diagrams ??= Promise.all(vizGates.map(async (g) => ({ name: g.name, machineId: g.machine.id, svg: renderSvg(await layoutGraph(machineGraph(g.machine)), { id: `gate-${g.name}` }) }))));

const JOURNAL_GATE = /^([A-Za-z]+)\.journal\./;

/** Steps of a trace or journal file, whichever it is. */
const replayFile = async (file: string): Promise<{ steps: GateStep[]; problems: readonly string[] }> => {
  const name = path.basename(file);
  const journalGate = name.startsWith('retain-queue') ? 'retainDelivery' : name.startsWith('import-checkpoint') ? 'import' : JOURNAL_GATE.exec(name)?.[1];
  const gate = vizGates.find((g) => g.name === journalGate);
  if (gate !== undefined) {
    // Folded as the live view folds it: the same steps, from the machine's initial state.
    const journal = await readJournalFile(file);
    const fold = foldFor(gate);
    return { steps: journal.records.map((record) => fold.step(record)), problems: journal.damage.map((d) => `line ${d.line}: ${d.reason}`) };
  }
  const trace = readTraceFile(file);
  return { steps: stepsOfTrace(trace.records), problems: trace.problems };
};

/** Replayed whole, so at most this much (the runtime keeps its traces far smaller). */
const MAX_REPLAY_BYTES = 64 * 1024 * 1024;

/**
 * The trace directory is the project's, and a cloned repository can commit into it: a link
 * there (to a file outside the project, or to `/dev/zero`, read without end) is never
 * followed, and only a regular file of bounded size is read.
 */
const refuseUnsafeTrace = async (file: string): Promise<void> => {
  let stat;
  try {
    stat = await lstat(file);
  } catch {
    throw new HttpError(404, `${path.basename(file)} is not in the trace directory`);
  }
  if (stat.isSymbolicLink()) throw new HttpError(400, `${path.basename(file)} is a symbolic link (a cloned repository can commit one); the memory browser replays only files of the trace directory itself`);
  if (!stat.isFile()) throw new HttpError(400, `${path.basename(file)} is not a regular file`);
  if (stat.size > MAX_REPLAY_BYTES) throw new HttpError(400, `${path.basename(file)} is ${stat.size} bytes; the memory browser replays files of at most ${MAX_REPLAY_BYTES} bytes (agent-memory viz --trace or --journal reads any size)`);
};

export const machineRoutes = (loaded: LoadedConfig, launchTrace: string | undefined): Readonly<Record<string, ApiRoute>> => {
  const traceDir = path.join(loaded.stateDir, 'memory', 'trace');
  return {
    'GET /ui/api/machines': async () => ({ status: 200, body: { gates: await gateDiagrams() } }),
    'GET /ui/api/traces': async () => {
      let names: string[] = [];
      try {
        names = (await readdir(traceDir)).filter((n) => n.endsWith('.jsonl')).sort();
      } catch {
        // No trace directory yet.
      }
      return { status: 200, body: { dir: traceDir, files: names, ...(launchTrace === undefined ? {} : { launch: path.basename(launchTrace) }) } };
    },
    'GET /ui/api/replay': async ({ query }) => {
      const name = query.get('file') ?? '';
      // A name from the trace directory's listing, or the file given at launch: never a path.
      const file = launchTrace !== undefined && name === path.basename(launchTrace) ? launchTrace : name === path.basename(name) && name.endsWith('.jsonl') ? path.join(traceDir, name) : undefined;
      if (file === undefined) throw new HttpError(400, `file must be a .jsonl file of ${traceDir}, by name`);
      if (file !== launchTrace) await refuseUnsafeTrace(file);
      const replay = await replayFile(file);
      return { status: 200, body: { file: name, problems: replay.problems, steps: replay.steps.map((s) => ({ ...s, event: redactValue(s.event) })) } };
    },
  };
};

/** `GET /ui/api/stream/machines`: every run as it is now, then each new step as it is folded. */
export const streamMachines = (req: IncomingMessage, res: ServerResponse, live: LiveRuns): void => {
  const stream = openEventStream(req, res);
  stream.send('runs', live.runs());
  const unsubscribe = live.subscribe((change) => {
    if ('step' in change) stream.send('step', change.step);
    else stream.send('runs', live.runs());
  });
  // Whether each run's process is still alive, and what could not be read, is sent again every few seconds.
  const timer = setInterval(() => stream.send('alive', live.runs().map((r) => ({ run: r.run, running: r.running, problems: r.problems }))), 2_000);
  req.on('close', () => {
    unsubscribe();
    clearInterval(timer);
  });
};
