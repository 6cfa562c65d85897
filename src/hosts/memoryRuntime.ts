/**
 * `createMemoryRuntime`: automatic memory for any host. It loads config, resolves the scope,
 * creates the server client, opens the retain queue and starts the setup and session gates;
 * a host then only turns its hook events into calls:
 *
 *   const memory = await createMemoryRuntime({ cwd });
 *   await memory.send({ type: 'session.started', sessionId, reason: 'startup' });
 *   const { messages } = await memory.recallFor(conversation, { signal });   // before a model call
 *   memory.retainTurn(runMessages);                                         // after a run (durable on return)
 *   await memory.send({ type: 'session.shutdown', reason: 'quit' }); await memory.close();
 *
 * Nothing here throws at a host for a missing server or unfinished setup: memory degrades
 * and `status()` says why.
 */
import { homedir } from 'node:os';
import * as path from 'node:path';
import { readGitInfo, type GitInfo } from '../adapters/git/gitInfo.js';
import { trackedFilesUnder, trackedFilesUnderSync, trackedRefusal } from '../adapters/git/trackedFiles.js';
import { nodeIds } from '../adapters/ids/nodeIds.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { resolveScope, type Scope } from '../config/scope.js';
import { bankScopeInput } from '../config/knownBanks.js';
import type { Automation } from '../machines/session/events.js';
import { replacesSession } from '../machines/session/context.js';
import { setupState } from '../machines/setup/selectors.js';
import type { ToolContext } from '../tools/context.js';
import { systemClock, type ClockPort } from '../effects/ports/clock.js';
import type { IdsPort } from '../effects/ports/ids.js';
import type { RetainCursor } from '../effects/ports/retainCursor.js';
import type { MemoryServer } from '../effects/ports/memoryServer.js';
import type { TracePort } from '../effects/ports/trace.js';
import { createRecaller } from '../effects/session/recall.js';
import type { RetainQueue } from '../effects/retainDelivery/queue.js';
import { startSessionEffects, type NotifyLevel, type SessionEffects, type SessionEffectsOptions, type SessionInput } from '../effects/session/session.js';
import { prepareRetainHealth, recordRetainFailing } from '../adapters/queue/retainHealth.js';
import { checkStateDir } from '../adapters/fs/stateDirCheck.js';
import { setupFacts, startSetupGate, type SetupGate } from '../effects/setup/setup.js';
import { createToolContext } from './toolContext.js';
import { importStatusOf } from './importer.js';
import { writeJsonFile } from '../adapters/fs/stateFiles.js';
import { runtimeServer } from './runtime/server.js';
import { openRetainParts } from './runtime/retainParts.js';
import { setAsideNotice, setAsideQueueFiles, withdrawTrackedMark, type TakeBack } from '../adapters/queue/queueOwner.js';
import { queueFiles } from '../adapters/queue/queueFiles.js';
import { dropDrainedSetAside } from './runtime/drainedSetAside.js';
import { unavailableQueue, withRetainHealth } from './runtime/standIns.js';
import { runtimeStatus, statusListeners, toolStatusView, type RuntimeStatus } from './runtime/status.js';
import { openTraceFiles } from './runtime/traceFiles.js';

export type { RuntimeStatus } from './runtime/status.js';

