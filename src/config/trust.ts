/**
 * Whether memory may run for this project, and whether the user's API key may go with it.
 *
 * A project file comes from a repository someone else may have written. If it points memory
 * at a server the user file does not trust, or names a different key variable, the whole
 * conversation (not only the key) would go where the repository's author chose: so memory is
 * off for the project (no probe, no recall, no retain, no tool call to the server) until the
 * user trusts that origin in the user file (`memory.trustedOrigins`). When the host has its
 * own notion of project trust (pi 0.79 `ctx.isProjectTrusted()`), an untrusted project's file
 * may move nothing, whatever the user file lists. `decideTrust` is the one place this rule
 * lives.
 */
import { urlOrigin } from './codecs.js';
import type { FieldName, MemoryConfig } from './fields.js';

export type ConfigSource = 'default' | 'user' | 'project' | 'env';

/** Which rule decided: the doctor names it. */
export type TrustRule =
  /** The project file moves nothing: the user's (or default) server and key variable. */
  | 'user-config'
  /** The project file moves memory to an origin the user file lists. */
  | 'trusted-origin'
  /** The project file moves memory to an origin the user file does not list. */
  | 'untrusted-origin'
  /** The project file names another key variable for an origin the user file does not list. */
  | 'untrusted-key-variable'
  /** The host says the project is not trusted, and its file moves memory. */
  | 'host-untrusted';

export interface KeyTrust {
  /** Origin of the effective baseUrl. */
  readonly origin: string;
  /** Where the effective baseUrl and apiKeyEnv came from. */
  readonly baseUrlSource: ConfigSource;
  readonly apiKeyEnvSource: ConfigSource;
  /** Origins memory may use: the one chosen without the project file, plus the user's list. */
  readonly trustedOrigins: readonly string[];
  /** False: the project file moved memory somewhere untrusted, and memory is off here. */
  readonly memoryAllowed: boolean;
  /** The origin the key may be sent to now, or null when it is withheld. */
  readonly keyAllowedFor: string | null;
  readonly keyAllowed: boolean;
  readonly rule: TrustRule;
  /** Why, in a sentence a user reads in the footer detail, doctor and status. */
  readonly reason: string;
  /** What the user does to trust it; absent when memory is allowed. */
  readonly remedy?: string;
  /** The host's verdict, when it gave one. */
  readonly hostTrusted?: boolean;
  /** The user file as a person reads its path, for the messages that send them there. */
  readonly userFile: string;
}

export interface TrustInput {
  readonly config: MemoryConfig;
  readonly sources: Readonly<Record<FieldName, ConfigSource>>;
  /** baseUrl and apiKeyEnv as they resolve without the project file. */
  readonly baseline: { readonly baseUrl: string; readonly apiKeyEnv: string | undefined };
  /** The host's project trust (pi 0.79+); undefined when the host has none. */
  readonly hostTrusted?: boolean | undefined;
  /** The user file as a person reads its path (`PI_CODING_AGENT_DIR` moves it); default `~/.pi/agent/memory.json`. */
  readonly userFile?: string;
}

const USER_FILE = '~/.pi/agent/memory.json';
const PROJECT_FILE = '.pi/memory.json';

/** The one trust rule. Pure. */
export const decideTrust = ({ config, sources, baseline, hostTrusted, userFile = USER_FILE }: TrustInput): KeyTrust => {
  const origin = urlOrigin(config.baseUrl) ?? config.baseUrl;
  const baselineOrigin = urlOrigin(baseline.baseUrl) ?? baseline.baseUrl;
  const listed = config.trustedOrigins.map((o) => urlOrigin(o) ?? o);
  const trustedOrigins = [...new Set([baselineOrigin, ...listed])];
  const common = {
    origin,
    baseUrlSource: sources.baseUrl,
    apiKeyEnvSource: sources.apiKeyEnv,
    trustedOrigins,
    userFile,
    ...(hostTrusted === undefined ? {} : { hostTrusted }),
  };
  const movesServer = sources.baseUrl === 'project' && origin !== baselineOrigin;
  const movesKey = sources.apiKeyEnv === 'project' && config.apiKeyEnv !== baseline.apiKeyEnv;
  if (!movesServer && !movesKey) {
    return { ...common, memoryAllowed: true, keyAllowedFor: origin, keyAllowed: true, rule: 'user-config', reason: `memory uses ${origin}, chosen outside the project file` };
  }
  const what = [
    ...(movesServer ? [`points memory at ${origin}`] : []),
    ...(movesKey ? [`names the key variable ${config.apiKeyEnv ?? '(none)'}`] : []),
  ].join(' and ');
  const off = (rule: TrustRule, why: string, remedy: string): KeyTrust => ({
    ...common,
    memoryAllowed: false,
    keyAllowedFor: null,
    keyAllowed: false,
    rule,
    reason: `memory is off for this project: its ${PROJECT_FILE} ${what}, ${why}`,
    remedy,
  });
  const listIt = `add "${origin}" to memory.trustedOrigins in ${userFile}`;
  const orRemove = `or remove ${[...(movesServer ? ['memory.baseUrl'] : []), ...(movesKey ? ['memory.apiKeyEnv'] : [])].join(' and ')} from ${PROJECT_FILE}`;
  if (hostTrusted === false) {
    return off('host-untrusted', 'and pi does not trust this project', `trust the project in pi and ${listIt}, ${orRemove}`);
  }
  if (!listed.includes(origin)) {
    return movesServer
      ? off('untrusted-origin', `which ${userFile} does not trust`, `to use it, ${listIt}; ${orRemove}`)
      : off('untrusted-key-variable', `and ${userFile} does not list ${origin} in memory.trustedOrigins`, `to use it, ${listIt}; ${orRemove}`);
  }
  return { ...common, memoryAllowed: true, keyAllowedFor: origin, keyAllowed: true, rule: 'trusted-origin', reason: `memory uses ${origin}, which ${userFile} lists in memory.trustedOrigins` };
};

