/**
 * What the git seed and sync readiness need from git: `src/adapters/git/gitLog.ts` runs git,
 * `src/adapters/git/memoryGit.ts` is its in-memory twin.
 */
import type * as E from 'fp-ts/lib/Either.js';

export interface GitCommit {
  /** Full 40-hex SHA. */
  readonly sha: string;
  readonly subject: string;
}

export interface GitLog {
  readonly head: string;
  /** Newest first, merges left out. */
  readonly commits: readonly GitCommit[];
}

export type GitLogError =
  | { readonly _tag: 'notARepository'; readonly message: string }
  | { readonly _tag: 'noHead'; readonly message: string }
  | { readonly _tag: 'noCommits'; readonly message: string }
  | { readonly _tag: 'gitFailed'; readonly message: string };

export interface GitLogReader {
  /** HEAD and up to `limit` newest non-merge commits reachable from it. */
  readLog(cwd: string, limit: number): Promise<E.Either<GitLogError, GitLog>>;
  /** The SHA of HEAD, or a reason there is none. */
  readHead(cwd: string): Promise<E.Either<GitLogError, string>>;
}