export interface MemoryRuntimeOptions {
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default: `HOME` from env, else the OS home directory. */
  readonly home?: string;
  /** `{state_dir}`; default `<cwd>/.pi`. */
  readonly stateDir?: string;
  readonly clock?: ClockPort;
  /** Random ids and digests (default: node's crypto). */
  readonly ids?: IdsPort;
  /** A server client to use instead of one built from config (tests, other hosts). */
  readonly server?: MemoryServer;
  /** Where user-facing notices go (pi: `ctx.ui.notify`). */
  readonly notify?: (level: NotifyLevel, text: string) => void;
  /** Host port: marks a skipped run not kept in the host's session file (pi: `appendEntry`). */
  readonly markNotKept?: SessionEffectsOptions['markNotKept'];
  /** Opt-in inspection trace of every gate (`{state_dir}/memory/trace/<name>.jsonl` when `true`). */
  readonly trace?: boolean | TracePort;
  readonly readGit?: (cwd: string) => Promise<GitInfo>;
  readonly userAgent?: string;
  /** Bound of the shutdown flush. */
  readonly shutdownFlushMs?: number;
  /** The host's project-trust decision (pi 0.79+), joined with memory.trustedOrigins; undefined: the host has none. */
  readonly hostProjectTrusted?: () => boolean | undefined;
  /** Mark the project's queue journal as it is as this user's (the CLI's `flush --trust-queue`). */
  readonly trustQueue?: boolean;
  /** What delivers a set-aside queue file the user moved back (`queueOwner.ts`); default pi's, a new session. */
  readonly takeBack?: TakeBack;
  /**
   * The `agent-memory` command this runtime serves (`import`, `flush`), absent in pi: its journals
   * are named with it, so the memory browser shows the run as that command, not as a pi session.
   */
  readonly command?: string;
  /**
   * The command that starts the embedded server where the person is (pi: the installed
   * extension's `serve.mjs`): a server that does not answer is described with it.
   */
  readonly serverCommand?: string;
}

type Started = Extract<SessionInput, { readonly type: 'session.started' }>;

/**
 * A host's input: a session event without its time. `session.started` leaves out what config
 * and setup allow (`automation`): the runtime adds it.
 */
export type HostInput = Exclude<SessionInput, Started> | Omit<Started, 'automation'>;

export interface MemoryRuntime {
  readonly loaded: LoadedConfig;
  readonly scope: Scope;
  readonly server: MemoryServer;
  readonly queue: RetainQueue | undefined;
  readonly session: SessionEffects;
  readonly setup: SetupGate;
  /** Which messages of each session live retain queued or passed (an import leaves out what it queued). */
  readonly retainCursor: RetainCursor;
  /** The digests the runtime's fingerprints and job keys are made with. */
  readonly ids: IdsPort;
  /** Re-reads config after a file changed; server, queue and paths stay as opened (restart the session for those). */
  reloadConfig(): Promise<void>;
  /** The scope another config would have in this project (guided setup's suggested bank). */
  scopeFor(config: LoadedConfig['config']): Scope;
  /** A hook's event, decoded by the host, into the session gate (`SessionEffects.send`). */
  send(input: HostInput): Promise<void>;
  readonly recallFor: SessionEffects['recallFor'];
  readonly retainTurn: SessionEffects['retainTurn'];
  status(): RuntimeStatus;
  subscribe(listener: (status: RuntimeStatus) => void): () => void;
  /** A tool context over this runtime's server, queue and session. */
  toolContext(o?: { readonly signal?: AbortSignal }): Promise<ToolContext>;
  /** After `session.shutdown`: stops the gates and closes the queue (`quit` flushed it, bounded; a replacement hands off only). */
  close(): Promise<void>;
}

/** How long a replaced session's queue may finish a delivery in flight: pi's /new waits for it. */
const REPLACED_CLOSE_MS = 250;

