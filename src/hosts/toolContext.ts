/**
 * Builds a ToolContext from real parts for any host: loads the config for the directory,
 * resolves the scope (git root and origin), and wires git, config-file and sidecar adapters.
 * The host supplies the server client and the retain queue it already runs.
 */
import { homedir } from 'node:os';
import { readGitInfo } from '../adapters/git/gitInfo.js';
import { gitLogReader } from '../adapters/git/gitLog.js';
import { loadConfig } from '../config/load.js';
import { resolveScope } from '../config/scope.js';
import { bankScopeInput } from '../config/knownBanks.js';
import type { RuntimeStatusView, ToolContext, ToolSession } from '../tools/context.js';
import type { ToolRetainQueue } from '../effects/ports/toolQueue.js';
import { systemClock, type ClockPort } from '../effects/ports/clock.js';
import type { MemoryServer } from '../effects/ports/memoryServer.js';
import { fileConfigFiles } from '../adapters/fs/configFile.js';
import { fileStateFiles } from '../adapters/fs/stateFiles.js';

export interface CreateToolContextOptions {
  readonly cwd: string;
  readonly server: MemoryServer;
  readonly queue: ToolRetainQueue;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default: `HOME` from env, else the OS home directory. */
  readonly home?: string;
  readonly stateDir?: string;
  readonly clock?: ClockPort;
  readonly session?: ToolSession;
  readonly status?: () => RuntimeStatusView;
  readonly reloadConfig?: () => void | Promise<void>;
  readonly signal?: AbortSignal;
  /** The host's project-trust decision (pi 0.79+); `decideTrust` joins it with memory.trustedOrigins. */
  readonly hostProjectTrusted?: boolean;
}

/** A fresh context: config is re-read on every call, so a tool always sees the current files. */
export const createToolContext = async (options: CreateToolContextOptions): Promise<ToolContext> => {
  const env = options.env ?? process.env;
  const home = options.home ?? env['HOME'] ?? homedir();
  const loaded = loadConfig({
    cwd: options.cwd,
    home,
    env,
    hostTrusted: options.hostProjectTrusted,
    ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
  });
  const git = await readGitInfo(loaded.cwd);
  const scope = resolveScope(loaded.config, { cwd: loaded.cwd, repoRoot: git.repoRoot, gitRemote: git.remoteUrl, ...bankScopeInput(loaded) });
  return {
    loaded,
    scope,
    server: options.server,
    queue: options.queue,
    clock: options.clock ?? systemClock,
    git: gitLogReader,
    configFiles: fileConfigFiles,
    stateFiles: fileStateFiles,
    env,
    ...(options.session === undefined ? {} : { session: options.session }),
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.reloadConfig === undefined ? {} : { reloadConfig: options.reloadConfig }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
};
