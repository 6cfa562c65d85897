/**
 * pi hooks -> runtime calls. No memory logic here: each hook decodes its payload with its codec
 * (`hookPayloads.ts`; a payload that does not decode is a warning naming the field, and the hook
 * does nothing), calls the runtime and returns. The factory registers only (pi refuses to start if it throws);
 * everything that can fail happens in `session_start`, inside try/catch.
 */
import type { ExtensionAPI, ExtensionContext } from '@mariozechner/pi-coding-agent';
import { redact } from '../../config/redact.js';
import { terminalText } from '../../config/memoryText.js';
import { loadConfig } from '../../config/load.js';
import { trustNotice } from '../../config/trust.js';
import type { HostInput, MemoryRuntime, MemoryRuntimeOptions } from '../memoryRuntime.js';
import { HostMessage } from '../../effects/session/messages.js';
import { NOT_KEPT_CUSTOM_TYPE } from '../../effects/session/notKept.js';
import { registerMemoryCommands } from './commands.js';
import { createHolder, type RuntimeHolder } from './holder.js';
import { ShutdownReason, type StartReason } from '../../machines/session/events.js';
import { hasNewerEvents } from './hostEvents.js';
import { AgentEndPayload, ContextPayload, SessionInfoChangedPayload, SessionShutdownPayload, SessionStartPayload, decodeHook } from './hookPayloads.js';
import { catchUpMessages } from './catchUp.js';
import { createRetryHold, withoutRetriedFailures } from './retryHold.js';
import { registerMemoryTools } from './tools.js';
import { embeddedServerCommand } from './serverCommand.js';

const STATUS_KEY = 'memory';

/** Test seams: everything else comes from the real environment. */
export type AgentMemoryOptions = Partial<Omit<MemoryRuntimeOptions, 'cwd' | 'notify'>>;

const errorText = (error: unknown): string => redact(error instanceof Error ? error.message : String(error));

/** The messages pi handed over that this library can read; pi's own objects pass through untouched. */
const readable = (messages: readonly unknown[]): HostMessage[] => messages.filter((m): m is HostMessage => HostMessage.is(m));

/**
 * The session entry of the run's first message (its role and timestamp, found from the leaf
 * back), for the not-kept mark; undefined when it is not on the branch (the importer then
 * drops from the last user turn before the mark).
 */
const runStartOf = (ctx: ExtensionContext, messages: readonly HostMessage[]): string | undefined => {
  const first = messages[0];
  if (first === undefined || first.timestamp === undefined) return undefined;
  const branch = ctx.sessionManager.getBranch();
  for (let i = branch.length - 1; i >= 0; i -= 1) {
    const entry = branch[i];
    if (entry?.type !== 'message') continue;
    const m: unknown = entry.message;
    if (HostMessage.is(m) && m.role === first.role && m.timestamp === first.timestamp) return entry.id;
  }
  return undefined;
};

const settleWithin = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/**
 * A notification; without a UI (`pi -p`, json mode) pi drops it, so warnings and errors also go
 * to stderr: a turn memory could not save must never pass in silence.
 */
const tell = (ctx: ExtensionContext, text: string, level: 'info' | 'warning' | 'error'): void => {
  ctx.ui.notify(terminalText(text), level);
  if (!ctx.hasUI && level !== 'info') process.stderr.write(`agent-memory: ${terminalText(redact(text))}\n`);
};

/** Config files that could not be read, as one notice: memory goes on as if the file were empty. */
const configErrorNotice = (messages: readonly string[]): string =>
  `Memory config: ${messages.join('; ')}. Memory goes on without ${messages.length === 1 ? 'that file' : 'those files'} until ${messages.length === 1 ? 'it is' : 'they are'} fixed; /memory:doctor shows ${messages.length === 1 ? 'it' : 'them'}.`;

/** The config's refused values, as one notice that says where to fix them. */
const configWarningNotice = (messages: readonly string[]): string =>
  `Memory config: ${messages.length === 1 ? 'a value was' : `${messages.length} values were`} not used: ${messages.join('; ')}. Fix the file, or choose the value in /memory settings; /memory:doctor lists them.`;

/** A run that memory could not keep, said where the person sees it: the footer and stderr. */
const lostTurn = (ctx: ExtensionContext, failure: string): void => {
  ctx.ui.setStatus(STATUS_KEY, 'memory: error, turn not retained');
  tell(ctx, `Memory could not save this turn: memory did not start (${failure}); it was not retained. Run /memory:doctor.`, 'error');
};

/** The messages of the current branch, as pi persisted them. */
const branchMessages = (ctx: ExtensionContext): unknown[] => ctx.sessionManager.getBranch().flatMap((entry) => (entry.type === 'message' ? [entry.message] : []));

