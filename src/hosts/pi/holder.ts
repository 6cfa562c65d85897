/**
 * One extension instance's runtime: created in `session_start`, closed in `session_shutdown`.
 * pi loads the extension afresh for every session, so this never outlives its session.
 */
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';
import type { MemoryRuntime } from '../memoryRuntime.js';

export interface RuntimeHolder {
  runtime: MemoryRuntime | undefined;
  /** The runtime after `session_shutdown`: a late agent_end still hands its run off to disk. */
  closed: MemoryRuntime | undefined;
  /** The start in progress, so a second `session_start` (RPC mode) waits for it. */
  starting: Promise<MemoryRuntime | undefined> | undefined;
  /** Why there is no runtime (redacted), for tools and commands to report. */
  failure: string | undefined;
  /** The session the runtime was started for. */
  sessionId: string | undefined;
  /** pi's project-trust decision when config was last read (pi 0.79+; undefined before). */
  projectTrusted?: boolean | undefined;
  /** The first-run question was asked (or told) in this process: RPC starts a session twice. */
  firstRunAsked?: boolean;
  /**
   * Closes the runtime and starts a new one for the same session, so a written config's
   * server, key and queue take effect; runs held before setup are handed over. Set by the binding.
   */
  restart?: (ctx: ExtensionContext) => Promise<MemoryRuntime | undefined>;
}

export const createHolder = (): RuntimeHolder => ({ runtime: undefined, closed: undefined, starting: undefined, failure: undefined, sessionId: undefined });

/** The runtime, or an error a user can act on. */
export const requireRuntime = async (holder: RuntimeHolder): Promise<MemoryRuntime> => {
  const runtime = holder.runtime ?? (await holder.starting);
  if (runtime !== undefined) return runtime;
  throw new Error(
    holder.failure === undefined
      ? 'memory is not running in this session (the session has not started); run /memory:doctor'
      : `memory is not available: ${holder.failure}; run /memory:doctor`,
  );
};
