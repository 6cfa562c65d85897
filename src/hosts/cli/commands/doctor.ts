/**
 * `agent-memory doctor` and `agent-memory status`: the diagnostics of /memory:doctor and the
 * hub's status, from a shell. Both are read-only (src/hosts/cli/inspect.ts): they never
 * enqueue, deliver or write, and they always print, whatever state the state dir is in.
 * `doctor` exits 1 on any error finding (server unreachable, hung, refusing the key, below
 * the floor; a broken state dir or config file), 0 otherwise. `--json` prints the report.
 */
import type { Command } from '../commands.js';
import { redact, redactValue } from '../../../config/redact.js';
import { isRecord, jsonCopy } from '../../../codecs/codecs.js';
import { doctorCommand } from '../../../tools/commands/doctor.js';
import { cliQueueCommands, cliServeCommand } from '../selfCommand.js';
import { memoryHubCommand } from '../../../tools/commands/memoryHub.js';
import { STATUS_LEGEND_HELP } from '../../../tools/statusReport.js';
import { openInspection, type Inspection } from '../inspect.js';
import { parseProjectArgs } from '../projectArgs.js';
import { commandUsage, fitFor } from '../helpText.js';

interface Options {
  readonly json: boolean;
  /** The project directory inspected (`--cwd`, else this one). */
  readonly cwd: string;
}

/** `--cwd` and `--json`, read as every project command reads them (projectArgs.ts). */
const parse = (argv: readonly string[], name: string, usage: string): Options | string => {
  const args = parseProjectArgs(argv, name, usage, { json: { type: 'boolean' } });
  return typeof args === 'string' ? args : { json: args.values['json'] === true, cwd: args.cwd };
};

/** State-dir findings as doctor errors: each names the file and what to do. */
const stateErrors = (inspection: Inspection): string[] => [
  ...inspection.stateDir.findings.map((f) => `state dir: ${f.reason}`),
  ...(inspection.queueProblem === undefined ? [] : [`state dir: ${inspection.queueProblem}`]),
  ...inspection.setAside.map((notice) => `state dir: ${notice}`),
  // A full disk (or a failure the runtime recorded); an unwritable dir is named above already.
  ...(inspection.retainFailing === undefined || inspection.stateDir.findings.some((f) => f.kind === 'unwritable') ? [] : [`retain failing: ${inspection.retainFailing}`]),
];

const print = (json: boolean, text: string, details: unknown): void => {
  console.log(json ? JSON.stringify(redactValue(jsonCopy(details)), null, 2) : fitFor(process.stdout, process.env, redact(text)));
};

/** Even a failure to inspect prints something and says what to do. */
const inspectOrExplain = async (name: string, { json, cwd }: Options): Promise<Inspection | undefined> => {
  try {
    return await openInspection(cwd);
  } catch (error) {
    const reason = redact(error instanceof Error ? error.message : String(error));
    print(json, `agent-memory ${name}: could not inspect memory in ${cwd}: ${reason}`, { errors: [reason] });
    return undefined;
  }
};

export const doctorCliCommand: Command = {
  usage: commandUsage('doctor', [
    'usage: agent-memory doctor [--cwd DIR] [--json]',
    '',
    '  --cwd DIR  diagnose the project in DIR (default: this directory)',
    '  --json     print the report as JSON',
    '',
    'Read-only. Exits 1 on any error finding (server unreachable, hung, refusing the key, below the version floor; broken state dir or config file; turns failing to save), 0 otherwise.',
    STATUS_LEGEND_HELP,
  ].join('\n')),
  run: async (argv) => {
    const options = parse(argv, 'doctor', doctorCliCommand.usage);
    if (typeof options === 'string') {
      console.error(options);
      return 2;
    }
    const inspection = await inspectOrExplain('doctor', options);
    if (inspection === undefined) return 1;
    const report = await doctorCommand({ tools: inspection.tools, serverCommand: cliServeCommand(), queueCommands: cliQueueCommands(options.cwd) });
    const extra = stateErrors(inspection);
    const details = isRecord(report.details) ? report.details : {};
    const reported = Array.isArray(details['errors']) ? details['errors'] : [];
    const errors = [...reported, ...extra];
    const { memoryDir, exists, ignored } = inspection.stateDir;
    // It holds conversation text: say whether git is kept out of it.
    const gitNote = ignored
      ? `its .gitignore keeps it out of git`
      : `no .gitignore in it yet: memory writes one (ignoring everything) the next time it writes there; until then add .pi/memory/ to the repository's .gitignore`;
    const state = exists
      ? `State dir: ${memoryDir} (${extra.length === 0 ? 'ok; ' : ''}${gitNote})`
      : `State dir: ${memoryDir} (not created yet; when memory creates it, it writes a .gitignore in it so git never commits the conversation text it holds)`;
    print(options.json, [report.text, state, ...extra.map((e) => `error: ${e}`)].join('\n'), { ...details, errors, stateDir: inspection.stateDir });
    return errors.length > 0 ? 1 : 0;
  },
};

export const statusCliCommand: Command = {
  usage: commandUsage('status', [
    'usage: agent-memory status [--cwd DIR] [--json]',
    '',
    '  --cwd DIR  the project whose memory status is shown (default: this directory)',
    '  --json     print the status as JSON',
    '',
    'Read-only: never queues, delivers or writes anything.',
    STATUS_LEGEND_HELP,
  ].join('\n')),
  run: async (argv) => {
    const options = parse(argv, 'status', statusCliCommand.usage);
    if (typeof options === 'string') {
      console.error(options);
      return 2;
    }
    const inspection = await inspectOrExplain('status', options);
    if (inspection === undefined) return 1;
    const report = await memoryHubCommand({ tools: inspection.tools, serverCommand: cliServeCommand(), queueCommands: cliQueueCommands(options.cwd) }, 'status');
    const notes = stateErrors(inspection);
    print(options.json, [report.text, ...notes.map((n) => `! ${n}`)].join('\n'), { ...(isRecord(report.details) ? report.details : {}), stateDir: inspection.stateDir });
    return 0;
  },
};
