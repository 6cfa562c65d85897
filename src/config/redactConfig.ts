/**
 * Which secret values a loaded config makes known: the value of every environment variable
 * any config layer names as the key variable (even one that trust refused: a repository that
 * names `AWS_SECRET_ACCESS_KEY` makes that value one to hide), the variables the environment
 * bindings read the key from, and `apiKeyDirect`.
 */
import type { MemoryConfig } from './fields.js';
import { configFields } from './fields.js';
import { rememberSecretValues } from './redactKnown.js';

type Env = Readonly<Record<string, string | undefined>>;

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** `memory.apiKeyEnv` and `memory.apiKeyDirect` as a file wrote them, whatever their validity. */
const rawKeyFields = (data: unknown): { names: string[]; direct: string[] } => {
  const memory = isObject(data) && isObject(data['memory']) ? data['memory'] : {};
  const text = (v: unknown): string[] => (typeof v === 'string' ? [v.trim()] : []);
  return { names: [...text(memory['apiKeyEnv']), ...text(memory['apiKeyEnvVar'])], direct: text(memory['apiKeyDirect']) };
};

export interface SecretSources {
  readonly config: Pick<MemoryConfig, 'apiKeyEnv' | 'apiKeyDirect'>;
  /** Raw data of the user and project files, as parsed. */
  readonly layers: readonly unknown[];
  readonly env: Env;
}

/** The names of every variable that holds (or may hold) the API key. */
const keyVariableNames = ({ config, layers, env }: SecretSources): string[] => {
  const bindingNames = (configFields.apiKeyEnv.env?.names ?? []).filter((n) => n !== 'MEMORY_API_KEY_REF');
  const ref = env['MEMORY_API_KEY_REF']?.trim();
  const names = [
    ...(config.apiKeyEnv === undefined ? [] : [config.apiKeyEnv]),
    ...bindingNames,
    ...(ref === undefined || ref === '' ? [] : [ref]),
    ...layers.flatMap((l) => rawKeyFields(l).names),
  ];
  return [...new Set(names.filter((n) => n !== ''))];
};

/** Every secret value the config makes known. */
const secretValuesOf = (sources: SecretSources): string[] => {
  const fromEnv = keyVariableNames(sources).map((name) => sources.env[name]);
  const direct = [sources.config.apiKeyDirect, ...sources.layers.flatMap((l) => rawKeyFields(l).direct)];
  return [...fromEnv, ...direct].filter((v): v is string => v !== undefined && v.trim() !== '');
};

/** Adds the config's secret values to the process's redactor. */
export const rememberConfigSecrets = (sources: SecretSources): void => rememberSecretValues(secretValuesOf(sources));
