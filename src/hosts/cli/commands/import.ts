/**
 * `agent-memory import [paths | --all] [--dry-run] [--since DATE] [--json]`: brings past pi
 * sessions of this project into memory through the durable retain queue, with a progress bar
 * and a summary table. Ctrl+C stops after the current document and says how to resume.
 */
import { homedir } from 'node:os';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Presets, SingleBar } from 'cli-progress';
import { escapeControls, terminalJson } from '../../../config/memoryText.js';
import { redact } from '../../../config/redact.js';
import { importCount, importProgress, importRate, importView, type ImportView } from '../../../machines/import/selectors.js';
import type { SnapshotFrom } from 'xstate';
import type { ImportMachine } from '../../../machines/import/machine.js';
import type { Command } from '../commands.js';
import { openImporter } from '../../importer.js';
import { withRuntime } from '../runtimeCommand.js';
import { barStream } from '../redactedOutput.js';
import { cwdRefusal } from '../projectArgs.js';
import { capitalized, probeServerDown, SERVER_PROBE_MS } from '../../../tools/serverDown.js';
import { cliCommand, cliServeCommand } from '../selfCommand.js';
import { duration, importTable, mb } from '../../../tools/commands/importReport.js';
import { commandUsage, fitFor } from '../helpText.js';
import { redactPaths } from '../../../effects/import/checkpointRedaction.js';
import { toJson } from '../../../effects/kernel/trace.js';

const USAGE = commandUsage('import', `usage: agent-memory import [paths... | --all] [--dry-run] [--since DATE] [--json] [--cwd DIR]

  paths       session files or directories (walked recursively; only *.jsonl in directories)
  --all       every session of this project: pi's, and Claude Code's and Codex's when they
              exist (~/.claude/projects/<cwd>, ~/.codex/sessions, matched by working directory)
  --dry-run   plan only: sessions, documents, bytes, estimated tokens and time, skips and why;
              writes nothing (no server call, no checkpoint, no manifest)
  --since DATE  only sessions changed on or after DATE (ISO date, e.g. 2026-01-31)
  --json      print the result as JSON (no progress bar)
  --cwd DIR   the project to import into (default: the current directory)

Config (import.* in .pi/memory.json): mode, qualityProfile, includeBranches, toolResults, toolResultSummaryMaxChars, manifestPath, checkpointPath, replaceExistingImportedDocs, resume.
An interrupted import resumes when the same command runs again.`);

interface Args {
  readonly paths: string[];
  readonly all: boolean;
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly sinceMs?: number;
  /** The project (`--cwd`), absolute. */
  readonly cwd: string;
}

const parseArgs = (argv: readonly string[]): Args | string => {
  const paths: string[] = [];
  let all = false;
  let dryRun = false;
  let json = false;
  let sinceMs: number | undefined;
  let cwd = process.cwd();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--all') all = true;
    else if (arg === '--dry-run') dryRun = true;
    else if (arg === '--json') json = true;
    else if (arg === '--since') {
      const value = argv[i + 1];
      i += 1;
      const ms = value === undefined ? NaN : Date.parse(value);
      if (!Number.isFinite(ms)) return `--since needs a date such as 2026-01-31 (got ${JSON.stringify(value ?? '')})`;
      sinceMs = ms;
    } else if (arg === '--cwd') {
      // As status, doctor, flush and ui take it: from this clone, a project elsewhere (fifth pass).
      const value = argv[i + 1];
      i += 1;
      const refused = cwdRefusal(value ?? '');
      if (refused !== undefined) return refused;
      cwd = path.resolve(value ?? '');
    } else if (arg.startsWith('--')) return `unknown option ${arg}`;
    else paths.push(arg);
  }
  if (!all && paths.length === 0) return 'say which sessions to import: one or more paths, or --all for this project\'s pi sessions';
  return { paths, all, dryRun, json, cwd, ...(sinceMs === undefined ? {} : { sinceMs }) };
};

/**
 * The progress bar: documents (or files while planning; or what is happening while there are
 * none), bytes and ETA, fed from the gate's snapshots. Within 80 columns: the bar turns a
 * terminal's line wrap off, and the ETA was cut off past the edge (sessions and rate made it 84
 * or more; the sessions are in the table after).
 */
const progressBar = (enabled: boolean) => {
  if (!enabled) return { update: (_s: SnapshotFrom<ImportMachine>) => undefined, stop: () => undefined };
  const bar = new SingleBar(
    { format: '{phase} [{bar}] {count} | {bytes} | ETA {eta_text}', barsize: 12, hideCursor: true, noTTYOutput: true, notTTYSchedule: 2000, stream: barStream(process.stderr) },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update: (snapshot: SnapshotFrom<ImportMachine>) => {
      const view = importView(snapshot);
      const rate = importRate(snapshot, Date.now());
      const progress = importProgress(view);
      const payload = {
        phase: view.state,
        count: importCount(view),
        bytes: `${mb(view.bytesDone)}/${mb(view.bytes)}`,
        eta_text: rate === undefined ? '-' : duration(rate.etaMs),
      };
      if (!started) {
        bar.start(Math.max(1, progress.total), progress.value, payload);
        started = true;
      } else {
        bar.setTotal(Math.max(1, progress.total));
        bar.update(progress.value, payload);
      }
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
};

/**
 * The same import as a shell runs it from any directory: paths and --cwd made absolute, --cwd
 * named. "Resume with: … import ../sess" resumed nothing from another directory.
 */
const replayArgv = (argv: readonly string[]): string[] => {
  const out: string[] = [];
  let cwdGiven = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--since') {
      out.push(arg, argv[i + 1] ?? '');
      i += 1;
    } else if (arg === '--cwd') {
      out.push(arg, path.resolve(argv[i + 1] ?? ''));
      cwdGiven = true;
      i += 1;
    } else out.push(arg.startsWith('--') ? arg : path.resolve(arg));
  }
  return cwdGiven ? out : [...out, '--cwd', process.cwd()];
};

