/**
 * One run of the real `pi` CLI on a test project, as a person starts it: offline, an isolated
 * agent dir, the scripted faux model answering `answer`, and this checkout's extension loaded
 * by pi's own loader (bundled once per run, `piExtension.ts`; `fromSource`: its TypeScript). Never throws; a guard SIGKILLs a pi that hangs.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { hostLine } from '../hosts/pi/hostLine.js';
import { piExtension, piExtensionSource } from './piExtension.js';
import { piTmpEnv } from './piTmp.js';

const repo = path.resolve(import.meta.dirname, '..', '..');
const fauxProvider = path.join(repo, 'fixtures/pi/faux-provider.ts');

export interface PiCliProject {
  readonly cwd: string;
  readonly home: string;
  readonly agentDir: string;
}

export interface PiCliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface PiCliOptions {
  /** Called with all of stdout so far; `kill` signals the pi process. */
  readonly onStdout?: (text: string, kill: (signal: NodeJS.Signals) => void) => void;
  readonly env?: Readonly<Record<string, string>>;
  readonly guardMs?: number;
  /** Load the extension's TypeScript source (pi compiles it) rather than the run's bundle. */
  readonly fromSource?: boolean;
}

export const runPiCli = (project: PiCliProject, args: readonly string[], answer: string, options: PiCliOptions = {}): Promise<PiCliRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [hostLine.cli, '--no-extensions', '-e', fauxProvider, '-e', options.fromSource === true ? piExtensionSource : piExtension(), '--provider', 'faux', '--model', 'faux-1', '--no-builtin-tools', ...args],
      {
        cwd: project.cwd,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: project.home,
          PI_CODING_AGENT_DIR: project.agentDir,
          PI_OFFLINE: '1',
          ...piTmpEnv(),
          AM_FAUX_SCRIPT: JSON.stringify([answer]),
          ...options.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), options.guardMs ?? 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout, (signal) => child.kill(signal));
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr });
    });
  });
