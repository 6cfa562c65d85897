/**
 * Per-bank configuration (reference 1.4, `GET/PATCH/DELETE {b}/config`): the hierarchical
 * fields a bank may override, their resolved defaults for the embedded server, and the
 * check of a PATCH. Keys arrive in field form (`retain_chunk_size`) or env form
 * (`HINDSIGHT_API_RETAIN_CHUNK_SIZE`); anything else is refused with 400 before any write.
 */
import { JsonValue } from '../../codecs/codecs.js';

export const CONFIG_KIND = 'config';
export const CONFIG_OVERRIDES_ID = 'overrides';

type Check = (value: unknown) => boolean;

const text: Check = (v) => v === null || typeof v === 'string';
const flag: Check = (v) => typeof v === 'boolean';
const positiveInt: Check = (v) => typeof v === 'number' && Number.isInteger(v) && v > 0;
const trait: Check = (v) => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 5;
const oneOf =
  (...values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v);

interface ConfigField {
  readonly default: JsonValue;
  readonly check: Check;
  readonly expected: string;
}

/**
 * Defaults describe what this server does: extraction is `chunks` (one fact per chunk, no
 * LLM), observations are the deterministic consolidation, and there is no graph, temporal
 * or reranking arm to enable.
 */
const CONFIG_FIELDS: Readonly<Record<string, ConfigField>> = {
  reflect_mission: { default: null, check: text, expected: 'a string or null' },
  retain_mission: { default: null, check: text, expected: 'a string or null' },
  retain_extraction_mode: {
    default: 'chunks',
    check: oneOf('concise', 'verbose', 'custom', 'verbatim', 'chunks'),
    expected: 'one of concise, verbose, custom, verbatim, chunks',
  },
  retain_custom_instructions: { default: null, check: text, expected: 'a string or null' },
  retain_chunk_size: { default: 3000, check: positiveInt, expected: 'a positive integer' },
  retain_structured_chunk_size: { default: 3000, check: positiveInt, expected: 'a positive integer' },
  enable_observations: { default: true, check: flag, expected: 'a boolean' },
  observations_mission: { default: null, check: text, expected: 'a string or null' },
  enable_temporal_retrieval: { default: false, check: flag, expected: 'a boolean' },
  enable_graph_retrieval: { default: false, check: flag, expected: 'a boolean' },
  enable_reranking: { default: false, check: flag, expected: 'a boolean' },
  disposition_skepticism: { default: 3, check: trait, expected: 'an integer from 1 to 5' },
  disposition_literalism: { default: 3, check: trait, expected: 'an integer from 1 to 5' },
  disposition_empathy: { default: 3, check: trait, expected: 'an integer from 1 to 5' },
};

const ENV_PREFIX = 'HINDSIGHT_API_';

/** The field name of a key in either form, or undefined when it is not an overridable field. */
export const fieldName = (key: string): string | undefined => {
  const name = key.startsWith(ENV_PREFIX) ? key.slice(ENV_PREFIX.length).toLowerCase() : key;
  return Object.hasOwn(CONFIG_FIELDS, name) ? name : undefined;
};

export type ConfigOverrides = Record<string, JsonValue>;

/** Either the overrides a PATCH sets (field names), or the 400 message. */
export const checkConfigUpdates = (updates: Readonly<Record<string, unknown>>): { ok: ConfigOverrides } | { problem: string } => {
  const unknown = Object.keys(updates).filter((key) => fieldName(key) === undefined);
  if (unknown.length > 0) {
    return {
      problem: `Invalid config keys: ${unknown.join(', ')}. Only these fields can be overridden per bank: ${Object.keys(CONFIG_FIELDS).join(', ')}`,
    };
  }
  const out: ConfigOverrides = {};
  for (const [key, value] of Object.entries(updates)) {
    const name = fieldName(key);
    const field = name === undefined ? undefined : CONFIG_FIELDS[name];
    if (name === undefined || field === undefined || !field.check(value) || !JsonValue.is(value)) {
      return { problem: `Invalid value for config key ${name}: expected ${field?.expected ?? 'a known field'}, got ${JSON.stringify(value) ?? 'undefined'}` };
    }
    out[name] = value;
  }
  return { ok: out };
};

/** Every field, defaults overlaid with the bank's overrides. */
export const resolveConfig = (overrides: Readonly<ConfigOverrides>): ConfigOverrides => {
  const out: ConfigOverrides = {};
  for (const [name, field] of Object.entries(CONFIG_FIELDS)) out[name] = Object.hasOwn(overrides, name) ? (overrides[name] ?? null) : field.default;
  return out;
};

/** Null values dropped (the route omits nulls like upstream's response filter). */
export const withoutNulls = (config: Readonly<ConfigOverrides>): ConfigOverrides =>
  Object.fromEntries(Object.entries(config).filter(([, v]) => v !== null));

/** The profile view of a bank: config overlays disposition and mission (reflect_mission wins). */
export const profileOverlay = (
  bank: { readonly disposition: { skepticism: number; literalism: number; empathy: number }; readonly mission: string },
  overrides: Readonly<ConfigOverrides>,
): { disposition: { skepticism: number; literalism: number; empathy: number }; mission: string } => {
  const num = (key: string, fallback: number): number => {
    const v = overrides[key];
    return typeof v === 'number' ? v : fallback;
  };
  const mission = overrides['reflect_mission'];
  return {
    disposition: {
      skepticism: num('disposition_skepticism', bank.disposition.skepticism),
      literalism: num('disposition_literalism', bank.disposition.literalism),
      empathy: num('disposition_empathy', bank.disposition.empathy),
    },
    mission: typeof mission === 'string' ? mission : bank.mission,
  };
};
