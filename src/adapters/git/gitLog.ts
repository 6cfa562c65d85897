/**
 * Reads commit history for the git seed: HEAD and the newest commit subjects (merges left
 * out, they only restate their branches). Runs `git` as a child process with a timeout and
 * no terminal prompt; never throws, every failure is a tagged value a tool can explain.
 */
import { execFile } from 'node:child_process';
import { safeGitArgs } from './safeGit.js';
import * as E from 'fp-ts/lib/Either.js';
import type { GitCommit, GitLog, GitLogError, GitLogReader } from '../../effects/ports/git.js';
import { errnoCode } from '../../codecs/errno.js';

export type { GitCommit, GitLog, GitLogError } from '../../effects/ports/git.js';

export interface GitLogOptions {
  readonly limit: number;
  /** Per git call; default 5000 ms. */
  readonly timeoutMs?: number;
  readonly gitBinary?: string;
}

interface RunResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly missingBinary: boolean;
}

const run = (binary: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<RunResult> =>
  new Promise((resolve) => {
    execFile(
      binary,
      safeGitArgs(args),
      { cwd, timeout: timeoutMs, windowsHide: true, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } },
      (error, stdout, stderr) => {
        const code = errnoCode(error);
        resolve({ ok: error === null, stdout, stderr, missingBinary: code === 'ENOENT' });
      },
    );
  });

const SHA = /^[0-9a-f]{40}$/;

/** The SHA of HEAD, or a reason there is none. */
export const readGitHead = async (cwd: string, options: Omit<GitLogOptions, 'limit'> = {}): Promise<E.Either<GitLogError, string>> => {
  const git = options.gitBinary ?? 'git';
  const timeoutMs = options.timeoutMs ?? 5000;
  const inside = await run(git, ['rev-parse', '--is-inside-work-tree'], cwd, timeoutMs);
  if (inside.missingBinary) return E.left({ _tag: 'gitFailed', message: `git is not installed or not on PATH (${git})` });
  if (!inside.ok || inside.stdout.trim() !== 'true') return E.left({ _tag: 'notARepository', message: `Not a git repository: ${cwd}` });
  const head = await run(git, ['rev-parse', '--verify', '--quiet', 'HEAD'], cwd, timeoutMs);
  const sha = head.stdout.trim();
  if (!head.ok || !SHA.test(sha)) return E.left({ _tag: 'noHead', message: 'Could not resolve git HEAD (a repository without commits?)' });
  return E.right(sha);
};

/** HEAD and up to `limit` newest non-merge commits reachable from it. */
export const readGitLog = async (cwd: string, options: GitLogOptions): Promise<E.Either<GitLogError, GitLog>> => {
  const head = await readGitHead(cwd, options);
  if (E.isLeft(head)) return head;
  const git = options.gitBinary ?? 'git';
  const log = await run(git, ['log', `-n${Math.max(1, Math.floor(options.limit))}`, '--no-merges', '--format=%H%x09%s', head.right], cwd, options.timeoutMs ?? 5000);
  if (!log.ok) return E.left({ _tag: 'gitFailed', message: `git log failed: ${log.stderr.trim().split('\n')[0] ?? 'unknown error'}` });
  const commits: GitCommit[] = [];
  for (const line of log.stdout.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const sha = line.slice(0, tab);
    if (SHA.test(sha)) commits.push({ sha, subject: line.slice(tab + 1).trim() });
  }
  if (commits.length === 0) return E.left({ _tag: 'noCommits', message: 'No commits found for git seed (only merges, or an empty history)' });
  return E.right({ head: head.right, commits });
};

/** The port over the real git binary. */
export const gitLogReader: GitLogReader = {
  readLog: (cwd, limit) => readGitLog(cwd, { limit }),
  readHead: (cwd) => readGitHead(cwd),
};
