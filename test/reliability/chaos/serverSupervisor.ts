/**
 * The embedded memory server as a child process (`agent-memory serve` on a persistent data
 * dir and a fixed port, with an API key), SIGKILLed and restarted by the chaos run. The serve
 * command is bundled once with esbuild so a restart costs a fraction of a second.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleScript } from '../../helpers/bundleScript.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Bundles `serveChild.ts` into `outDir`; returns the script path. */
export const bundleServeChild = (outDir: string): Promise<string> => bundleScript(join(here, 'serveChild.ts'), join(outDir, 'serve.mjs'));

/** A free loopback port: every restart listens on it, since pi's config names one URL. */
export const freePort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

export interface ServerSupervisor {
  readonly url: string;
  readonly up: () => boolean;
  readonly kills: () => number;
  /** When each SIGKILL happened (epoch ms). */
  readonly killTimes: () => readonly number[];
  start(): Promise<void>;
  /** SIGKILL (no clean close) and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM at the end of the run. */
  stop(): Promise<void>;
  /** SIGKILL, and no start after it: the run is torn down (the test timed out). */
  close(): Promise<void>;
  output(): string;
}

export const superviseServer = (script: string, options: { readonly port: number; readonly dataDir: string; readonly keyEnv: string; readonly key: string }): ServerSupervisor => {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const killedAt: number[] = [];
  let log = '';
  const alive = (): boolean => child !== undefined && child.exitCode === null && child.signalCode === null;
  let closed = false;
  const start = async (): Promise<void> => {
    if (closed) throw new Error('memory server: the chaos run was torn down');
    if (alive()) return;
    // The port can stay taken for a moment after a kill: retry a few times.
    for (let attempt = 0; ; attempt += 1) {
      const proc = spawn(process.execPath, [script, '--port', String(options.port), '--data-dir', options.dataDir, '--api-key-env', options.keyEnv], {
        env: { PATH: process.env['PATH'] ?? '', [options.keyEnv]: options.key },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      exited = new Promise((resolve) => proc.once('exit', () => resolve()));
      let out = '';
      const listening = await new Promise<boolean>((resolve) => {
        const onData = (d: Buffer): void => {
          out += d.toString();
          if (out.includes('listening on')) resolve(true);
        };
        proc.stdout.on('data', onData);
        proc.stderr.on('data', onData);
        proc.once('exit', () => resolve(false));
      });
      log = (log + out).slice(-20_000);
      // Torn down while it started: it may have come up after the close killed nothing.
      if (closed) proc.kill('SIGKILL');
      if (listening && !closed) return;
      if (closed) throw new Error('memory server: the chaos run was torn down');
      if (attempt >= 20) throw new Error(`memory server did not start:\n${out}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return {
    url: `http://127.0.0.1:${options.port}`,
    up: alive,
    kills: () => killedAt.length,
    killTimes: () => killedAt,
    start,
    kill: async () => {
      if (!alive()) return;
      child?.kill('SIGKILL');
      killedAt.push(Date.now());
      await exited;
    },
    stop: async () => {
      if (!alive()) return;
      child?.kill('SIGTERM');
      await exited;
    },
    close: async () => {
      closed = true;
      if (!alive()) return;
      child?.kill('SIGKILL');
      await exited;
    },
    output: () => log,
  };
};