/** The session's name (pi `/name`); undefined when unnamed or on a stale context. */
const sessionName = (ctx: ExtensionContext): string | undefined => {
  try {
    return ctx.sessionManager.getSessionName();
  } catch {
    return undefined;
  }
};

/** pi 0.79.1+'s project-trust decision; undefined on a pi without project trust (0.73). */
const projectTrusted = (ctx: ExtensionContext): boolean | undefined => {
  const read: unknown = Reflect.get(ctx, 'isProjectTrusted');
  if (typeof read !== 'function') return undefined;
  try {
    const trusted: unknown = read.call(ctx);
    return typeof trusted === 'boolean' ? trusted : undefined;
  } catch {
    // A stale context (after session replacement) throws: no decision to report.
    return undefined;
  }
};

/** The session gate's start event for pi's current session. */
const startedEvent = (ctx: ExtensionContext, reason: StartReason, name?: string): HostInput => {
  const sessionFile = ctx.sessionManager.getSessionFile();
  return {
    type: 'session.started',
    sessionId: ctx.sessionManager.getSessionId(),
    reason,
    ...(sessionFile === undefined ? {} : { sessionFile }),
    ...(name === undefined ? {} : { name }),
  };
};

const startRuntime = async (holder: RuntimeHolder, ctx: ExtensionContext, options: AgentMemoryOptions, reason: StartReason, quiet = false): Promise<MemoryRuntime | undefined> => {
  const sessionId = ctx.sessionManager.getSessionId();
  // Loaded on first use: pi's startup pays only for registering tools and hooks.
  const { createMemoryRuntime } = await import('../memoryRuntime.js');
  const runtime = await createMemoryRuntime({
    ...options,
    // pi 0.79+: read at each config load, so a decision made later (project_trust) applies.
    hostProjectTrusted: () => projectTrusted(ctx),
    cwd: ctx.cwd,
    notify: (level, text) => tell(ctx, text, level),
    serverCommand: embeddedServerCommand(),
  });
  holder.runtime = runtime;
  holder.sessionId = sessionId;
  holder.projectTrusted = projectTrusted(ctx);
  let lastFooter: string | undefined | null = null;
  const showFooter = (footer: string | undefined): void => {
    if (footer === lastFooter) return;
    lastFooter = footer;
    ctx.ui.setStatus(STATUS_KEY, footer === undefined ? undefined : terminalText(footer));
  };
  runtime.subscribe((status) => showFooter(status.footer));
  await runtime.send(startedEvent(ctx, reason, sessionName(ctx)));
  const status = runtime.status();
  showFooter(status.footer);
  // A config file memory cannot read, or a value it got wrong, is said once here, first: else
  // an unreadable project file reads as "not set up yet", and a wrong value falls back in silence.
  const { errors, warnings } = runtime.loaded;
  if (!quiet && errors.length > 0) tell(ctx, configErrorNotice(errors.map((e) => e.message)), 'warning');
  if (!quiet && warnings.length > 0) tell(ctx, configWarningNotice(warnings.map((w) => w.message)), 'warning');
  const declined = runtime.loaded.config.setupDeclined.some((id) => id === runtime.scope.identity.id);
  if (!quiet && runtime.loaded.config.notifyStartup && status.setup.state !== 'disabled' && status.setup.state !== 'untrusted') {
    // With a UI the first-run question (person.ts) speaks instead; "never here" stays quiet.
    if (status.setup.state === 'unconfigured') {
      // An unreadable config file was said above: fixing it comes first (setup cannot write over it).
      if (!declined && errors.length === 0 && (!ctx.hasUI || status.problems.length > 0)) tell(ctx, `Memory setup needed: ${status.setup.detail ?? 'run /memory setup'}`, 'warning');
    } else tell(ctx, `Memory bank: ${status.projectBank} (${status.projectTag})`, 'info');
  }
  return runtime;
};

