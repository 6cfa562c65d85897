/**
 * This very CLI as a shell runs it from any directory: `node <this script> <words>` (with the
 * loader it was started with, when one was). "agent-memory serve" and "agent-memory import ..."
 * named a command that is on no PATH when the CLI runs from a clone (`npx agent-memory` there).
 */
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import type { TakeBack } from '../../adapters/queue/queueOwner.js';
import type { QueueCommands } from '../../tools/commands/commandContext.js';
import { shellWord } from '../../config/serverStart.js';

/**
 * The script itself, not the link it was started through: `npx agent-memory` in a clone runs
 * it through a link in npm's cache (`~/.npm/_npx/<hash>/node_modules/.bin/agent-memory`), which
 * `npm cache clean` removes, and a global install through the link on PATH.
 */
const realScript = (script: string): string => {
  try {
    return realpathSync(path.resolve(script));
  } catch {
    return path.resolve(script);
  }
};

export const cliCommand = (words: readonly string[], argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): string => {
  const script = argv[1];
  if (script === undefined || script === '') return ['agent-memory', ...words].map(shellWord).join(' ');
  // Only the loader (tsx from a source checkout): other node flags are this process's own tuning.
  const loaders = execArgv.flatMap((a, i) => (a === '--import' && execArgv[i + 1] !== undefined ? [a, execArgv[i + 1] ?? ''] : a.startsWith('--import=') ? [a] : []));
  return ['node', ...loaders, realScript(script), ...words].map(shellWord).join(' ');
};

/** The command that starts the embedded server from this CLI. */
export const cliServeCommand = (argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): string => cliCommand(['serve'], argv, execArgv);

/** What delivers a set-aside queue file the user moved back, for the project in `cwd` (`queueOwner.ts`). */
export const cliTakeBack = (cwd: string, argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): TakeBack => ({
  kind: 'run',
  command: cliCommand(['flush', '--trust-queue', '--cwd', cwd], argv, execArgv),
});

/** The commands that list, requeue and drop dead letters and deliver the queue of the project in `cwd`, as the doctor, status and dead-letters name them. */
export const cliQueueCommands = (cwd: string, argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): QueueCommands => ({
  deadLetters: cliCommand(['dead-letters', '--cwd', cwd], argv, execArgv),
  requeue: (id) => cliCommand(['dead-letters', 'requeue', id, '--cwd', cwd], argv, execArgv),
  drop: (id) => cliCommand(['dead-letters', 'drop', id, '--cwd', cwd], argv, execArgv),
  flush: cliCommand(['flush', '--cwd', cwd], argv, execArgv),
});

/**
 * The command line `agent-memory <name>` is here (`name` undefined: the CLI itself). pi's
 * `serve.mjs` (and `serve.ts` from source) is the `serve` command on its own: its words come
 * straight after the script.
 */
export const selfCommandFor = (name: string | undefined, argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): string =>
  cliCommand(name === undefined || (name === 'serve' && /^serve\.(mjs|ts)$/.test(path.basename(argv[1] ?? ''))) ? [] : [name], argv, execArgv);

/**
 * The lines a usage text ends with: `agent-memory` is on no PATH when the CLI runs from a clone
 * (`npx agent-memory`), so the usage says what runs it. A command line is never wrapped (it must
 * paste whole), so on its own indented line.
 */
export const runAsLines = (name: string | undefined, argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): string =>
  `Here ${name === undefined ? 'agent-memory' : `agent-memory ${name}`} runs as (from any directory):\n  ${selfCommandFor(name, argv, execArgv)}${name === undefined ? ' <command> [options]' : ''}`;
