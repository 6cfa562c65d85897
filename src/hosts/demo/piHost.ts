/**
 * Runs the real pi host in-process (its SDK, pi-host.md 3.1) with the agent-memory extension
 * bound and a scripted model, so the main job can show a whole session without a model key.
 * pi is an optional peer: it is imported lazily, so the rest of the CLI works without it.
 */
import * as path from 'node:path';
import type { AgentSession, ExtensionAPI, ExtensionUIContext } from '@mariozechner/pi-coding-agent';
import type { registerFauxProvider } from '@mariozechner/pi-ai';
import type { AgentMemoryOptions } from '../pi/binding.js';
import type { RuntimeHolder } from '../pi/holder.js';

/**
 * A scripted model: pi 0.73's `registerFauxProvider()` registration, or pi 0.87's
 * `fauxProvider()` handle (which carries a `provider` to register on the model runtime).
 */
export type Faux = Pick<ReturnType<typeof registerFauxProvider>, 'getModel' | 'setResponses'> & { readonly provider?: unknown };

/** Which pi SDK to drive: the package name of its coding agent and of its pi-ai. */
export interface PiSdkLine {
  readonly codingAgent: string;
  readonly ai: string;
}

const PI_073: PiSdkLine = { codingAgent: '@mariozechner/pi-coding-agent', ai: '@mariozechner/pi-ai' };

export interface UiEvents {
  readonly notifications: { readonly text: string; readonly level: string | undefined }[];
  readonly statuses: { readonly key: string; readonly text: string | undefined }[];
}

export interface PiHostSession {
  /** The current session (a new one after `newSession`). */
  readonly session: AgentSession;
  /** The current session's extension instance (pi loads the extension afresh per session). */
  readonly holder: RuntimeHolder;
  /** Every extension instance pi loaded, oldest first. */
  readonly holders: readonly RuntimeHolder[];
  readonly ui: UiEvents;
  /** pi's own session replacement (`/new`): `session_shutdown` (new), then a new session starts. */
  newSession(): Promise<void>;
  /** pi's own teardown: `session_shutdown` (quit), then the session is disposed. */
  close(): Promise<void>;
}

export interface PiHostOptions {
  readonly cwd: string;
  /** pi's agent dir (settings, auth); a scratch dir keeps the user's own pi untouched. */
  readonly agentDir: string;
  /** Where pi writes the session JSONL files. */
  readonly sessionsDir: string;
  readonly faux: Faux;
  readonly memory: AgentMemoryOptions;
  /** pi settings over the defaults (compaction and retry off), e.g. `{ retry: { enabled: true } }`. */
  readonly settings?: Record<string, unknown>;
  /** pi 0.79+'s project trust for this cwd (default: pi's own, trusted in the SDK); 0.73 has none. */
  readonly projectTrusted?: boolean;
  /** The pi SDK to drive; default pi 0.73 (`@mariozechner/*`). */
  readonly sdk?: PiSdkLine;
  /** Sees every notify/setStatus as it happens. */
  readonly onUi?: (kind: 'notify' | 'status', text: string | undefined) => void;
}

/** Every ExtensionUIContext member (0.73 and 0.87 share the list); pi 0.87 copies the context with a spread, so each must be an own property. */
const UI_MEMBERS = [
  'select', 'confirm', 'input', 'notify', 'onTerminalInput', 'setStatus', 'setWorkingMessage', 'setWorkingVisible', 'setWorkingIndicator',
  'setHiddenThinkingLabel', 'setWidget', 'setFooter', 'setHeader', 'setTitle', 'custom', 'pasteToEditor', 'setEditorText', 'getEditorText',
  'editor', 'addAutocompleteProvider', 'setEditorComponent', 'getEditorComponent', 'getAllThemes', 'getTheme', 'setTheme', 'getToolsExpanded', 'setToolsExpanded',
] as const;

/** A UI context that records notify/setStatus and declines every dialog. */
const recordingUi = (onUi: PiHostOptions['onUi']): { ui: ExtensionUIContext; events: UiEvents } => {
  const events: UiEvents = { notifications: [], statuses: [] };
  const members: Record<string, unknown> = Object.fromEntries(UI_MEMBERS.map((name) => [name, () => undefined]));
  members['notify'] = (text: string, level?: string) => {
    events.notifications.push({ text, level });
    onUi?.('notify', text);
  };
  members['setStatus'] = (key: string, text: string | undefined) => {
    events.statuses.push({ key, text });
    onUi?.('status', text);
  };
  members['confirm'] = async () => false;
  members['theme'] = undefined;
  return { ui: members as unknown as ExtensionUIContext, events };
};

