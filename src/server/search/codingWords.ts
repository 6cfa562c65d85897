/**
 * Coding talk's clipped words read as the words they stand for, in the note and the question
 * alike: "cfg" -> "config", "vers" -> "version", "fn" -> "function", "impl" ->
 * "implementation", "svc" -> "service". Written from how developers type to each other and to
 * an agent, not from a set's misses. Clippings that already name a thing in the coding
 * thesaurus ("db", "deps", "env", "repo", "perf", "prod", "k8s") stay there: the thesaurus
 * relates them to their kind as well. Left out where the letters are as often something else:
 * "dev" (developer or development), "sec" (seconds or security), "tmp", "min", "max", "ts".
 */

const TABLE: Readonly<Record<string, string>> = {
  cfg: 'config', cfgs: 'configs', conf: 'config', confs: 'configs',
  vers: 'version', ver: 'version',
  fn: 'function', fns: 'functions', func: 'function', funcs: 'functions',
  impl: 'implementation', impls: 'implementations',
  acct: 'account', accts: 'accounts',
  err: 'error', errs: 'errors',
  pkg: 'package', pkgs: 'packages',
  lib: 'library', libs: 'libraries',
  dir: 'directory', dirs: 'directories',
  req: 'request', reqs: 'requests', resp: 'response',
  arg: 'argument', args: 'arguments', param: 'parameter', params: 'parameters',
  var: 'variable', vars: 'variables',
  cmd: 'command', cmds: 'commands',
  svc: 'service', svcs: 'services',
  mgr: 'manager', ctx: 'context', num: 'number', mem: 'memory',
  perms: 'permissions', pw: 'password', passwd: 'password',
  stg: 'staging', gh: 'github',
};

/** The word a coding clipping stands for, lower case in and out; other words come back as they are. */
export const codingWord = (lower: string): string => (Object.hasOwn(TABLE, lower) ? (TABLE[lower] ?? lower) : lower);
