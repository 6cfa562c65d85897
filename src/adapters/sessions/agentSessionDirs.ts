/**
 * Where other coding agents keep this project's sessions, for `import --all`.
 * - Claude Code: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<cwd encoded>`; the encoding turns
 *   `/` into `-` (and, in later versions, every character that is not a letter or digit), so
 *   both spellings are tried.
 * - Codex: `<CODEX_HOME or ~/.codex>/sessions`, every project together by date; the reader
 *   skips another project's rollout at its first line, which records the working directory.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { normaliseCwd } from './piSessionFiles.js';

type Env = Readonly<Record<string, string | undefined>>;

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

export const claudeCodeSessionDirs = (cwd: string, env: Env, home: string): string[] => {
  const root = path.join(nonEmpty(env['CLAUDE_CONFIG_DIR']) ?? path.join(home, '.claude'), 'projects');
  const resolved = normaliseCwd(cwd);
  const spellings = new Set([resolved.replace(/[/\\:]/g, '-'), resolved.replace(/[^A-Za-z0-9]/g, '-')]);
  return [...spellings].map((name) => path.join(root, name));
};

export const codexSessionDir = (env: Env, home: string): string => path.join(nonEmpty(env['CODEX_HOME']) ?? path.join(home, '.codex'), 'sessions');

/** The other agents' session directories for `cwd` that exist. */
export const otherAgentSessionDirs = (cwd: string, env: Env, home: string): string[] =>
  [...claudeCodeSessionDirs(cwd, env, home), codexSessionDir(env, home)].filter((dir) => existsSync(dir));
