/**
 * A real `pi --mode rpc` process on a project: the pi CLI from node_modules, offline, with the
 * scripted faux model and the extension loaded from source. Commands go to stdin as JSON
 * lines; `waitFor` resolves on the next stdout record of a type (split on LF only, as pi's
 * RPC framing asks).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { installedPi } from '../helpers/installedPi.js';
import { piExtension } from '../helpers/piExtension.js';
import { piTmpEnv } from '../helpers/piTmp.js';

const repo = path.resolve(import.meta.dirname, '..', '..');

export interface PiRpc {
  readonly pid: number;
  send(command: Record<string, unknown>): void;
  /** The next record of `type` after this call (or already waiting unread), within `ms`. */
  waitFor(type: string, ms?: number): Promise<Record<string, unknown>>;
  stderr(): string;
  close(): Promise<void>;
}

export const startPiRpc = (cwd: string, env: NodeJS.ProcessEnv, answers: readonly string[]): PiRpc => {
  const pi = installedPi('@mariozechner/pi-coding-agent');
  const child: ChildProcess = spawn(
    process.execPath,
    [pi.cli, '--no-extensions', '-e', path.join(repo, 'fixtures/pi/faux-provider.ts'), '-e', piExtension(), '--provider', 'faux', '--model', 'faux-1', '--no-builtin-tools', '--mode', 'rpc'],
    { cwd, env: { ...env, PI_OFFLINE: '1', ...piTmpEnv(), AM_FAUX_SCRIPT: JSON.stringify(answers) }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const records: Record<string, unknown>[] = [];
  const waiters: { type: string; resolve: (r: Record<string, unknown>) => void }[] = [];
  let buffered = '';
  let errors = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let at = buffered.indexOf('\n');
    while (at >= 0) {
      const line = buffered.slice(0, at).replace(/\r$/, '');
      buffered = buffered.slice(at + 1);
      at = buffered.indexOf('\n');
      if (line.trim() === '') continue;
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const waiter = waiters.findIndex((w) => w.type === record['type']);
      if (waiter >= 0) waiters.splice(waiter, 1)[0]?.resolve(record);
      else records.push(record);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString('utf8')).slice(-8_000);
  });
  return {
    pid: child.pid ?? -1,
    send: (command) => {
      child.stdin?.write(`${JSON.stringify(command)}\n`);
    },
    waitFor: (type, ms = 30_000) =>
      new Promise((resolve, reject) => {
        const index = records.findIndex((r) => r['type'] === type);
        if (index >= 0) {
          resolve(records.splice(index, 1)[0] as Record<string, unknown>);
          return;
        }
        const timer = setTimeout(() => reject(new Error(`pi rpc: no ${type} within ${ms} ms; stderr: ${errors}`)), ms);
        waiters.push({
          type,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      }),
    stderr: () => errors,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        const guard = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('close', () => {
          clearTimeout(guard);
          resolve();
        });
        child.stdin?.end();
        child.kill('SIGTERM');
      }),
  };
};
