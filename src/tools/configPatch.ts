/**
 * memory_config's `patch` object, built from the single field table (`patchAllowlist`): one
 * typed key per allowlisted field, nothing else. `null` resets a key (removes it from the
 * file, so the layer below applies). Raw secrets are refused whatever the key.
 */
import * as t from 'io-ts';
import { agentLockedKeys, configFields, globalLockedKeys, patchAllowlist, type FieldName, type FieldSpec } from '../config/fields.js';
import { containsSecret } from '../config/redact.js';
import type { JsonSchema } from './params.js';

export type ConfigPatch = Readonly<Record<string, unknown>>;

const specOf = (name: FieldName): FieldSpec => configFields[name];

/** The JSON schema of one field's value, from its kind. */
const fieldValueSchema = (spec: FieldSpec): JsonSchema => {
  const base: JsonSchema = (() => {
    switch (spec.kind) {
      case 'boolean':
        return { type: 'boolean' };
      case 'positive-int':
        return { type: 'integer', minimum: 1 };
      case 'non-negative-int':
        return { type: 'integer', minimum: 0 };
      case 'select':
        return { type: 'string', enum: [...(spec.choices ?? [])] };
      case 'tags':
        return { type: 'array', items: { type: 'string', minLength: 1, maxLength: 128 } };
      case 'fact-types':
        return { type: 'array', items: { type: 'string', enum: [...(spec.choices ?? [])] } };
      case 'origins':
        return { type: 'array', items: { type: 'string' } };
      case 'url':
        return { type: 'string', format: 'uri' };
      case 'env-name':
        return { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' };
      default:
        return { type: 'string', minLength: 1 };
    }
  })();
  return { anyOf: [base, { type: 'null' }], description: `${spec.description} null resets it.` };
};

/** The user file when no path is known (the tool schema): where it is, in a person's words. */
const USER_FILE_WORDS = "the user file (memory.json in pi's agent directory, ~/.pi/agent unless PI_CODING_AGENT_DIR moves it)";

/** Why a locked field is refused, in the words the agent and the user read; `userFile` is the real path when known. */
export const lockedFieldText = (key: string, userFile?: string): string => {
  const name = agentLockedKeys.get(key);
  const why =
    name !== undefined && specOf(name).agentLockReason === 'identity'
      ? "it is the project's identity, which decides whose memories this session reads and writes"
      : 'it decides where memory is sent or which secret is read';
  return (
    `${key} cannot be changed by a tool call: ${why}. ` +
    `The user changes it in /memory settings or /memory setup (each shows the change and asks first), or by editing ${userFile === undefined ? USER_FILE_WORDS : `the user file ${userFile}`} by hand.`
  );
};

/** Why a field is refused in the user file: a switch would turn memory off in every project; a bank or tag filter decides whose memories every project reads and writes. */
export const globalLockedFieldText = (key: string, userFile: string): string => {
  const name = globalLockedKeys.get(key);
  const switchField = name === 'recallEnabled' || name === 'retainEnabled';
  const why = switchField ? 'it turns memory on or off in every project' : "it decides whose memories every project reads and writes (one steered session must not widen every project's recall)";
  return (
    `${key} cannot be changed in the user file (scope global) by a tool call: ${why}. ` +
    `Patch it in this project (scope project), or the user changes it in /memory settings or by editing ${userFile} by hand.`
  );
};

/** The patch keys a tool call may not write to the user file, in the order given. */
export const globalLockedKeysIn = (patch: ConfigPatch): string[] => Object.keys(patch).filter((key) => globalLockedKeys.has(key));

export const LOCKED_SUMMARY =
  `${[...new Set(agentLockedKeys.keys())].join(', ')} are never patchable by a tool call; the user changes them in /memory settings or setup, or by editing the file. ` +
  `${[...globalLockedKeys.keys()].join(', ')} are patchable in the project file only (scope project), never in the user file.`;

export const patchSchema = (): JsonSchema => ({
  type: 'object',
  properties: {
    ...Object.fromEntries([...patchAllowlist].map(([key, name]) => [key, fieldValueSchema(specOf(name))])),
    // Declared so the host passes them through and the refusal is ours, naming the field.
    ...Object.fromEntries([...agentLockedKeys.keys()].map((key) => [key, { description: `Refused: ${lockedFieldText(key)}` }])),
  },
  additionalProperties: false,
  description: `Allowlisted fields only: ${[...patchAllowlist.keys()].join(', ')}. ${LOCKED_SUMMARY} Raw API keys are never accepted.`,
});

/** The agent-locked keys a patch names, in the order given. */
export const lockedKeysIn = (patch: ConfigPatch): string[] => Object.keys(patch).filter((key) => agentLockedKeys.has(key));

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

const allowedText = () => [...patchAllowlist.keys()].join(', ');

/** Decodes a patch: each value by its field's codec, unknown keys and secret-looking text refused by name. */
export const ConfigPatchCodec = new t.Type<ConfigPatch, unknown, unknown>(
  'config patch',
  (u): u is ConfigPatch => isObject(u),
  (u, c) => {
    if (!isObject(u)) return t.failure(u, c, 'an object of allowlisted config fields');
    const errors: t.Errors = [];
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(u)) {
      const ctx = [...c, { key, type: t.unknown, actual: value }];
      // Kept (as a marker, never its value) so memory_config refuses it by name.
      if (agentLockedKeys.has(key)) {
        out[key] = null;
        continue;
      }
      const name = patchAllowlist.get(key);
      if (name === undefined) {
        errors.push({ value, context: ctx, message: `not allowlisted for agent patch (allowed: ${allowedText()})` });
        continue;
      }
      if (value === undefined) continue;
      if (value === null) {
        out[key] = null;
        continue;
      }
      const spec = specOf(name);
      if (typeof value === 'string' && containsSecret(value)) {
        errors.push({ value: '[REDACTED]', context: ctx, message: 'a value without secrets (raw keys are never accepted; set apiKeyEnvVar to the name of an environment variable)' });
        continue;
      }
      const decoded = spec.codec.validate(value, ctx);
      if (decoded._tag === 'Left') errors.push(...decoded.left);
      else if (decoded.right === undefined) errors.push({ value, context: ctx, message: `${spec.codec.name}` });
      else out[key] = decoded.right;
    }
    return errors.length > 0 ? t.failures(errors) : t.success(out);
  },
  t.identity,
);

/** The field a patch key sets, and where it lives in a file. */
export const patchTarget = (key: string): { readonly name: FieldName; readonly path: string; readonly spec: FieldSpec } | undefined => {
  const name = patchAllowlist.get(key);
  return name === undefined ? undefined : { name, path: specOf(name).path, spec: specOf(name) };
};
