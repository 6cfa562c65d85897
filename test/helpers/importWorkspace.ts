/**
 * A project, a home and a folder of session files for a real import against a test server: the
 * user file points at the server (plus any `memory` fields given), the project file names the
 * bank and project id and says setup is complete.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export interface ImportWorkspace {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly sessions: string;
}

export const importWorkspace = async (
  prefix: string,
  options: { readonly serverUrl: string; readonly bankId: string; readonly projectId: string; readonly memory?: Readonly<Record<string, unknown>> },
): Promise<ImportWorkspace> => {
  const root = await mkdtemp(path.join(tmpdir(), prefix));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  const sessions = path.join(root, 'sessions');
  for (const d of [path.join(cwd, '.pi'), path.join(home, '.pi', 'agent'), sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: options.serverUrl, ...options.memory } }));
  writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: options.bankId } }, scope: { projectId: options.projectId }, setupComplete: true }));
  return { root, cwd, home, sessions };
};
