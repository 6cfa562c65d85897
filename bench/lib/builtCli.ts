/**
 * The built CLI a bench measures (`dist/cli.mjs`: the process a user runs, no tsx in it),
 * built again when any source file is newer than it, so a bench never measures old code.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const newestMtime = (dir: string): number => {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
};

export const builtCli = (repo: string): string => {
  const cli = join(repo, 'dist', 'cli.mjs');
  const stale = !existsSync(cli) || statSync(cli).mtimeMs < Math.max(newestMtime(join(repo, 'src')), statSync(join(repo, 'package.json')).mtimeMs);
  if (stale) {
    const build = spawnSync('npm', ['run', '--silent', 'build:js'], { cwd: repo, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build:js failed: the bench would measure an old build');
  }
  return cli;
};
