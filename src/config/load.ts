/**
 * Reads the user and project config files and resolves the effective config. Never writes:
 * a file with invalid JSON is reported (file, line:column, offset) and left exactly as it is.
 */
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { isLeft } from 'fp-ts/lib/Either.js';
import { parseJsonText } from './jsonText.js';
import { confineStateDir, isUnsafeFileError, readStateFileSync, trustUserDir } from '../adapters/fs/safeFile.js';
import { resolveConfig, trustedProjectsOf, type ConfigLayer, type FileScope, type ResolvedConfig } from './resolve.js';
import { knownBanksOf, type KnownBank } from './knownBanks.js';
import { rememberConfigSecrets } from './redactConfig.js';
import { errnoCode } from '../codecs/errno.js';

export interface LoadConfigOptions {
  readonly cwd: string;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `{state_dir}`; default `<cwd>/.pi`. */
  readonly stateDir?: string;
  /** The host's project trust (pi 0.79+); undefined when the host has none. See `decideTrust`. */
  readonly hostTrusted?: boolean | undefined;
}

/** A config file that is not valid JSON (or not readable): the whole file is skipped. */
export interface ConfigFileError {
  readonly _tag: 'ConfigFileError';
  readonly file: string;
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export interface ConfigFileState {
  readonly scope: FileScope;
  readonly path: string;
  readonly exists: boolean;
  /** SHA-256 of the bytes read, or `absent`: the precondition a later write checks. */
  readonly token: string;
  /** The parsed content when the file is valid JSON. */
  readonly data?: unknown;
  readonly error?: ConfigFileError;
}

export interface LoadedConfig extends ResolvedConfig {
  readonly files: { readonly user: ConfigFileState; readonly project: ConfigFileState };
  readonly errors: readonly ConfigFileError[];
  readonly stateDir: string;
  readonly cwd: string;
  readonly home: string;
  /** Banks the person's config names as personal, or as another trusted project's own (`knownBanks.ts`). */
  readonly knownBanks: readonly KnownBank[];
}

/** pi's agent dir: `PI_CODING_AGENT_DIR` as pi reads it (a leading `~` is the home), else `~/.pi/agent`. */
export const piAgentDir = (home: string, env: Readonly<Record<string, string | undefined>> = {}): string => {
  const fromEnv = env['PI_CODING_AGENT_DIR'];
  if (fromEnv === undefined || fromEnv === '') return path.join(home, '.pi', 'agent');
  if (fromEnv === '~') return home;
  return path.resolve(fromEnv.startsWith('~/') ? path.join(home, fromEnv.slice(2)) : fromEnv);
};

/** The user file lives in pi's agent dir, so it follows `PI_CODING_AGENT_DIR` like pi's own settings. */
const userConfigPath = (home: string, env: Readonly<Record<string, string | undefined>> = {}): string => path.join(piAgentDir(home, env), 'memory.json');
const projectConfigPath = (stateDir: string): string => path.join(stateDir, 'memory.json');

export const fileToken = (bytes: string | undefined): string =>
  bytes === undefined ? 'absent' : createHash('sha256').update(bytes).digest('hex');

/** A config file's state from its text (`undefined`: it does not exist); no I/O. */
export const configFileStateOf = (scope: FileScope, file: string, text: string | undefined): ConfigFileState => {
  if (text === undefined) return { scope, path: file, exists: false, token: 'absent' };
  const token = fileToken(text);
  const parsed = parseJsonText(text);
  if (isLeft(parsed)) {
    const { offset, line, column, reason } = parsed.left;
    const message = `${file}: invalid JSON at line ${line}:${column} (offset ${offset}): ${reason}; the file was not read and will not be overwritten`;
    return { scope, path: file, exists: true, token, error: { _tag: 'ConfigFileError', file, offset, line, column, message } };
  }
  return { scope, path: file, exists: true, token, data: parsed.right };
};

/** Reads and parses one config file; a missing file is fine, anything else wrong is an error. */
export const readConfigFile = (scope: FileScope, file: string): ConfigFileState => {
  let text: string | undefined;
  try {
    // No symbolic link, device or FIFO is followed and at most 1 MB is read: a repository can
    // commit `.pi/memory.json -> /dev/zero`.
    text = readStateFileSync(file);
  } catch (cause) {
    const code = errnoCode(cause);
    if (code === 'ENOTDIR') return { scope, path: file, exists: false, token: 'absent' };
    const message = isUnsafeFileError(cause) ? `${file}: config file not read: ${cause.reason}` : `${file}: cannot read config file (${code ?? 'error'})`;
    return { scope, path: file, exists: true, token: 'unreadable', error: { _tag: 'ConfigFileError', file, offset: 0, line: 1, column: 1, message } };
  }
  return configFileStateOf(scope, file, text);
};

const layerOf = (state: ConfigFileState): ConfigLayer | undefined =>
  state.data === undefined ? undefined : { scope: state.scope, path: state.path, data: state.data };

/** How many trusted projects' files are read for the banks they name (each at most 1 MB). */
const MAX_TRUSTED_FILES = 64;

/**
 * The banks the person's own files name: the user file, the user-bank variables, and the project
 * files of the projects the user file trusts (setup writes the personal bank there).
 */
const readKnownBanks = (user: ConfigLayer | undefined, home: string, env: Readonly<Record<string, string | undefined>>): KnownBank[] => {
  const trusted = trustedProjectsOf(user, home)
    .slice(0, MAX_TRUSTED_FILES)
    .flatMap((dir) => {
      const layer = layerOf(readConfigFile('project', projectConfigPath(path.join(dir, '.pi'))));
      return layer === undefined ? [] : [{ dir, layer }];
    });
  return knownBanksOf({ user, trusted, env });
};

/** Loads the effective config for a directory. Never throws for bad content; never writes. */
export const loadConfig = (options: LoadConfigOptions): LoadedConfig => {
  const cwd = path.resolve(options.cwd);
  const stateDir = path.resolve(cwd, options.stateDir ?? '.pi');
  // From here on no file in this project is opened, and no directory created, through a link
  // (pi's own agent directory, the user file's, stays the user's even when the project is home).
  confineStateDir(stateDir, cwd);
  const userFile = userConfigPath(options.home, options.env);
  trustUserDir(path.dirname(userFile));
  const user = readConfigFile('user', userFile);
  const project = readConfigFile('project', projectConfigPath(stateDir));
  const knownBanks = readKnownBanks(layerOf(user), options.home, options.env);
  const resolved = resolveConfig({ user: layerOf(user), project: layerOf(project), env: options.env, stateDir, home: options.home, hostTrusted: options.hostTrusted, userFile, projectDir: cwd, knownBanks });
  // From here on every redaction in this process hides the key values this config names.
  rememberConfigSecrets({ config: resolved.config, layers: [user.data, project.data], env: options.env });
  const errors = [user.error, project.error].filter((e): e is ConfigFileError => e !== undefined);
  return { ...resolved, files: { user, project }, errors, stateDir, cwd, home: options.home, knownBanks };
};
