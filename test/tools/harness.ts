/**
 * Real parts for tool tests: a temp home and git project, the embedded server over loopback,
 * the real HTTP client, the durable retain queue, and a ToolContext built by createToolContext.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createMemoryServer } from '../../src/adapters/server/index.js';
import { createToolContext } from '../../src/hosts/toolContext.js';
import { systemClock } from '../../src/effects/ports/clock.js';
import { openRetainQueue, type RetainQueue } from '../../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../../src/hosts/retainQueueStore.js';
import type { MemoryServer } from '../../src/effects/ports/memoryServer.js';
import { startEmbeddedServer, type Mimic } from '../../src/server/index.js';
import { findTool } from '../../src/tools/catalogue.js';
import type { ToolContext, ToolSession } from '../../src/tools/context.js';
import type { ToolOutcome, ToolResult, ToolError } from '../../src/tools/result.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';

export const CODING_BANK = 'coding-bank';
export const USER_BANK = 'user-bank';
export const REMOTE = 'git@github.com:acme/widgets.git';
export const PROJECT_TAG = 'project:github.com/acme/widgets';

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

export const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', env: gitEnv }).trim();

export const commit = (cwd: string, subject: string): void => {
  writeFileSync(path.join(cwd, 'log.txt'), `${subject}\n`, { flag: 'a' });
  git(cwd, 'add', 'log.txt');
  git(cwd, 'commit', '-q', '-m', subject);
};

export interface HarnessOptions {
  readonly mimic?: Mimic;
  /** Project config file content; default: setup complete with the shared coding bank. */
  readonly project?: unknown;
  readonly user?: unknown;
  /** Make the project a git repository with an origin and commits (default true). */
  readonly git?: boolean;
  /** Start with no server at all (the URL of a closed port). */
  readonly serverDown?: boolean;
  /** A server already running (a scripted fault server) instead of the embedded one. */
  readonly serverUrl?: string;
  readonly env?: Record<string, string>;
  /**
   * The queue's delivery mode (default immediate). `coalesced` delivers only on a flush, so a
   * test can see a job wait in the queue: an immediate queue may deliver it before the next line.
   */
  readonly queueMode?: 'immediate' | 'coalesced';
}

export interface Harness {
  readonly root: string;
  readonly home: string;
  readonly cwd: string;
  readonly stateDir: string;
  readonly queuePath: string;
  readonly url: string;
  server: TestServer | undefined;
  readonly client: MemoryServer;
  readonly queue: RetainQueue;
  context(extra?: { session?: ToolSession; signal?: AbortSignal; reloadConfig?: () => void }): Promise<ToolContext>;
  run(name: string, params: unknown, extra?: { session?: ToolSession; reloadConfig?: () => void }): Promise<ToolOutcome>;
  /** Runs and expects success; returns the result. */
  ok(name: string, params: unknown, extra?: { session?: ToolSession }): Promise<ToolResult>;
  /** Runs and expects failure; returns the error. */
  fails(name: string, params: unknown, extra?: { session?: ToolSession }): Promise<ToolError>;
  /** Moves the shared clock forward (breaker cool-downs). */
  skew(ms: number): void;
  /** Starts the embedded server on the harness URL's port (after serverDown). */
  startServer(): Promise<void>;
  close(): Promise<void>;
}

const freePortUrl = async (): Promise<string> => {
  const probe = await startTestServer({ persist: false });
  const url = probe.url;
  await probe.dispose();
  return url;
};

export const startHarness = async (options: HarnessOptions = {}): Promise<Harness> => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-tools-'));
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'widgets');
  const stateDir = path.join(cwd, '.pi');
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  mkdirSync(stateDir, { recursive: true });
  if (options.git !== false) {
    git(cwd, 'init', '-q', '-b', 'main');
    git(cwd, 'remote', 'add', 'origin', REMOTE);
    commit(cwd, 'Initial commit');
    commit(cwd, 'Add the widget parser');
  }
  const project = options.project ?? { setupComplete: true, banks: { project: { bankId: CODING_BANK } } };
  writeFileSync(path.join(stateDir, 'memory.json'), `${JSON.stringify(project, null, 2)}\n`);
  if (options.user !== undefined) writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), `${JSON.stringify(options.user, null, 2)}\n`);

  let server: TestServer | undefined;
  let url: string;
  if (options.serverDown === true) url = await freePortUrl();
  else if (options.serverUrl !== undefined) url = options.serverUrl;
  else {
    server = await startTestServer({ persist: false, ...(options.mimic === undefined ? {} : { mimic: options.mimic }) });
    url = server.url;
  }
  // One clock for client, queue and tools, movable so a test can outwait the breaker's cool-down.
  let skewMs = 0;
  const clientClock = { now: () => Date.now() + skewMs, setTimer: (at: number, fire: () => void) => systemClock.setTimer(at - skewMs, fire) };
  const client = createMemoryServer({ baseUrl: url, timeoutMs: 3000, clock: clientClock });
  const queuePath = path.join(stateDir, 'memory', 'retain-queue.jsonl');
  const queue = await openRetainQueue({ ...fileRetainQueuePorts({ queuePath }), server: client, clock: clientClock, mode: options.queueMode ?? 'immediate', flushIntervalMs: 0, onWarning: () => undefined });
  const env = { HOME: home, ...options.env };

  const harness: Harness = {
    root, home, cwd, stateDir, queuePath, url, server, client, queue,
    context: (extra = {}) =>
      createToolContext({
        cwd, home, env, server: client, queue, clock: clientClock,
        ...(extra.session === undefined ? {} : { session: extra.session }),
        ...(extra.signal === undefined ? {} : { signal: extra.signal }),
        ...(extra.reloadConfig === undefined ? {} : { reloadConfig: extra.reloadConfig }),
      }),
    run: async (name, params, extra = {}) => {
      const tool = findTool(name);
      if (tool === undefined) throw new Error(`no tool ${name}`);
      return tool.run(params, await harness.context(extra));
    },
    ok: async (name, params, extra) => {
      const outcome = await harness.run(name, params, extra);
      if (!outcome.ok) throw new Error(`${name} failed: ${outcome.error.code}: ${outcome.error.message}`);
      return outcome.result;
    },
    fails: async (name, params, extra) => {
      const outcome = await harness.run(name, params, extra);
      if (outcome.ok) throw new Error(`${name} succeeded unexpectedly: ${outcome.result.text}`);
      return outcome.error;
    },
    skew: (ms) => {
      skewMs += ms;
    },
    startServer: async () => {
      // The test helper always binds port 0; this restart needs the URL the client already has.
      const port = Number(new URL(url).port);
      const started = await startEmbeddedServer({ port, host: '127.0.0.1', ...(options.mimic === undefined ? {} : { mimic: options.mimic }) });
      harness.server = { ...started, dataDir: undefined, dispose: () => started.close() };
    },
    close: async () => {
      await queue.close({ deadline: Date.now() + 500, flush: false }).catch(() => undefined);
      await harness.server?.dispose();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return harness;
};
