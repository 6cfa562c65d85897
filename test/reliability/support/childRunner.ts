/**
 * Runs `test/helpers/queueChild.ts` as a real child process. The child is bundled once
 * (`bundleScript`) so each start costs ~0.2 s instead of tsx's ~1 s: the kill loop starts more
 * than a hundred of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleScript } from '../../helpers/bundleScript.js';

const here = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'helpers');

/** Bundles a child (`test/helpers/<name>.ts`) into a temp dir; returns the script path. */
export const bundleChild = async (name: string): Promise<string> => {
  const outDir = await mkdtemp(join(tmpdir(), 'am-child-'));
  return bundleScript(join(here, `${name}.ts`), join(outDir, `${name}.mjs`));
};

export const bundleQueueChild = (): Promise<string> => bundleChild('queueChild');

export interface RunningChild {
  readonly process: ChildProcess;
  /** Job numbers the child acknowledged (printed after enqueue resolved). */
  readonly acked: number[];
  readonly lines: string[];
  /** Resolves when a line matching `pattern` arrives (or the child exits: then false). */
  waitFor(pattern: RegExp): Promise<boolean>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): Promise<void>;
}

export const startQueueChild = (script: string, env: Record<string, string>): RunningChild => {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const acked: number[] = [];
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (ok: boolean) => void }[] = [];
  let buffer = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      const m = /^acked (\d+)$/.exec(line);
      if (m !== null) acked.push(Number(m[1]));
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(true);
        }
      }
      newline = buffer.indexOf('\n');
    }
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => lines.push(`stderr ${chunk.trim()}`));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      for (const waiter of waiters.splice(0)) waiter.resolve(false);
      resolve({ code, signal });
    });
  });
  return {
    process: child,
    acked,
    lines,
    exited,
    waitFor: (pattern) =>
      lines.some((l) => pattern.test(l)) ? Promise.resolve(true) : child.exitCode !== null || child.signalCode !== null ? Promise.resolve(false) : new Promise((resolve) => waiters.push({ pattern, resolve })),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
};