/** The parts of pi's SDK this driver uses, common to 0.73 and 0.87 (typed loosely: two package lines). */
interface PiSdk {
  readonly SettingsManager: { inMemory(settings: object, options?: { readonly projectTrusted?: boolean }): unknown };
  readonly SessionManager: { create(cwd: string, dir: string): unknown };
  readonly DefaultResourceLoader: new (options: object) => { reload(): Promise<void> };
  readonly createAgentSession: (options: object) => Promise<{ session: AgentSession }>;
  /** The host that replaces sessions (new, resume, fork) the way pi's modes do. */
  readonly createAgentSessionRuntime: (
    create: (options: { cwd: string; agentDir: string; sessionManager: unknown; sessionStartEvent?: unknown }) => Promise<object>,
    options: { cwd: string; agentDir: string; sessionManager: unknown },
  ) => Promise<{
    readonly session: AgentSession;
    setRebindSession(rebind: (session: AgentSession) => Promise<void>): void;
    newSession(): Promise<{ cancelled: boolean }>;
    dispose(): Promise<void>;
  }>;
  /** pi 0.73: auth and model registry. */
  readonly AuthStorage?: { inMemory(): { setRuntimeApiKey(provider: string, key: string): void } };
  readonly ModelRegistry?: { inMemory(auth: unknown): unknown };
  /** pi 0.87: one model runtime with the faux provider registered natively. */
  readonly ModelRuntime?: {
    create(options: object): Promise<{ registerNativeProvider(provider: unknown): void; setRuntimeApiKey(provider: string, key: string): Promise<void> }>;
  };
}

/** Model access for a scripted session: 0.87 has a model runtime, 0.73 auth plus a registry. */
const modelAccess = async (pi: PiSdk, sdk: PiSdkLine, faux: Faux): Promise<Record<string, unknown>> => {
  if (pi.ModelRuntime !== undefined && faux.provider !== undefined) {
    const { InMemoryCredentialStore } = (await import(sdk.ai)) as { InMemoryCredentialStore: new () => unknown };
    const modelRuntime = await pi.ModelRuntime.create({ credentials: new InMemoryCredentialStore(), modelsPath: null, refreshOnCreate: false });
    modelRuntime.registerNativeProvider(faux.provider);
    await modelRuntime.setRuntimeApiKey((faux.getModel() as { provider: string }).provider, 'scripted');
    return { modelRuntime };
  }
  if (pi.AuthStorage === undefined || pi.ModelRegistry === undefined) throw new Error(`${sdk.codingAgent} has neither a ModelRuntime nor AuthStorage/ModelRegistry`);
  const authStorage = pi.AuthStorage.inMemory();
  authStorage.setRuntimeApiKey('faux', 'scripted');
  return { authStorage, modelRegistry: pi.ModelRegistry.inMemory(authStorage) };
};

export const openPiHostSession = async (options: PiHostOptions): Promise<PiHostSession> => {
  const sdk = options.sdk ?? PI_073;
  const pi = (await import(sdk.codingAgent)) as PiSdk;
  const { registerAgentMemory } = await import('../pi/binding.js');
  const holders: RuntimeHolder[] = [];
  const access = await modelAccess(pi, sdk, options.faux);
  const settingsManager = pi.SettingsManager.inMemory(
    { compaction: { enabled: false }, retry: { enabled: false }, ...options.settings },
    options.projectTrusted === undefined ? {} : { projectTrusted: options.projectTrusted },
  );
  // pi's runtime calls this for the first session and for every replacement (new, resume, fork).
  const createRuntime = async (o: { cwd: string; agentDir: string; sessionManager: unknown; sessionStartEvent?: unknown }): Promise<object> => {
    const resourceLoader = new pi.DefaultResourceLoader({
      cwd: o.cwd,
      agentDir: o.agentDir,
      settingsManager,
      noExtensions: true,
      noSkills: true,
      noPromptTemplates: true,
      noThemes: true,
      noContextFiles: true,
      extensionFactories: [
        (api: ExtensionAPI) => {
          holders.push(registerAgentMemory(api, options.memory));
        },
      ],
    });
    await resourceLoader.reload();
    const { session } = await pi.createAgentSession({
      cwd: o.cwd,
      agentDir: o.agentDir,
      model: options.faux.getModel(),
      ...access,
      settingsManager,
      resourceLoader,
      sessionManager: o.sessionManager,
      noTools: 'builtin',
      ...(o.sessionStartEvent === undefined ? {} : { sessionStartEvent: o.sessionStartEvent }),
    });
    // The services carry the model access too: pi 1.x settles the model runtime's credential writes on dispose.
    return { session, services: { agentDir: o.agentDir, cwd: o.cwd, settingsManager, resourceLoader, ...access }, diagnostics: [] };
  };
  const runtime = await pi.createAgentSessionRuntime(createRuntime, {
    cwd: options.cwd,
    agentDir: options.agentDir,
    sessionManager: pi.SessionManager.create(options.cwd, path.resolve(options.sessionsDir)),
  });
  const { ui, events } = recordingUi(options.onUi);
  const bind = async (session: AgentSession): Promise<void> => {
    await session.bindExtensions({ uiContext: ui });
  };
  runtime.setRebindSession(bind);
  await bind(runtime.session);
  const current = (): RuntimeHolder => {
    const holder = holders.at(-1);
    if (holder === undefined) throw new Error('pi did not load the extension (agent-memory)');
    return holder;
  };
  current();
  return {
    get session() {
      return runtime.session;
    },
    get holder() {
      return current();
    },
    holders,
    ui: events,
    newSession: async () => {
      const result = await runtime.newSession();
      if (result.cancelled) throw new Error('pi cancelled the new session');
    },
    close: () => runtime.dispose(),
  };
};
