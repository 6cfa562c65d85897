/**
 * A project for the memory browser's tests: its config points at a test server that requires
 * a key, which the user file names by environment variable and trusts, as a user would set it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { call } from '../helpers/embeddedServer.js';

export interface UiProject {
  /** Removes the project, its home and everything written under them. */
  dispose(): Promise<void>;
  readonly cwd: string;
  readonly home: string;
  readonly agentDir: string;
  readonly env: NodeJS.ProcessEnv;
}

export const KEY_ENV = 'AM_UI_TEST_KEY';

export const makeUiProject = async (baseUrl: string, key: string, bankId: string): Promise<UiProject> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-ui-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  const agentDir = path.join(home, '.pi', 'agent');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(agentDir, { recursive: true });
  await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl, timeoutMs: 5000 }, banks: { project: { bankId } }, scope: { projectId: 'ui-test-project' } }));
  await writeFile(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [baseUrl], apiKeyEnv: KEY_ENV } }));
  return { dispose: () => rm(root, { recursive: true, force: true }), cwd, home, agentDir, env: { PATH: process.env['PATH'] ?? '', HOME: home, PI_CODING_AGENT_DIR: agentDir, [KEY_ENV]: key } };
};

export interface Seed {
  readonly content: string;
  readonly document_id: string;
  readonly tags?: readonly string[];
  readonly context?: string;
  readonly timestamp?: string;
}

/** Retains items synchronously through the server's own route, with its key. */
export const seed = async (server: { readonly url: string }, key: string, bankId: string, items: readonly Seed[]): Promise<void> => {
  const res = await call(server, 'POST', `/v1/default/banks/${bankId}/memories`, { items, async: false }, { Authorization: `Bearer ${key}` });
  if (res.status !== 200) throw new Error(`seed failed: ${res.status} ${JSON.stringify(res.body)}`);
};
