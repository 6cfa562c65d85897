/** Runs the `agent-memory` CLI from source in a child process, as a user would, and never throws. */
import { execFile, spawn } from 'node:child_process';
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

/**
 * A command line as a person pastes it into a shell (`sh -c` in `cwd`), such as one the CLI
 * printed for itself; resolves once its output is closed, and never throws.
 */
export const runShell = (line: string, options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn('sh', ['-c', line], { cwd: options.cwd, env: options.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
