/** What the git seed and sync readiness need from git; `src/adapters/git/gitLog.ts` implements it. */
import type * as E from 'fp-ts/lib/Either.js';
import type { GitLog, GitLogError } from '../../adapters/git/gitLog.js';

export interface GitLogReader {
  readLog(cwd: string, limit: number): Promise<E.Either<GitLogError, GitLog>>;
  readHead(cwd: string): Promise<E.Either<GitLogError, string>>;
}
