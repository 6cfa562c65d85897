/**
 * Test projects for the real pi host, driven in-process (SDK + faux model provider,
 * pi-host.md 3.1) by `src/hosts/demo/piHost.ts`, the same driver the main job uses, on the
 * pi line `hostLine.ts` names.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { AgentMemoryOptions } from '../../../src/hosts/pi/binding.js';
import { openPiHostSession, type Faux, type PiHostSession, type UiEvents } from '../../../src/hosts/demo/piHost.js';
import type { Context } from '@mariozechner/pi-ai';
import { hostLine } from './hostLine.js';

export type { Faux };
export type UiRecord = UiEvents;

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
  // The user trusts the test server: a project file may only point memory at a trusted origin.
  // The user file is ~/.pi/agent/memory.json, or memory.json in PI_CODING_AGENT_DIR when pi is given one.
  const agentDir = path.join(root, 'agent');
  for (const dir of [path.join(home, '.pi', 'agent'), agentDir]) {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [baseUrl] } }));
  }
  return { cwd, home, sessionsDir: path.join(root, 'sessions'), agentDir };
};

export type HostSession = PiHostSession;

/** One pi session on `project`, through the same in-process host the main job uses. */
export const openHostSession = (
  project: Project,
  faux: Faux,
  options: AgentMemoryOptions = {},
  settings?: Record<string, unknown>,
  host: { readonly projectTrusted?: boolean } = {},
): Promise<HostSession> =>
  openPiHostSession({
    cwd: project.cwd,
    agentDir: project.agentDir,
    sessionsDir: project.sessionsDir,
    faux,
    sdk: hostLine.sdk,
    ...(settings === undefined ? {} : { settings }),
    ...host,
    memory: { env: { HOME: project.home }, home: project.home, ...options },
  });

/** The opening tag of the automatic recall block in a model call's messages. */
export const RECALL_OPEN = '<memory-recall>';

/** A message's text blocks, joined (what a model call sees of it). */
export const textOf = (message: Context['messages'][number]): string => {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : '')).join('\n');
};
