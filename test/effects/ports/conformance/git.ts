/** What every `GitLogReader` keeps: HEAD, newest non-merge commits first, and tagged failures. */
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { GitLogReader } from '../../../../src/effects/ports/git.js';

export interface GitSubject {
  readonly reader: GitLogReader;
  /** A repository with these commit subjects, oldest first, plus a merge after them; returns its directory. */
  repository(subjects: readonly string[]): Promise<string>;
  /** A repository with no commits. */
  emptyRepository(): Promise<string>;
  /** A directory that is not a repository. */
  plainDirectory(): Promise<string>;
}

export const describeGitConformance = (name: string, make: () => GitSubject): void => {
  describe(`GitLogReader conformance: ${name}`, () => {
    it('reads HEAD and the newest commits first, merges left out, up to the limit', async () => {
      const subject = make();
      const cwd = await subject.repository(['one', 'two', 'three']);
      const head = await subject.reader.readHead(cwd);
      const log = await subject.reader.readLog(cwd, 2);
      if (E.isLeft(head) || E.isLeft(log)) throw new Error('expected a log');
      expect(head.right).toMatch(/^[0-9a-f]{40}$/);
      expect(log.right.head).toBe(head.right);
      expect(log.right.commits.map((c) => c.subject)).toEqual(['three', 'two']);
      for (const commit of log.right.commits) expect(commit.sha).toMatch(/^[0-9a-f]{40}$/);
      const all = await subject.reader.readLog(cwd, 100);
      expect(E.isRight(all) && all.right.commits.map((c) => c.subject)).toEqual(['three', 'two', 'one']);
    });

    it('names a directory that is not a repository, and a repository without commits', async () => {
      const subject = make();
      const plain = await subject.reader.readLog(await subject.plainDirectory(), 10);
      expect(E.isLeft(plain) && plain.left._tag).toBe('notARepository');
      const empty = await subject.reader.readHead(await subject.emptyRepository());
      expect(E.isLeft(empty) && empty.left._tag).toBe('noHead');
    });
  });
};