export const registerAgentMemory = (pi: ExtensionAPI, given: AgentMemoryOptions = {}): RuntimeHolder => {
  const holder = createHolder();
  // Called synchronously from agent_end, so the entry lands right after the run it marks.
  const options: AgentMemoryOptions = { ...given, markNotKept: (notKept) => pi.appendEntry(NOT_KEPT_CUSTOM_TYPE, { notKept }) };
  registerMemoryTools(pi, holder);
  registerMemoryCommands(pi, holder);

  /** The hook's payload, or undefined (told as a warning naming the field) when it does not decode. */
  const payloadOf = <A>(codec: Parameters<typeof decodeHook<A>>[0], hook: string, event: unknown, ctx: ExtensionContext): A | undefined => {
    const decoded = decodeHook(codec, hook, event);
    if (decoded._tag === 'Right') return decoded.right;
    tell(ctx, `Memory ignored pi's ${hook} event: ${decoded.left.message}`, 'warning');
    return undefined;
  };

  pi.on('session_start', async (event, ctx) => {
    const payload = payloadOf(SessionStartPayload, 'session_start', event, ctx);
    if (payload === undefined) return;
    // pi's RPC mode starts a session twice: the second start joins the first.
    if (holder.starting !== undefined && holder.sessionId === ctx.sessionManager.getSessionId()) {
      const runtime = await holder.starting;
      await runtime?.send(startedEvent(ctx, payload.reason));
      return;
    }
    holder.sessionId = ctx.sessionManager.getSessionId();
    try {
      const loaded = loadConfig({
        cwd: ctx.cwd,
        home: options.home ?? options.env?.['HOME'] ?? process.env['HOME'] ?? '',
        env: options.env ?? process.env,
        hostTrusted: projectTrusted(ctx),
      });
      const distrust = trustNotice(loaded.trust);
      // The project file moved memory somewhere untrusted: the runtime starts with a blocked
      // server (nothing is sent), so the footer, memory_status and /memory:doctor say which
      // rule refused it and how to trust it.
      if (distrust !== undefined) tell(ctx, `Memory is off: ${distrust}`, 'warning');
    } catch {
      // The runtime reports config problems itself.
    }
    // With enabled: false the runtime still starts (no queue, no probe, no automation) so the
    // doctor, memory_status, /memory and memory_config can explain and undo it.
    holder.starting = startRuntime(holder, ctx, options, payload.reason).catch((error: unknown) => {
      holder.failure = errorText(error);
      ctx.ui.setStatus(STATUS_KEY, 'memory: error');
      tell(ctx, `Memory could not start: ${holder.failure}. The session goes on without memory; run /memory:doctor.`, 'warning');
      return undefined;
    });
    await holder.starting;
    // Not awaited: a question left open must not hold pi's start-up (RPC reads answers later).
    void import('./person.js')
      .then(({ firstRun }) => firstRun(holder, ctx))
      .catch((error: unknown) => {
        try {
          tell(ctx, `Memory setup question failed: ${errorText(error)}`, 'warning');
        } catch {
          // The session was replaced (or pi is exiting) while the question was open: nobody to tell.
        }
      });
  });

  holder.restart = async (ctx) => {
    const old = holder.runtime ?? (await holder.starting);
    // The person's choices for this session (its memory mode, "do not save the next run") are
    // the session's, not the runtime's: turning memory off and on again lost them, and the run
    // the person had opted out of was saved (fifth pass).
    const chosen = old?.session.view().context;
    if (old !== undefined) {
      holder.runtime = undefined;
      try {
        await old.send({ type: 'session.shutdown', reason: 'reload' });
      } finally {
        await old.close();
      }
    }
    holder.starting = startRuntime(holder, ctx, options, 'reload', true).catch((error: unknown) => {
      holder.failure = errorText(error);
      tell(ctx, `Memory could not start again: ${holder.failure}. Run /memory:doctor.`, 'warning');
      return undefined;
    });
    const runtime = await holder.starting;
    if (runtime !== undefined && chosen !== undefined && chosen.mode !== 'normal') await runtime.send({ type: 'session.mode.set', mode: chosen.mode });
    // Runs held while setup was unfinished are still behind the cursor: hand them over now.
    runtime?.retainTurn(withoutRetriedFailures(readable(branchMessages(ctx))), { runId: 'after-setup', handOver: true });
    // Armed after the hand-over, so it is the person's next run that is not saved.
    if (runtime !== undefined && chosen?.nextOptOut === true) await runtime.send({ type: 'session.optOut.requested' });
    return runtime;
  };

  // pi 0.79+: a trust decision for this cwd is being made (start-up, cwd switch). We never
  // decide it; the next model call re-reads config so the key follows the decision.
  if (hasNewerEvents(pi)) pi.on('project_trust', () => ({ trusted: 'undecided' }));

  pi.on('context', async (event, ctx) => {
    const runtime = holder.runtime;
    if (runtime === undefined) return undefined;
    const payload = payloadOf(ContextPayload, 'context', event, ctx);
    if (payload === undefined) return undefined;
    const trusted = projectTrusted(ctx);
    if (trusted !== holder.projectTrusted) {
      // Config (and the doctor) follow at once; the server client keeps the key it opened with.
      holder.projectTrusted = trusted;
      await runtime.reloadConfig().catch(() => undefined);
      tell(ctx, `pi ${trusted === true ? 'now trusts' : 'no longer trusts'} this project; memory re-read its config. Start a new session (/new) for the API key decision to follow.`, 'info');
    }
    try {
      // Every message goes in (the block is inserted among pi's own objects, none dropped);
      // the query and the injection read them defensively.
      // pi's own objects, read defensively as host messages (the codec checked only the array).
      const result = await runtime.recallFor(payload.messages as HostMessage[], { signal: ctx.signal });
      if (result.messages === undefined) return undefined;
      // The injected block is a plain user message; every other element is pi's own object.
      return { messages: result.messages as unknown as typeof event.messages };
    } catch (error) {
      tell(ctx, `Memory recall failed: ${errorText(error)}`, 'warning');
      return undefined;
    }
  });

  const hold = createRetryHold();
  /** Hands a run to the runtime: on disk before this returns, even if pi dies right after. */
  const retain = (messages: readonly HostMessage[], ctx: ExtensionContext, o: { readonly runId?: string; readonly runStart?: string } = {}): Promise<void> | undefined => {
    // After shutdown the closed runtime still writes the run to its hand-off log.
    const runtime = holder.runtime ?? holder.closed;
    if (runtime === undefined || messages.length === 0) return undefined;
    try {
      const turn = runtime.retainTurn(messages, o);
      // pi's event queue waits for this; a queue lock held elsewhere must not stall it long.
      return Promise.race([turn.settled.then(() => undefined), settleWithin(2_000)]);
    } catch (error) {
      tell(ctx, `Memory retain failed: ${errorText(error)}`, 'warning');
      return undefined;
    }
  };

  // pi 0.80.3+: the name goes into the items of later runs (the document id never changes).
  if (hasNewerEvents(pi)) {
    pi.on('session_info_changed', async (event, ctx) => {
      const payload = payloadOf(SessionInfoChangedPayload, 'session_info_changed', event, ctx);
      if (payload !== undefined) await holder.runtime?.send({ ...payload, type: 'session.renamed' });
    });
  }

  pi.on('agent_end', (event, ctx) => {
    if ((holder.runtime ?? holder.closed) === undefined) {
      // Memory did not start, so this run is kept nowhere: the person is told, never left to
      // believe it was remembered.
      if (holder.failure !== undefined) lostTurn(ctx, holder.failure);
      return undefined;
    }
    // pi 0.73 has no session_info_changed: a /name since the last run is read here.
    const name = sessionName(ctx);
    // Only when it changed: the retain below must stay synchronous (pi may exit right after).
    const renamed = holder.runtime !== undefined && (holder.runtime.session.view().context.sessionName ?? undefined) !== name ? holder.runtime.send({ type: 'session.renamed', ...(name === undefined ? {} : { name }) }) : undefined;
    const payload = payloadOf(AgentEndPayload, 'agent_end', event, ctx);
    if (payload === undefined) return renamed;
    const all = payload.messages;
    const messages = readable(all);
    if (messages.length < all.length) {
      tell(ctx, `Memory could not read ${all.length - messages.length} message(s) of this run (unexpected shape); they were not retained.`, 'warning');
    }
    const run = hold.ended(messages, payload.willRetry);
    if (run === undefined) return renamed;
    // Found now, before any await: the mark a skipped run leaves must name this run's entries.
    const runStart = runStartOf(ctx, run);
    const o = runStart === undefined ? {} : { runStart };
    return renamed === undefined ? retain(run, ctx, o) : renamed.then(() => retain(run, ctx, o));
  });

  // pi 0.80.5+: nothing continues this run; a failed attempt pi did not retry is retained now.
  if (hasNewerEvents(pi)) pi.on('agent_settled', (_event, ctx) => retain(hold.release(), ctx));

  pi.on('session_shutdown', async (event, ctx) => {
    const runtime = holder.runtime ?? (await holder.starting);
    if (runtime === undefined) return;
    holder.runtime = undefined;
    holder.closed = runtime;
    retain(hold.release(), ctx);
    try {
      // Catch-up: a signal can end pi before its queued agent_end handler ran. The branch on
      // disk has the run; the cursor skips what was already handed off, and what an import of
      // this session already holds is left out.
      const branch = withoutRetriedFailures(readable(branchMessages(ctx)));
      runtime.retainTurn(catchUpMessages(branch, ctx.sessionManager.getSessionId(), runtime.loaded.config.importManifest), { runId: 'shutdown-catch-up' });
    } catch (error) {
      tell(ctx, `Memory retain at shutdown failed: ${errorText(error)}`, 'warning');
    }
    // quit (and SIGTERM/SIGHUP on pi 0.77+) ends the process; reload/new/resume/fork replace
    // the session and the process goes on: the gate decides what each one waits for.
    const payload = decodeHook(SessionShutdownPayload, 'session_shutdown', event);
    const { reason: given, targetSessionFile: target } = payload._tag === 'Right' ? payload.right : {};
    const reason = ShutdownReason.is(given) ? given : 'quit';
    try {
      await runtime.send({ type: 'session.shutdown', reason, ...(target !== undefined && target !== '' ? { targetSessionFile: target } : {}) });
    } finally {
      await runtime.close();
    }
  });

  return holder;
};
