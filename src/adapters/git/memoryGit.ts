/**
 * The in-memory twin of `GitLogReader`: repositories are lists of commits by directory,
 * newest first, with the same failures the real reader reports (no repository, no HEAD,
 * only merges).
 */
import * as E from 'fp-ts/lib/Either.js';
import type { GitCommit, GitLogReader } from '../../effects/ports/git.js';

export interface MemoryCommit extends GitCommit {
  /** Merges are left out of the log, as `git log --no-merges` does. */
  readonly merge?: boolean;
}

export interface MemoryGit extends GitLogReader {
  /** Creates (or replaces) a repository at `cwd`; commits newest first, `[]` for no commits yet. */
  setRepository(cwd: string, commits: readonly MemoryCommit[]): void;
}

export const createMemoryGit = (): MemoryGit => {
  const repos = new Map<string, readonly MemoryCommit[]>();
  const readHead: GitLogReader['readHead'] = async (cwd) => {
    const commits = repos.get(cwd);
    if (commits === undefined) return E.left({ _tag: 'notARepository', message: `Not a git repository: ${cwd}` });
    const head = commits[0];
    if (head === undefined) return E.left({ _tag: 'noHead', message: 'Could not resolve git HEAD (a repository without commits?)' });
    return E.right(head.sha);
  };
  return {
    setRepository: (cwd, commits) => {
      repos.set(cwd, [...commits]);
    },
    readHead,
    readLog: async (cwd, limit) => {
      const head = await readHead(cwd);
      if (E.isLeft(head)) return head;
      const commits = (repos.get(cwd) ?? [])
        .filter((c) => c.merge !== true)
        .slice(0, Math.max(1, Math.floor(limit)))
        .map(({ sha, subject }) => ({ sha, subject }));
      if (commits.length === 0) return E.left({ _tag: 'noCommits', message: 'No commits found for git seed (only merges, or an empty history)' });
      return E.right({ head: head.right, commits });
    },
  };
};
