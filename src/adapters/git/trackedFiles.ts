/**
 * Which files git tracks inside memory's state directory. Git never ignores a tracked file, so
 * a repository that commits files under `.pi/memory/` (`git add -f`) gets whatever memory
 * writes at those paths (the last recall, the queue journal: conversation text) into the next
 * `git commit -a` or `git add -A`: the caller refuses memory there until the files are untracked.
 */
import { execFile, execFileSync } from 'node:child_process';
import { safeGitArgs } from './safeGit.js';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { escapeControls } from '../../config/memoryText.js';

/**
 * The tracked files under `dir`, relative to it (none when `dir` does not exist, is not in a
 * work tree, or git cannot answer within `timeoutMs`). `.gitignore` is left out: memory
 * rewrites it to ignore everything, and a tracked one then only shows as modified. Git is asked
 * from `from` (default the project directory above `{state_dir}/memory`) with `dir` as the
 * pathspec, never from inside `dir`: a repository's files there could be a repository of their
 * own (`safeGit.ts`).
 */
export const trackedFilesUnder = (dir: string, timeoutMs = 1000, from: string = path.dirname(path.dirname(dir))): Promise<readonly string[]> => {
  if (!existsSync(dir)) return Promise.resolve([]);
  const ask = lsFiles(dir, timeoutMs, from);
  return new Promise((resolve) => {
    execFile('git', ask.args, ask.options, (error, stdout) => resolve(error === null ? ask.names(stdout) : []));
  });
};

/**
 * `trackedFilesUnder`, waited for: asked only when the queue's journal is a file this process
 * has not read before (`openJsonlJournal`'s `refuseNewFile`), which is rare.
 */
export const trackedFilesUnderSync = (dir: string, timeoutMs = 1000, from: string = path.dirname(path.dirname(dir))): readonly string[] => {
  if (!existsSync(dir)) return [];
  const ask = lsFiles(dir, timeoutMs, from);
  try {
    return ask.names(execFileSync('git', ask.args, { ...ask.options, stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return [];
  }
};

const lsFiles = (dir: string, timeoutMs: number, from: string) => {
  const spec = path.relative(from, dir) || '.';
  const prefix = spec === '.' ? '' : `${spec.split(path.sep).join('/')}/`;
  return {
    args: safeGitArgs(['ls-files', '-z', '--', spec]),
    options: { cwd: from, timeout: timeoutMs, windowsHide: true, maxBuffer: 1024 * 1024, encoding: 'utf8' as const, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
    names: (stdout: string): readonly string[] =>
      stdout
        .split('\0')
        .map((name) => (name.startsWith(prefix) ? name.slice(prefix.length) : name))
        .filter((name) => name !== '' && name !== '.gitignore'),
  };
};

/** Why memory refuses a state directory git tracks files in, and the commands that end it. */
export const trackedRefusal = (memoryDir: string, projectDir: string, tracked: readonly string[]): string => {
  // Names a repository chose: shown with their controls escaped.
  const shown = tracked.slice(0, 3).map(escapeControls).join(', ') + (tracked.length > 3 ? ` and ${tracked.length - 3} more` : '');
  const relative = path.relative(projectDir, memoryDir) || '.';
  return `refusing ${memoryDir}: git tracks files in it (${shown}), so the next commit would carry the conversation memory writes there; run git rm -r --cached ${relative} in ${projectDir} and commit that`;
};
