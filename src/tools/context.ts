/**
 * What a tool handler may use. A host (the pi extension, the CLI, a test) supplies real
 * parts; nothing here knows which host it runs in. Tools read state through these readers
 * and change it only through the server port, the retain queue and the config writer.
 */
import type { LoadedConfig } from '../config/load.js';
import type { Scope } from '../config/scope.js';
import type { ClockPort } from '../effects/ports/clock.js';
import type { MemoryServer } from '../effects/ports/memoryServer.js';
import type { ToolRetainQueue } from '../effects/ports/toolQueue.js';
import type { ConfigFilePort } from '../effects/ports/configFiles.js';
import type { GitLogReader } from '../effects/ports/git.js';
import type { StateFilePort } from '../effects/ports/stateFiles.js';

/** The session's view for tools: who is calling and what its memory mode allows. */
export interface ToolSession {
  readonly sessionId?: string;
  /** The host's session file, recorded as `host_session_file` provenance metadata. */
  readonly sessionFile?: string;
  /** false when the session mode disables recall (ignored). */
  readonly recallAllowed: boolean;
  /** false when the session mode disables retain (read-only, ignored). */
  readonly retainAllowed: boolean;
  readonly mode?: string;
}

/** Live state of the runtime's gates, as status and doctor report it. */
export interface RuntimeStatusView {
  /** The setup gate's state (`ready`, `unconfigured`, `degraded`...) and why. */
  readonly setup?: { readonly state: string; readonly detail?: string };
  /** The session gate's state and last activity (`recalled:3`, `queued:1`). */
  readonly session?: {
    readonly state: string;
    readonly activity?: string;
    readonly nextRetainSkipped?: boolean;
    /** The last automatic recall and retain of this session: when (epoch ms), how it went, how many. */
    readonly lastRecall?: { readonly at: number; readonly outcome: string; readonly count: number };
    readonly lastRetain?: { readonly at: number; readonly outcome: string; readonly count: number };
  };
  /**
   * What the running session met that keeps memory from working fully, each with what to do (a
   * queue file set aside as not this user's, a state file memory could not use, ...), redacted.
   */
  readonly problems?: readonly string[];
  /** The import gate, when one ran in this project: `done`, `paused`, ... with its checkpoint. */
  readonly import?: {
    readonly state: string;
    readonly detail?: string;
    readonly checkpoint?: string;
    readonly lastRun?: string;
    readonly counts?: { readonly sessions: number; readonly documents: number; readonly queued: number; readonly sent: number; readonly skipped: number; readonly imported: number; readonly delivered: number };
    readonly error?: string;
  };
}

export interface ToolContext {
  /** The effective config, with its sources and files, as loaded for this call. */
  readonly loaded: LoadedConfig;
  readonly scope: Scope;
  readonly server: MemoryServer;
  readonly queue: ToolRetainQueue;
  readonly clock: ClockPort;
  readonly git: GitLogReader;
  readonly configFiles: ConfigFilePort;
  readonly stateFiles: StateFilePort;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly session?: ToolSession;
  readonly status?: () => RuntimeStatusView;
  /** Called once after memory_config wrote a file, so the host reloads its config. */
  readonly reloadConfig?: () => void | Promise<void>;
  /** The host's abort signal for this call (Esc). */
  readonly signal?: AbortSignal;
}
