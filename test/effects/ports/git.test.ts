/** The git binary adapter and its in-memory twin keep the same contract. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gitLogReader } from '../../../src/adapters/git/gitLog.js';
import { createMemoryGit } from '../../../src/adapters/git/memoryGit.js';
import { describeGitConformance } from './conformance/git.js';

const temp = (): Promise<string> => mkdtemp(path.join(tmpdir(), 'am-git-'));
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });

describeGitConformance('git binary', () => ({
  reader: gitLogReader,
  repository: async (subjects) => {
    const cwd = await temp();
    git(cwd, 'init', '-q');
    subjects.forEach((subject, i) => {
      const date = `2026-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`;
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', subject], {
        cwd,
        env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      });
    });
    // A merge on top (of the tip and its parent): the log leaves it out.
    const merge = git(cwd, 'commit-tree', 'HEAD^{tree}', '-p', 'HEAD', '-p', 'HEAD~1', '-m', 'merge side').trim();
    git(cwd, 'reset', '-q', '--hard', merge);
    return cwd;
  },
  emptyRepository: async () => {
    const cwd = await temp();
    git(cwd, 'init', '-q');
    return cwd;
  },
  plainDirectory: temp,
}));

describeGitConformance('memory git (twin)', () => {
  const twin = createMemoryGit();
  let n = 0;
  const sha = (text: string): string => createHash('sha1').update(text).digest('hex');
  return {
    reader: twin,
    repository: async (subjects) => {
      const cwd = `/repo-${++n}`;
      const commits = subjects.map((subject, i) => ({ sha: sha(`${cwd}:${i}`), subject })).reverse();
      twin.setRepository(cwd, [{ sha: sha(`${cwd}:merge`), subject: 'merge side', merge: true }, ...commits]);
      return cwd;
    },
    emptyRepository: async () => {
      const cwd = `/empty-${++n}`;
      twin.setRepository(cwd, []);
      return cwd;
    },
    plainDirectory: async () => `/plain-${++n}`,
  };
});
