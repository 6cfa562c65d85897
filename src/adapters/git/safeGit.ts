/**
 * What every git call memory makes is run with. A repository's files can be a git repository
 * of their own: a committed directory holding `HEAD`, `config`, `objects/` and `refs/` is a bare
 * repository to git's discovery (the "embedded bare repository" attack), and its `config` may
 * set `core.fsmonitor`, a command `git ls-files` and `git status` run. A clone carries no
 * `.git/config`, but it carries such a directory. So discovery never takes a bare repository it
 * was not pointed at, and no fsmonitor hook runs (`test/security/embeddedBareRepo.test.ts`).
 * `log.showSignature` would run `gpg.program` from the same config on `git log`.
 */
export const SAFE_GIT_CONFIG: readonly string[] = ['-c', 'safe.bareRepository=explicit', '-c', 'core.fsmonitor=false', '-c', 'log.showSignature=false'];

/** `args` with the safe configuration first. */
export const safeGitArgs = (args: readonly string[]): string[] => [...SAFE_GIT_CONFIG, ...args];
