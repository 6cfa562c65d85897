/**
 * Runs the real pi host in-process (its SDK, pi-host.md 3.1) with the agent-memory extension
 * bound and a scripted model, so the main job can show a whole session without a model key.
 * pi is an optional peer: it is imported lazily, so the rest of the CLI works without it.
 */
import * as path from 'node:path';
import type { AgentSession, ExtensionUIContext } from '@mariozechner/pi-coding-agent';
import type { registerFauxProvider } from '@mariozechner/pi-ai';
import type { AgentMemoryOptions } from '../pi/binding.js';
import type { RuntimeHolder } from '../pi/holder.js';

export type Faux = ReturnType<typeof registerFauxProvider>;

export interface UiEvents {
  readonly notifications: { readonly text: string; readonly level: string | undefined }[];
  readonly statuses: { readonly key: string; readonly text: string | undefined }[];
}

export interface PiHostSession {
  readonly session: AgentSession;
  readonly holder: RuntimeHolder;
  readonly ui: UiEvents;
  /** Emits `session_shutdown` (the SDK's dispose does not), then disposes. */
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
  /** Sees every notify/setStatus as it happens. */
  readonly onUi?: (kind: 'notify' | 'status', text: string | undefined) => void;
}

/** A UI context that records notify/setStatus and declines every dialog. */
const recordingUi = (onUi: PiHostOptions['onUi']): { ui: ExtensionUIContext; events: UiEvents } => {
  const events: UiEvents = { notifications: [], statuses: [] };
  const ui = new Proxy({} as ExtensionUIContext, {
    get: (_target, prop) => {
      if (prop === 'notify')
        return (text: string, level?: string) => {
          events.notifications.push({ text, level });
          onUi?.('notify', text);
        };
      if (prop === 'setStatus')
        return (key: string, text: string | undefined) => {
          events.statuses.push({ key, text });
          onUi?.('status', text);
        };
      if (prop === 'confirm') return async () => false;
      if (prop === 'theme') return undefined;
      return () => undefined;
    },
  });
  return { ui, events };
};

export const openPiHostSession = async (options: PiHostOptions): Promise<PiHostSession> => {
  const pi = await import('@mariozechner/pi-coding-agent');
  const { registerAgentMemory } = await import('../pi/binding.js');
  const box: { holder?: RuntimeHolder } = {};
  const auth = pi.AuthStorage.inMemory();
  auth.setRuntimeApiKey('faux', 'scripted');
  const modelRegistry = pi.ModelRegistry.inMemory(auth);
  const settingsManager = pi.SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
  const resourceLoader = new pi.DefaultResourceLoader({
    cwd: options.cwd,
    agentDir: options.agentDir,
    settingsManager,
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    extensionFactories: [
      (api) => {
        box.holder = registerAgentMemory(api, options.memory);
      },
    ],
  });
  await resourceLoader.reload();
  const { session } = await pi.createAgentSession({
    cwd: options.cwd,
    agentDir: options.agentDir,
    model: options.faux.getModel(),
    authStorage: auth,
    modelRegistry,
    settingsManager,
    resourceLoader,
    sessionManager: pi.SessionManager.create(options.cwd, path.resolve(options.sessionsDir)),
    noTools: 'builtin',
  });
  const { ui, events } = recordingUi(options.onUi);
  await session.bindExtensions({ uiContext: ui });
  const holder = box.holder;
  if (holder === undefined) throw new Error('pi did not load the agent-memory extension');
  return {
    session,
    holder,
    ui: events,
    close: async () => {
      await session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' } as never);
      session.dispose();
    },
  };
};
