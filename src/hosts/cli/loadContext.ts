/** Config and scope of a directory, as every CLI command needs them. */
import { homedir } from 'node:os';
import { readGitInfo } from '../../adapters/git/gitInfo.js';
import { loadConfig, type LoadedConfig } from '../../config/load.js';
import { resolveScope, type Scope } from '../../config/scope.js';
import { bankScopeInput } from '../../config/knownBanks.js';

export interface CliContext {
  readonly loaded: LoadedConfig;
  readonly scope: Scope;
}

export const loadCliContext = async (cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<CliContext> => {
  const loaded = loadConfig({ cwd, home: env['HOME'] ?? homedir(), env });
  const git = await readGitInfo(cwd);
  const scope = resolveScope(loaded.config, { cwd, repoRoot: git.repoRoot, gitRemote: git.remoteUrl, ...bankScopeInput(loaded) });
  return { loaded, scope };
};