/**
 * Which rule decided, as the doctor says it: whether the project file's server or key
 * variable was honoured, and because of what (pi's project trust, memory.trustedOrigins).
 * `inPi` is false for a shell command: no pi is there to ask, so the verdict says what pi
 * would add (only where pi's trust can still change it), not that "this pi" has none.
 */
export const trustVerdict = (trust: KeyTrust, inPi = true): string => {
  const pi =
    trust.hostTrusted === undefined ? (inPi ? ' (this pi has no project trust)' : '') : trust.hostTrusted ? '' : ' (pi does not trust this project; nothing moved)';
  switch (trust.rule) {
    case 'user-config':
      // pi's trust decides nothing here unless it refused the project: no "(this pi has no project trust)".
      return `project config chooses no server or key variable: ${trust.origin} comes from ${trust.userFile} or the defaults${trust.hostTrusted === false ? pi : ''}`;
    case 'trusted-origin':
      if (trust.hostTrusted === true) return `project config honoured: pi trusts this project and ${trust.origin} is in memory.trustedOrigins`;
      return `project config honoured: ${trust.origin} is in memory.trustedOrigins${pi}${inPi || trust.hostTrusted !== undefined ? '' : ' (in pi 0.79 or later, only if pi trusts this project)'}`;
    case 'host-untrusted':
      return 'project config refused, memory off: pi does not trust this project';
    case 'untrusted-origin':
      return `project config refused, memory off: origin ${trust.origin} is not in memory.trustedOrigins${pi}`;
    case 'untrusted-key-variable':
      return `project config refused, memory off: it names another key variable and ${trust.origin} is not in memory.trustedOrigins${pi}`;
  }
};

/** The sentence the footer detail, doctor and tools show when memory is off by trust. */
export const trustNotice = (trust: KeyTrust): string | undefined =>
  trust.memoryAllowed ? undefined : `${trust.reason}. ${trust.remedy ?? ''}`.trim();

export type ApiKeyResolution =
  | { readonly _tag: 'key'; readonly key: string; readonly from: string }
  | { readonly _tag: 'none'; readonly reason: string }
  | { readonly _tag: 'withheld'; readonly reason: string };

/**
 * The API key to attach to requests, read from the environment variable the config names,
 * else the user file's `apiKeyDirect` — only when trust allows it.
 */
export const resolveApiKey = (
  resolved: { readonly config: MemoryConfig; readonly trust: KeyTrust },
  env: Readonly<Record<string, string | undefined>>,
): ApiKeyResolution => {
  const { config, trust } = resolved;
  const fromEnv = config.apiKeyEnv === undefined ? undefined : env[config.apiKeyEnv];
  const hasKey = (fromEnv !== undefined && fromEnv.length > 0) || config.apiKeyDirect !== undefined;
  if (!hasKey) {
    return {
      _tag: 'none',
      reason: config.apiKeyEnv === undefined ? 'no API key configured' : `environment variable ${config.apiKeyEnv} is not set`,
    };
  }
  if (!trust.keyAllowed) return { _tag: 'withheld', reason: trust.reason };
  if (fromEnv !== undefined && fromEnv.length > 0) return { _tag: 'key', key: fromEnv, from: `env var ${config.apiKeyEnv ?? ''}` };
  // Set: hasKey holds and the environment gave none.
  return { _tag: 'key', key: config.apiKeyDirect ?? '', from: 'user file (apiKeyDirect)' };
};