export const createMemoryRuntime = async (options: MemoryRuntimeOptions): Promise<MemoryRuntime> => {
  const env = options.env ?? process.env;
  const home = options.home ?? env['HOME'] ?? homedir();
  const clock = options.clock ?? systemClock;
  const notify = options.notify ?? (() => undefined);
  const hostTrusted = (): boolean | undefined => options.hostProjectTrusted?.();
  const hostTrust = (trusted: boolean | undefined): { readonly hostProjectTrusted?: boolean } => (trusted === undefined ? {} : { hostProjectTrusted: trusted });
  // One trust decision (`decideTrust`): the host's project trust joined with memory.trustedOrigins.
  const load = (): LoadedConfig =>
    loadConfig({ cwd: options.cwd, home, env, hostTrusted: hostTrusted(), ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }) });
  const loaded = load();
  const { config } = loaded;
  const git = await (options.readGit ?? ((cwd: string) => readGitInfo(cwd)))(loaded.cwd);
  const scopeOf = (c: LoadedConfig['config'], known: LoadedConfig = current.loaded): Scope =>
    resolveScope(c, { cwd: loaded.cwd, repoRoot: git.repoRoot, gitRemote: git.remoteUrl, ...bankScopeInput(known) });
  const scope = scopeOf(config, loaded);
  // What the gates read now; `reloadConfig` replaces it (server, queue and paths stay as opened).
  let current: { loaded: LoadedConfig; scope: Scope } = { loaded, scope };
  const problems: string[] = [...loaded.errors.map((e) => e.message)];
  // Said where the person looks (status, doctor): the project file chose whose memories to use, and was not trusted to.
  if (loaded.identity.refused.length > 0) {
    problems.push(`${loaded.files.project.path}: ${loaded.identity.refused.join(', ')} ignored: they decide whose memories this session reads and writes, and this project is not trusted for that (${loaded.identity.remedy ?? ''})`);
  }
  const memoryDir = path.join(loaded.stateDir, 'memory');
  // A state file planted as a link or device (a cloned repository can commit one) turns memory
  // off for this project: nothing is read through it, written to it, recalled or retained.
  const unsafe = checkStateDir(loaded.stateDir, config.queuePath, [{ file: config.importCheckpoint, field: 'import.checkpointPath' }, { file: config.importManifest, field: 'import.manifestPath' }]).findings.filter((f) => f.kind === 'unsafe');
  // Files git tracks there (a repository committed them) would carry what memory writes into the next commit.
  const tracked = git.inRepository ? await trackedFilesUnder(memoryDir) : [];
  // A tracked journal came from the repository (a pull writes over the ignored one): its mark goes, so it is set aside once untracked.
  let markProblem: string | undefined;
  if (tracked.length > 0 && unsafe.length === 0) {
    try {
      withdrawTrackedMark(config.queuePath, memoryDir, tracked);
    } catch (error) {
      markProblem = `could not remove ${queueFiles(config.queuePath).owner} (${error instanceof Error ? error.message : String(error)}): remove it before untracking, or the queue git wrote there is delivered`;
    }
  }
  const reasons = [...unsafe.map((f) => f.reason), ...(tracked.length === 0 ? [] : [trackedRefusal(memoryDir, loaded.cwd, tracked)])];
  const refusal = reasons.length === 0 ? undefined : `memory is off for this project: ${reasons.join('; ')}`;
  if (refusal !== undefined) problems.push(refusal);
  if (markProblem !== undefined) problems.push(markProblem);

  const { server, problem: serverProblem } = runtimeServer({
    loaded,
    env,
    clock,
    memoryDir,
    refusal,
    userAgent: options.userAgent,
    given: options.server,
  });
  if (serverProblem !== undefined) problems.push(serverProblem);

  const traces = openTraceFiles({
    memoryDir,
    trace: options.trace,
    journals: config.enabled && refusal === undefined,
    ...(options.command === undefined ? {} : { command: options.command }),
    clock,
    onUnusable: (text) => {
      problems.push(text);
      notify('warning', text);
    },
  });

  const { queue, cursor } = await openRetainParts({
    config,
    memoryDir,
    refusal,
    server,
    clock,
    trace: traces.traceFor('retain-delivery'),
    onProblem: (text) => problems.push(text),
    // The user file's directory is pi's agent dir: this user's queue key lives there.
    agentDir: path.dirname(loaded.files.user.path),
    ...(options.trustQueue === undefined ? {} : { trustQueue: options.trustQueue }),
    // A pull or checkout while this process runs writes over the ignored journal: the same refusal as at start, and its mark goes.
    ...(git.inRepository
      ? {
          refuseNewJournal: () => {
            const now = trackedFilesUnderSync(memoryDir);
            if (!withdrawTrackedMark(config.queuePath, memoryDir, now)) return undefined;
            const reason = `memory stops keeping turns in this session: ${trackedRefusal(memoryDir, loaded.cwd, now)}`;
            problems.push(reason);
            notify('warning', reason);
            return reason;
          },
        }
      : {}),
  });
  // Said until the user moves or deletes them: a queue file a repository planted, set aside unread.
  // One with nothing to deliver (an earlier version's drained queue) is removed instead.
  // Told at start too, and listed by pi's doctor and status (`problems` of the tools' status view).
  if (queue !== undefined) {
    for (const file of await dropDrainedSetAside(config.queuePath, setAsideQueueFiles(config.queuePath), config.retainDelivery)) {
      const notice = setAsideNotice(file, options.takeBack ?? { kind: 'restart-pi' });
      problems.push(notice);
      notify('warning', `Memory: ${notice}`);
    }
  }
  // Loud, never silent: the footer, status and a notification say so (see retainTurn.ts).
  let retainFailing: string | undefined;
  if (refusal === undefined && config.enabled) prepareRetainHealth(memoryDir, clock.now());
  const onRetainFailure = (reason: string | undefined): void => {
    retainFailing = reason;
    if (refusal === undefined) recordRetainFailing(memoryDir, reason, clock.now());
    emit();
  };
  const setupTrace = traces.traceFor('setup');
  const setupJournal = await traces.journalFor('setup');
  const setup = await startSetupGate({
    server,
    clock,
    ...(options.serverCommand === undefined ? {} : { serverCommand: options.serverCommand }),
    ...(setupJournal === undefined ? {} : { journal: setupJournal }),
    ...(setupTrace === undefined ? {} : { trace: setupTrace }),
  });
  const recaller = createRecaller({ server, clock });
  const sessionTrace = traces.traceFor('session');
  const sessionJournal = await traces.journalFor('session');
  const session = await startSessionEffects({
    clock,
    ids: options.ids ?? nodeIds,
    recaller,
    cursor,
    queue,
    notify,
    settings: () => ({ config: current.loaded.config, scope: current.scope, cwd: loaded.cwd }),
    storeLastRecall: (report) => {
      void writeJsonFile(path.join(memoryDir, 'last-recall.json'), report);
    },
    ...(sessionTrace === undefined ? {} : { trace: sessionTrace }),
    ...(sessionJournal === undefined ? {} : { journal: sessionJournal }),
    ...(options.shutdownFlushMs === undefined ? {} : { shutdownFlushMs: options.shutdownFlushMs }),
    onRetainFailure,
    ...(options.markNotKept === undefined ? {} : { markNotKept: options.markNotKept }),
  });

  /** What config and the setup gate allow now. */
  const automation = (): Automation => {
    const state = setupState(setup.getSnapshot());
    const usable = state === 'probing' || state === 'bankMissing' || state === 'ready' || state === 'degraded';
    const { config: now } = current.loaded;
    // Not set up yet, and not declined here: runs wait behind the cursor for setup (retainHeld).
    const awaitingSetup = state === 'unconfigured' && now.enabled && refusal === undefined && !now.setupDeclined.some((id) => id === current.scope.identity.id);
    return {
      recall: usable && current.scope.automatic.read.length > 0,
      retain: usable && current.scope.automatic.write.length > 0,
      ...(awaitingSetup ? { awaitingSetup } : {}),
      ...(now.enabled ? {} : { off: true }),
    };
  };

  const status = (): RuntimeStatus => {
    const setupSnapshot = setup.getSnapshot();
    return runtimeStatus({
      loaded: current.loaded,
      scope: current.scope,
      setup: { state: setupState(setupSnapshot), detail: setupSnapshot.context.detail },
      session: session.view(),
      queue: queue?.status(),
      problems,
      retainFailing,
    });
  };
  const listeners = statusListeners(status, () => closed);
  const emit = listeners.emit;
  const unsubscribers: (() => void)[] = [
    setup.subscribe(() => {
      void session.send({ type: 'session.automation.changed', automation: automation(), reason: setupState(setup.getSnapshot()) });
      emit();
    }),
    session.gate.subscribe(() => emit()),
    ...(queue === undefined ? [] : [queue.subscribe(() => emit())]),
  ];

  const configure = async (): Promise<void> => {
    const facts = setupFacts(current.loaded, current.scope);
    const reason = refusal ?? facts.reason;
    await setup.dispatch({
      type: 'setup.configured',
      at: clock.now(),
      enabled: current.loaded.config.enabled,
      configured: refusal === undefined && facts.configured,
      ...(facts.untrusted === true ? { untrusted: true } : {}),
      banks: [...facts.banks],
      ...(reason === undefined ? {} : { reason }),
    });
  };
  await configure();

  // The client's breaker is the fastest witness of a dead or recovered server.
  unsubscribers.push(
    server.subscribeBreaker((breaker) => {
      const state = setupState(setup.getSnapshot());
      if (breaker.state === 'open' && state === 'ready') {
        void setup.dispatch({
          type: 'setup.server.lost',
          at: clock.now(),
          reason: 'the memory server stopped answering; your turns wait in the queue and are sent when it answers again (/memory doctor checks it)',
          retryAt: breaker.retryAt ?? clock.now() + 30_000,
        });
      } else if (breaker.state === 'closed' && state === 'degraded') {
        void setup.dispatch({ type: 'setup.probe.retry', at: clock.now() });
      }
    }),
  );

  /** Re-reads the config files (after memory_config wrote one) and re-decides setup. */
  const reloadConfig = async (): Promise<void> => {
    const next = load();
    current = { loaded: next, scope: scopeOf(next.config, next) };
    problems.push(...next.errors.map((e) => e.message));
    await configure();
    await session.send({ type: 'session.automation.changed', automation: automation(), reason: 'config reloaded' });
    // A key or bank fixed in config: try a paused queue again now.
    await queue?.recheck().catch(() => undefined);
    emit();
  };

  let closed = false;
  return {
    get loaded() {
      return current.loaded;
    },
    get scope() {
      return current.scope;
    },
    reloadConfig,
    scopeFor: scopeOf,
    server,
    queue,
    session,
    setup,
    retainCursor: cursor,
    ids: options.ids ?? nodeIds,
    send: async (input) => {
      if (input.type !== 'session.started') return session.send(input);
      // A pause (401/403) or a backoff left by an earlier session is tried again at once.
      void queue?.recheck().catch(() => undefined);
      await session.send({ ...input, automation: automation() });
    },
    recallFor: session.recallFor,
    retainTurn: session.retainTurn,
    status,
    subscribe: listeners.subscribe,
    toolContext: async (o = {}) => {
      const importStatus = await importStatusOf(current.loaded.config.importCheckpoint);
      const view = session.view();
      const context = view.context;
      return createToolContext({
        cwd: loaded.cwd,
        server,
        queue: withRetainHealth(queue ?? unavailableQueue, () => retainFailing),
        env,
        home,
        stateDir: loaded.stateDir,
        clock,
        session: {
          ...(context.sessionId === null ? {} : { sessionId: context.sessionId }),
          ...(context.sessionFile === null ? {} : { sessionFile: context.sessionFile }),
          recallAllowed: context.mode !== 'ignored',
          retainAllowed: context.mode === 'normal',
          mode: context.mode,
        },
        status: () => toolStatusView(status(), importStatus),
        reloadConfig,
        ...(o.signal === undefined ? {} : { signal: o.signal }),
        ...hostTrust(hostTrusted()),
      });
    },
    close: async () => {
      if (closed) return;
      closed = true;
      for (const unsubscribe of unsubscribers) unsubscribe();
      await session.idle();
      await session.stop();
      await setup.stop();
      await traces.close();
      // The gate decided at shutdown: a replaced session leaves delivery to the next one's queue.
      const replaced = replacesSession(session.view().context.shutdownReason);
      // A short grace lets a healthy delivery finish; a hung one is aborted and stays queued.
      await queue?.close(replaced ? { deadline: clock.now() + REPLACED_CLOSE_MS, flush: false } : { deadline: clock.now() + 1_000 });
    },
  };
};
