/**
 * Drives the real pi host in-process (SDK + faux model provider, pi-host.md 3.1) with the
 * agent-memory extension bound through `extensionFactories`. UI calls are recorded.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  AuthStorage,
  createAgentSession,
  DefaultResourceLoader,
  ModelRegistry,
  SessionManager,
  SettingsManager,
  type AgentSession,
  type ExtensionUIContext,
} from '@mariozechner/pi-coding-agent';
import type { registerFauxProvider } from '@mariozechner/pi-ai';
import { registerAgentMemory, type AgentMemoryOptions } from '../../src/adapters/pi/binding.js';
import type { RuntimeHolder } from '../../src/adapters/pi/holder.js';

export interface UiRecord {
  readonly notifications: { text: string; level: string | undefined }[];
  readonly statuses: { key: string; text: string | undefined }[];
}

/** A UI context that records notify/setStatus and answers dialogs with nothing. */
export const recordingUi = (): { ui: ExtensionUIContext; record: UiRecord } => {
  const record: UiRecord = { notifications: [], statuses: [] };
  const ui = new Proxy({} as ExtensionUIContext, {
    get: (_target, prop) => {
      if (prop === 'notify') return (text: string, level?: string) => record.notifications.push({ text, level });
      if (prop === 'setStatus') return (key: string, text: string | undefined) => record.statuses.push({ key, text });
      if (prop === 'confirm') return async () => false;
      if (prop === 'theme') return undefined;
      return () => undefined;
    },
  });
  return { ui, record };
};

export interface Project {
  readonly cwd: string;
  readonly home: string;
  readonly sessionsDir: string;
  readonly agentDir: string;
}

/** A temp project whose `.pi/memory.json` points at `baseUrl` with an explicit coding bank. */
export const makeProject = async (baseUrl: string, extra: Record<string, unknown> = {}): Promise<Project> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-host-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(home, { recursive: true });
  const config = { memory: { baseUrl, timeoutMs: 5000 }, banks: { project: { bankId: 'host-test' } }, scope: { projectId: 'host-test-project' }, ...extra };
  await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify(config, null, 2));
  return { cwd, home, sessionsDir: path.join(root, 'sessions'), agentDir: path.join(root, 'agent') };
};

export type Faux = ReturnType<typeof registerFauxProvider>;

export interface HostSession {
  readonly session: AgentSession;
  readonly holder: RuntimeHolder;
  readonly ui: UiRecord;
  /** Emits `session_shutdown` (the SDK's dispose does not), then disposes. */
  close(): Promise<void>;
}

export const openHostSession = async (project: Project, faux: Faux, options: AgentMemoryOptions = {}): Promise<HostSession> => {
  const holderBox: { holder?: RuntimeHolder } = {};
  const auth = AuthStorage.inMemory();
  auth.setRuntimeApiKey('faux', 'x');
  const modelRegistry = ModelRegistry.inMemory(auth);
  const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
  const resourceLoader = new DefaultResourceLoader({
    cwd: project.cwd,
    agentDir: project.agentDir,
    settingsManager,
    noExtensions: true,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    extensionFactories: [
      (pi) => {
        holderBox.holder = registerAgentMemory(pi, { env: { HOME: project.home }, home: project.home, ...options });
      },
    ],
  });
  await resourceLoader.reload();
  const { session } = await createAgentSession({
    cwd: project.cwd,
    agentDir: project.agentDir,
    model: faux.getModel(),
    authStorage: auth,
    modelRegistry,
    settingsManager,
    resourceLoader,
    sessionManager: SessionManager.create(project.cwd, project.sessionsDir),
    noTools: 'builtin',
  });
  const { ui, record } = recordingUi();
  const errors: unknown[] = [];
  await session.bindExtensions({ uiContext: ui, onError: (e: unknown) => errors.push(e) } as never);
  if (holderBox.holder === undefined) throw new Error('the extension factory did not run');
  const holder = holderBox.holder;
  return {
    session,
    holder,
    ui: record,
    close: async () => {
      await session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' } as never);
      session.dispose();
    },
  };
};