export const importCommand: Command = {
  usage: USAGE,
  run: async (argv) => {
    const args = parseArgs(argv);
    if (typeof args === 'string') {
      // Fitted as the usage is: the refusal wrapped mid-word at 80 columns ("--all f / or this").
      console.error(`${fitFor(process.stderr, process.env, `agent-memory import: ${args}`)}\n\n${USAGE}`);
      return 2;
    }
    // An import streams gigabytes through short-lived strings while its live set stays small;
    // V8's default heap growth let a 1 GB import peak at 307 MB RSS (bench import-e2e). A heap
    // that grows by a fifth between collections keeps it at about 180 MB; `--optimize-for-size`
    // (used before) kept 133 MB but took 1.6x the CPU: a quarter of it went to collections,
    // and the code it optimises for size runs slower. Only tunes collection; no heap cap.
    setFlagsFromString('--heap-growing-percent=20');
    const env = process.env;
    const home = env['HOME'] ?? homedir();
    return withRuntime(args.cwd, args.dryRun ? 'import-dry-run' : 'import', async (runtime) => {
      let importer;
      try {
        importer = await openImporter(runtime, { env, home, commands: { deadLetters: cliCommand(['dead-letters', '--cwd', args.cwd]), doctor: cliCommand(['doctor', '--cwd', args.cwd]) } });
      } catch (error) {
        console.error(`agent-memory import: ${escapeControls(redact(error instanceof Error ? error.message : String(error)))}`);
        return 1;
      }
      const abort = new AbortController();
      let interrupts = 0;
      const onSigint = (): void => {
        interrupts += 1;
        // A second Ctrl+C quits at once: the checkpoint is fsync'd after every document.
        if (interrupts > 1) process.exit(130);
        abort.abort();
        process.stderr.write('\nStopping after the current document (Ctrl+C again to quit now)...\n');
      };
      process.on('SIGINT', onSigint);
      const showBar = !args.json && !args.dryRun;
      const bar = progressBar(showBar);
      const unsubscribe = importer.gate.subscribe((snapshot) => bar.update(snapshot));
      let view: ImportView;
      try {
        const sources = [...args.paths, ...(args.all ? [importer.sessionDir, ...importer.otherAgentDirs] : [])];
        view = await importer.gate.run({ sources, options: importer.options({ dryRun: args.dryRun }), signal: abort.signal, ...(args.sinceMs === undefined ? {} : { sinceMs: args.sinceMs }) });
      } finally {
        unsubscribe();
        bar.stop();
        process.off('SIGINT', onSigint);
      }
      const snapshot = args.dryRun ? importer.gate.lastDryRun() : importer.gate.gate.getSnapshot();
      // Runnable as printed, from any directory (a clone's CLI is on no PATH: `agent-memory` was not).
      const resumeHint = cliCommand(['import', ...replayArgv(argv)]);
      const importHint = cliCommand(['import', ...replayArgv(argv).filter((a) => a !== '--dry-run')]);
      await importer.close();
      if (args.json) {
        const plan = snapshot?.context.run?.plan;
        // Session paths can hold a secret: redacted as the checkpoint stores them (the table redacts its lines).
        const report = redactPaths(toJson({ ...view, checkpoint: importer.checkpointPath, manifest: importer.manifestPath, skippedSources: plan?.skipped ?? [], scanSkipped: snapshot?.context.run?.scanned?.skipped ?? [], malformed: plan?.malformed ?? [], stats: plan?.stats ?? null }));
        console.log(terminalJson(JSON.stringify(report, null, 2)));
      } else {
        console.log(fitFor(process.stdout, process.env, importTable(view, snapshot, { checkpoint: importer.checkpointPath, manifest: importer.manifestPath }).join('\n')));
        if (view.state === 'paused') {
          // No answer: what starts it (the embedded server here) or to check it, as the doctor says.
          const down = view.pause?.cause === 'serverDown' ? await probeServerDown(runtime.server, cliServeCommand(), SERVER_PROBE_MS) : undefined;
          const next = down === undefined ? '' : `\n${escapeControls(capitalized(down))}; then resume as below.`;
          console.log(`\nThe import is paused: ${escapeControls(view.pause?.reason ?? 'interrupted')}.${next}\nCheckpoint: ${escapeControls(importer.checkpointPath)}\nResume with: ${escapeControls(resumeHint)}`);
        }
        if (view.state === 'failed') console.log(`\nResume with: ${escapeControls(resumeHint)} (documents already queued are skipped)`);
        // The command on a line of its own, never wrapped: a person copies it whole.
        if (view.state === 'planned') console.log(`\nDry run: nothing was written. Import with:\n  ${escapeControls(importHint)}`);
      }
      if (abort.signal.aborted) return 130;
      return view.state === 'done' || view.state === 'planned' ? 0 : 1;
    });
  },
};
