/**
 * Reads what project identity needs from git: the main repository root (worktrees map to
 * the main checkout) and the raw `remote.origin.url` (read from config, so `insteadOf`
 * rewrites do not change the identity). Falls back to the nearest `.git`, then the cwd.
 */
import { execFile } from 'node:child_process';
import { safeGitArgs } from './safeGit.js';
import { existsSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

export interface GitInfo {
  /** Canonical (realpath) root of the main checkout, or the cwd when not in a repository. */
  readonly repoRoot: string;
  /** `remote.origin.url` as configured, when there is one. */
  readonly remoteUrl: string | undefined;
  readonly inRepository: boolean;
}

export interface ReadGitInfoOptions {
  /** Per git call; default 1000 ms. */
  readonly timeoutMs?: number;
  readonly gitBinary?: string;
}

const run = (binary: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<string | undefined> =>
  new Promise((resolve) => {
    execFile(binary, safeGitArgs(args), { cwd, timeout: timeoutMs, windowsHide: true, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }, (error, stdout) => {
      resolve(error === null ? stdout.trim() : undefined);
    });
  });

const canonical = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

const nearestGitParent = (start: string): string | undefined => {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
};

export const readGitInfo = async (cwd: string, options: ReadGitInfoOptions = {}): Promise<GitInfo> => {
  const timeoutMs = options.timeoutMs ?? 1000;
  const git = options.gitBinary ?? 'git';
  const out = await run(git, ['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel'], cwd, timeoutMs);
  let repoRoot: string | undefined;
  if (out !== undefined) {
    const [commonDir, topLevel] = out.split('\n');
    // A linked worktree's common dir is the main checkout's `.git`: its parent is the main root.
    if (commonDir !== undefined && path.basename(commonDir) === '.git') repoRoot = path.dirname(commonDir);
    else if (topLevel !== undefined && topLevel !== '') repoRoot = topLevel;
  }
  repoRoot ??= nearestGitParent(cwd);
  const inRepository = repoRoot !== undefined;
  const root = canonical(repoRoot ?? cwd);
  const remote = inRepository ? await run(git, ['config', '--get', 'remote.origin.url'], root, timeoutMs) : undefined;
  return { repoRoot: root, remoteUrl: remote === undefined || remote === '' ? undefined : remote, inRepository };
};
