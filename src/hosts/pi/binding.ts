/**
 * pi hooks -> runtime calls. No memory logic here: each hook decodes what it needs, calls
 * the runtime and returns. The factory registers only (pi refuses to start if it throws);
 * everything that can fail happens in `session_start`, inside try/catch.
 */
import type { ExtensionAPI, ExtensionContext } from '@mariozechner/pi-coding-agent';
import { redact } from '../../config/redact.js';
import { loadConfig } from '../../config/load.js';
import type { MemoryRuntime, MemoryRuntimeOptions } from '../memoryRuntime.js';
import { HostMessage } from '../../effects/session/messages.js';
import { registerMemoryCommands } from './commands.js';
import { createHolder, type RuntimeHolder } from './holder.js';
import { registerMemoryTools } from './tools.js';

export const STATUS_KEY = 'memory';

/** Test seams: everything else comes from the real environment. */
export type AgentMemoryOptions = Partial<Omit<MemoryRuntimeOptions, 'cwd' | 'notify'>>;

const errorText = (error: unknown): string => redact(error instanceof Error ? error.message : String(error));

/** The messages pi handed over that this library can read; pi's own objects pass through untouched. */
const readable = (messages: readonly unknown[]): HostMessage[] => messages.filter((m): m is HostMessage => HostMessage.is(m));

const settleWithin = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** The messages of the current branch, as pi persisted them. */
const branchMessages = (ctx: ExtensionContext): unknown[] =>
  ctx.sessionManager.getBranch().flatMap((entry) => (entry.type === 'message' ? [entry.message as unknown] : []));

const startRuntime = async (holder: RuntimeHolder, ctx: ExtensionContext, options: AgentMemoryOptions, reason: string): Promise<MemoryRuntime | undefined> => {
  const sessionId = ctx.sessionManager.getSessionId();
  const sessionFile = ctx.sessionManager.getSessionFile();
  // Loaded on first use: pi's startup pays only for registering tools and hooks.
  const { createMemoryRuntime } = await import('../memoryRuntime.js');
  const runtime = await createMemoryRuntime({
    ...options,
    cwd: ctx.cwd,
    notify: (level, text) => ctx.ui.notify(text, level),
  });
  holder.runtime = runtime;
  holder.sessionId = sessionId;
  let lastFooter: string | undefined | null = null;
  const showFooter = (footer: string | undefined): void => {
    if (footer === lastFooter) return;
    lastFooter = footer;
    ctx.ui.setStatus(STATUS_KEY, footer);
  };
  runtime.subscribe((status) => showFooter(status.footer));
  await runtime.startSession({
    sessionId,
    sessionFile,
    reason: reason as 'startup',
  });
  const status = runtime.status();
  showFooter(status.footer);
  if (runtime.loaded.config.notifyStartup) {
    if (status.setup.state === 'unconfigured') ctx.ui.notify(`Memory setup needed: ${status.setup.detail ?? 'run /memory'}`, 'warning');
    else ctx.ui.notify(`Memory bank: ${status.projectBank} (${status.projectTag})`, 'info');
  }
  return runtime;
};

export const registerAgentMemory = (pi: ExtensionAPI, options: AgentMemoryOptions = {}): RuntimeHolder => {
  const holder = createHolder();
  registerMemoryTools(pi, holder);
  registerMemoryCommands(pi, holder);

  pi.on('session_start', async (event, ctx) => {
    // pi's RPC mode starts a session twice: the second start joins the first.
    if (holder.starting !== undefined && holder.sessionId === ctx.sessionManager.getSessionId()) {
      const runtime = await holder.starting;
      await runtime?.startSession({ sessionId: ctx.sessionManager.getSessionId(), sessionFile: ctx.sessionManager.getSessionFile(), reason: event.reason });
      return;
    }
    holder.sessionId = ctx.sessionManager.getSessionId();
    try {
      const enabled = loadConfig({ cwd: ctx.cwd, home: options.home ?? options.env?.['HOME'] ?? process.env['HOME'] ?? '', env: options.env ?? process.env }).config.enabled;
      if (!enabled) {
        ctx.ui.setStatus(STATUS_KEY, undefined);
        holder.failure = 'memory is disabled for this repository (enabled: false)';
        return;
      }
    } catch {
      // The runtime reports config problems itself.
    }
    holder.starting = startRuntime(holder, ctx, options, event.reason).catch((error: unknown) => {
      holder.failure = errorText(error);
      ctx.ui.setStatus(STATUS_KEY, 'memory: error');
      ctx.ui.notify(`Memory could not start: ${holder.failure}. The session goes on without memory; run /memory:doctor.`, 'warning');
      return undefined;
    });
    await holder.starting;
  });

  pi.on('context', async (event, ctx) => {
    const runtime = holder.runtime;
    if (runtime === undefined) return undefined;
    try {
      // Every message goes in (the block is inserted among pi's own objects, none dropped);
      // the query and the injection read them defensively.
      const result = await runtime.recallFor(event.messages as unknown as HostMessage[], { signal: ctx.signal });
      if (result.messages === undefined) return undefined;
      // The injected block is a plain user message; every other element is pi's own object.
      return { messages: result.messages as unknown as typeof event.messages };
    } catch (error) {
      ctx.ui.notify(`Memory recall failed: ${errorText(error)}`, 'warning');
      return undefined;
    }
  });

  pi.on('agent_end', (event, ctx) => {
    // After shutdown the closed runtime still writes the run to its hand-off log.
    const runtime = holder.runtime ?? holder.closed;
    if (runtime === undefined) return undefined;
    const all = event.messages as readonly unknown[];
    const messages = readable(all);
    if (messages.length < all.length) {
      ctx.ui.notify(`Memory could not read ${all.length - messages.length} message(s) of this run (unexpected shape); they were not retained.`, 'warning');
    }
    try {
      // Synchronous hand-off: on disk before this returns, even if pi dies right after.
      const turn = runtime.retainTurn(messages);
      // pi's event queue waits for this; a queue lock held elsewhere must not stall it long.
      return Promise.race([turn.settled.then(() => undefined), settleWithin(2_000)]);
    } catch (error) {
      ctx.ui.notify(`Memory retain failed: ${errorText(error)}`, 'warning');
      return undefined;
    }
  });

  pi.on('session_shutdown', async (event, ctx) => {
    const runtime = holder.runtime ?? (await holder.starting);
    if (runtime === undefined) return;
    holder.runtime = undefined;
    holder.closed = runtime;
    try {
      // Catch-up: a signal can end pi before its queued agent_end handler ran. The branch on
      // disk has the run; the cursor skips what was already handed off.
      runtime.retainTurn(readable(branchMessages(ctx)), { runId: 'shutdown-catch-up' });
    } catch (error) {
      ctx.ui.notify(`Memory retain at shutdown failed: ${errorText(error)}`, 'warning');
    }
    try {
      await runtime.shutdown(event.reason);
    } finally {
      await runtime.close();
    }
  });

  return holder;
};
