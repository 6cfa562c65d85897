/**
 * This very CLI as a shell runs it from any directory: `node <this script> <words>` (with the
 * loader it was started with, when one was). "agent-memory serve" and "agent-memory import ..."
 * named a command that is on no PATH when the CLI runs from a clone (`npx agent-memory` there).
 */
import * as path from 'node:path';
import { shellWord } from '../../config/serverStart.js';

export const cliCommand = (words: readonly string[], argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): string => {
  const script = argv[1];
  if (script === undefined || script === '') return ['agent-memory', ...words].map(shellWord).join(' ');
  // Only the loader (tsx from a source checkout): other node flags are this process's own tuning.
  const loaders = execArgv.flatMap((a, i) => (a === '--import' && execArgv[i + 1] !== undefined ? [a, execArgv[i + 1] ?? ''] : a.startsWith('--import=') ? [a] : []));
  return ['node', ...loaders, path.resolve(script), ...words].map(shellWord).join(' ');
};

/** The command that starts the embedded server from this CLI. */
export const cliServeCommand = (argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): string => cliCommand(['serve'], argv, execArgv);
