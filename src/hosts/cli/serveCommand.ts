/**
 * The command that starts the embedded server from this very CLI, as a shell runs it from any
 * directory: `node <this script> serve` (with the loader it was started with, when one was).
 * "agent-memory serve" named a command that is on no PATH when the CLI runs from a clone.
 */
import * as path from 'node:path';
import { shellWord } from '../../config/serverStart.js';

export const cliServeCommand = (argv: readonly string[] = process.argv, execArgv: readonly string[] = process.execArgv): string => {
  const script = argv[1];
  if (script === undefined || script === '') return 'agent-memory serve';
  // Only the loader (tsx from a source checkout): other node flags are this process's own tuning.
  const loaders = execArgv.flatMap((a, i) => (a === '--import' && execArgv[i + 1] !== undefined ? [a, execArgv[i + 1] ?? ''] : a.startsWith('--import=') ? [a] : []));
  return ['node', ...loaders, path.resolve(script), 'serve'].map(shellWord).join(' ');
};
