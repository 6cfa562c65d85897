import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGitHead, readGitLog } from '../../../src/adapters/git/gitLog.js';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' },
  }).trim();

const commit = (cwd: string, file: string, subject: string): void => {
  writeFileSync(path.join(cwd, file), `${subject}\n`, { flag: 'a' });
  git(cwd, 'add', file);
  git(cwd, 'commit', '-q', '-m', subject);
};

let root: string;
let repo: string;
let empty: string;
let plain: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'am-gitlog-'));
  repo = path.join(root, 'repo');
  empty = path.join(root, 'empty');
  plain = path.join(root, 'plain');
  for (const dir of [repo, empty]) {
    mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
  }
  mkdirSync(plain, { recursive: true });
  commit(repo, 'a.txt', 'first commit');
  commit(repo, 'a.txt', 'second: with a\ttab');
  git(repo, 'checkout', '-q', '-b', 'feature');
  commit(repo, 'b.txt', 'feature work');
  git(repo, 'checkout', '-q', 'main');
  commit(repo, 'c.txt', 'third on main');
  git(repo, 'merge', '-q', '--no-ff', '-m', 'Merge branch feature', 'feature');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('readGitLog', () => {
  it('lists non-merge commits newest first with full shas and HEAD', async () => {
    const result = await readGitLog(repo, { limit: 10 });
    if (E.isLeft(result)) throw new Error(result.left.message);
    expect(result.right.head).toBe(git(repo, 'rev-parse', 'HEAD'));
    const subjects = result.right.commits.map((c) => c.subject);
    expect(subjects).not.toContain('Merge branch feature');
    expect(subjects).toHaveLength(4);
    expect(subjects[subjects.length - 1]).toBe('first commit');
    expect(subjects).toContain('second: with a\ttab');
    for (const c of result.right.commits) expect(c.sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it('honours the limit', async () => {
    const result = await readGitLog(repo, { limit: 2 });
    if (E.isLeft(result)) throw new Error(result.left.message);
    expect(result.right.commits).toHaveLength(2);
  });

  it('says when the directory is not a repository', async () => {
    const result = await readGitLog(plain, { limit: 5 });
    expect(E.isLeft(result) && result.left._tag).toBe('notARepository');
  });

  it('says when the repository has no commits', async () => {
    const result = await readGitHead(empty);
    expect(E.isLeft(result) && result.left._tag).toBe('noHead');
    expect(E.isLeft(result) && result.left.message).toContain('Could not resolve git HEAD');
  });

  it('reports a missing git binary without throwing', async () => {
    const result = await readGitHead(repo, { gitBinary: path.join(root, 'no-such-git') });
    expect(E.isLeft(result) && result.left._tag).toBe('gitFailed');
  });
});
