/** Runs the `agent-memory` CLI from source in a child process, as a user would, and never throws. */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
// `--import tsx` would resolve from the child's cwd (often a temp project): name the loader by path.
const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;
const MAIN = path.resolve('src/hosts/cli/main.ts');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `env` replaces the environment (PATH is kept), so the user's own config never leaks in. */
export const runCli = (args: readonly string[], options: { readonly cwd?: string; readonly env?: Record<string, string> } = {}): Promise<CliResult> =>
  run(process.execPath, ['--import', TSX, MAIN, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { PATH: process.env['PATH'] ?? '', ...options.env },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: CliResult) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
