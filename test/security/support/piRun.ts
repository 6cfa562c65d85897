/**
 * One run of the real pi CLI (the 0.73 line installed for the suite) in `--mode json` with this
 * extension and the scripted model of `fixtures/pi/faux-provider.ts`: what an attack test needs
 * to play a repository or a steered model against a real turn. pi's agent dir (and so the user
 * file `memory.json`) is `<root>/agent`; every message the model was sent is returned.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { piExtension } from '../../helpers/piExtension.js';
import { piTmpEnv } from '../../helpers/piTmp.js';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
const piBin = realpathSync(path.join(repo, 'node_modules/.bin/pi'));
const faux = path.join(repo, 'fixtures/pi/faux-provider.ts');

export type FauxStep = string | { readonly tool: string; readonly args: Record<string, unknown> };

export interface PiRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The text of every message the model was sent, one array per model call. */
  readonly seen: readonly (readonly string[])[];
}

export interface PiRunOptions {
  readonly cwd: string;
  readonly home: string;
  /** pi's agent dir: holds the user file `memory.json` and pi's sessions. */
  readonly agentDir: string;
  readonly prompt: string;
  readonly script: readonly FauxStep[];
  readonly env?: Record<string, string>;
}

export const runPi = (o: PiRunOptions): Promise<PiRun> => {
  const seenFile = path.join(o.agentDir, `seen-${Date.now().toString(36)}.jsonl`);
  return new Promise<PiRun>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [piBin, '--no-extensions', '-e', faux, '-e', piExtension(), '--provider', 'faux', '--model', 'faux-1', '--no-builtin-tools', '--mode', 'json', o.prompt],
      {
        cwd: o.cwd,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: o.home,
          PI_CODING_AGENT_DIR: o.agentDir,
          PI_OFFLINE: '1',
          ...piTmpEnv(),
          AM_FAUX_SCRIPT: JSON.stringify(o.script),
          AM_FAUX_SEEN: seenFile,
          ...o.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      const seen = existsSync(seenFile)
        ? readFileSync(seenFile, 'utf8')
            .split('\n')
            .filter((line) => line.trim() !== '')
            .map((line) => JSON.parse(line) as string[])
        : [];
      resolve({ code, stdout, stderr, seen });
    });
  });
};
