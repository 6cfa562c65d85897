/**
 * The one project every chaos pi process works on: temp dirs, the project file pointing at the
 * memory server, the user file that trusts it and names the key variable, and the pi extension
 * built from this checkout (rollup, as `npm run build` makes it) into the temp dir.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const repoRoot = resolve(import.meta.dirname, '..', '..', '..');

export const CHAOS_BANK = 'chaos';
/** The variable pi reads the key from (the user file's memory.apiKeyEnv). */
export const PI_KEY_ENV = 'AM_CHAOS_KEY';

export interface ChaosProject {
  readonly root: string;
  readonly cwd: string;
  readonly home: string;
  readonly agentDir: string;
  readonly stateDir: string;
  readonly serverData: string;
  readonly extension: string;
  dispose(): Promise<void>;
}

export const buildExtension = async (outDir: string): Promise<string> => {
  await run(process.execPath, [join(repoRoot, 'node_modules/rollup/dist/bin/rollup'), '-c', 'rollup.config.mjs', '--silent'], {
    cwd: repoRoot,
    env: { ...process.env, PI_ONLY: 'true', PI_OUT: outDir },
  });
  return join(outDir, 'index.mjs');
};

export const makeChaosProject = async (serverUrl: string): Promise<ChaosProject> => {
  const root = await mkdtemp(join(tmpdir(), 'am-chaos-'));
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  const agentDir = join(root, 'agent');
  await mkdir(join(cwd, '.pi'), { recursive: true });
  await writeFile(
    join(cwd, '.pi', 'memory.json'),
    JSON.stringify({ memory: { baseUrl: serverUrl, timeoutMs: 5000 }, banks: { project: { bankId: CHAOS_BANK } }, scope: { projectId: 'chaos-project' } }, null, 2),
  );
  // pi reads the user file from PI_CODING_AGENT_DIR; the agent-memory CLI from ~/.pi/agent.
  for (const dir of [join(home, '.pi', 'agent'), agentDir]) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [serverUrl], apiKeyEnv: PI_KEY_ENV } }));
  }
  const serverData = join(root, 'server-data');
  await mkdir(serverData);
  const extension = await buildExtension(join(root, 'extension'));
  return {
    root,
    cwd,
    home,
    agentDir,
    stateDir: join(cwd, '.pi', 'memory'),
    serverData,
    extension,
    dispose: () => rm(root, { recursive: true, force: true }),
  };
};
