/**
 * Whether the user's API key may go to the effective server. A project file comes from a
 * repository someone else may have written: if it moves `baseUrl` to a new origin or names a
 * different `apiKeyEnv`, the key is withheld until the user file trusts that origin
 * (`memory.trustedOrigins`). The key is only attached when `keyAllowed` is true.
 */
import { createHash } from 'node:crypto';
import { urlOrigin } from './codecs.js';
import type { FieldName, MemoryConfig } from './fields.js';

export type ConfigSource = 'default' | 'user' | 'project' | 'env';

export interface KeyTrust {
  /** Origin of the effective baseUrl. */
  readonly origin: string;
  /** Where the effective baseUrl and apiKeyEnv came from. */
  readonly baseUrlSource: ConfigSource;
  readonly apiKeyEnvSource: ConfigSource;
  /** Origins the key may go to: the one chosen without the project file, plus the user's list. */
  readonly trustedOrigins: readonly string[];
  /** The origin the key may be sent to now, or null when it is withheld. */
  readonly keyAllowedFor: string | null;
  readonly keyAllowed: boolean;
  readonly reason: string;
}

export interface TrustInput {
  readonly config: MemoryConfig;
  readonly sources: Readonly<Record<FieldName, ConfigSource>>;
  /** baseUrl and apiKeyEnv as they resolve without the project file. */
  readonly baseline: { readonly baseUrl: string; readonly apiKeyEnv: string | undefined };
}

export const computeTrust = ({ config, sources, baseline }: TrustInput): KeyTrust => {
  const origin = urlOrigin(config.baseUrl) ?? config.baseUrl;
  const baselineOrigin = urlOrigin(baseline.baseUrl) ?? baseline.baseUrl;
  const listed = config.trustedOrigins.map((o) => urlOrigin(o) ?? o);
  const trustedOrigins = [...new Set([baselineOrigin, ...listed])];
  const common = { origin, baseUrlSource: sources.baseUrl, apiKeyEnvSource: sources.apiKeyEnv, trustedOrigins };
  if (!trustedOrigins.includes(origin)) {
    return {
      ...common,
      keyAllowedFor: null,
      keyAllowed: false,
      reason: `the project file points baseUrl at ${origin}, which the user file does not trust; add it to memory.trustedOrigins in ~/.pi/agent/memory.json to send the API key there`,
    };
  }
  // A project-chosen variable could be any secret in the environment: only read it for an
  // origin the user listed explicitly.
  if (sources.apiKeyEnv === 'project' && config.apiKeyEnv !== baseline.apiKeyEnv && !listed.includes(origin)) {
    return {
      ...common,
      keyAllowedFor: null,
      keyAllowed: false,
      reason: `the project file names apiKeyEnv ${config.apiKeyEnv ?? ''}; list ${origin} in memory.trustedOrigins in ~/.pi/agent/memory.json to use it`,
    };
  }
  return { ...common, keyAllowedFor: origin, keyAllowed: true, reason: `key may be sent to ${origin}` };
};

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
  return { _tag: 'key', key: config.apiKeyDirect as string, from: 'user file (apiKeyDirect)' };
};

/** A key shown as facts, never as text: length and the first 8 hex of its SHA-256. */
export const describeKey = (key: string): string =>
  `${key.length} chars, fingerprint ${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
