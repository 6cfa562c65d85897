/**
 * memory_config: get the effective allowlisted settings (never a secret), or patch them in the
 * project or user file. A patch previews by default; it is decoded field by field from the
 * config table, checked against the setup rule, re-resolved to show what would take effect,
 * and only with dryRun:false written (atomically) and the config reloaded once.
 */
import type * as t from 'io-ts';
import { configFields, fieldList, patchAllowlist, type FieldName, type FieldSpec } from '../config/fields.js';
import { resolveConfig, type ConfigLayer, type FileScope } from '../config/resolve.js';
import type { MemoryConfig } from '../config/fields.js';
import { jsonCopy, type JsonValue } from '../codecs/codecs.js';
import { applyConfigEdit } from '../config/configEdit.js';
import { refusedProjectBank } from '../config/knownBanks.js';
import { ConfigPatchCodec, LOCKED_SUMMARY, globalLockedFieldText, globalLockedKeysIn, lockedFieldText, lockedKeysIn, patchSchema, patchTarget, type ConfigPatch } from './configPatch.js';
import type { ToolContext } from './context.js';
import { custom, oneOf, toolParams } from './params.js';
import { fail, ok, type ToolOutcome } from './result.js';
import { dryRunParam } from './sharedParams.js';
import { defineTool } from './tool.js';

export const MemoryConfigParams = toolParams(
  'memory_config',
  { action: oneOf(['get', 'patch'], 'get: effective values (no secrets) and the allowlist. patch: change allowlisted fields.') },
  {
    patch: custom(ConfigPatchCodec, patchSchema(), 'Typed allowlisted fields only; null resets a field.'),
    scope: oneOf(['project', 'global'], 'Which file to write: project ({state_dir}/memory.json, default) or global (~/.pi/agent/memory.json).', 'project'),
    dryRun: dryRunParam,
  },
);
export type MemoryConfigParams = t.TypeOf<typeof MemoryConfigParams.codec>;

const NOTE = `Secrets are never returned. Patch only allowlisted keys; dryRun defaults to true for patch. ${LOCKED_SUMMARY}`;

const specOf = (name: FieldName): FieldSpec => configFields[name];

const shown = (spec: FieldSpec, value: unknown): JsonValue => {
  if (spec.secret === true) return value === undefined ? 'not set' : '(set)';
  return value === undefined ? null : jsonCopy(value);
};

/** Allowlisted values keyed by patch key. */
const allowlistedValues = (config: MemoryConfig): Record<string, JsonValue> =>
  Object.fromEntries([...patchAllowlist].map(([key, name]) => [key, shown(specOf(name), config[name])]));

const valueText = (value: unknown): string => (value === null || value === undefined ? 'not set' : typeof value === 'string' ? value : JSON.stringify(value));

const getConfig = (ctx: ToolContext): ToolOutcome => {
  const { config, sources } = ctx.loaded;
  const values = allowlistedValues(config);
  const lines = [...patchAllowlist].map(([key, name]) => `  ${key} = ${valueText(values[key] ?? null)} (${sources[name]})`);
  // Shown, never patchable: where memory goes and which secret it reads.
  const lockedFields = fieldList.filter((f) => f.agentLocked === true);
  const locked = Object.fromEntries(lockedFields.map((f) => [f.patchKey ?? f.name, shown(f, config[f.name])]));
  const lockedLines = lockedFields.map(
    (f) => `  ${f.patchKey ?? f.name} = ${valueText(locked[f.patchKey ?? f.name] ?? null)} (${sources[f.name]}; ${f.agentLockReason === 'identity' ? 'project identity' : 'user-only'}, not patchable)`,
  );
  const text = [
    `memory_config (effective values; source in brackets; ${NOTE})`,
    ...lines,
    ...lockedLines,
    // Worded without `key:` so the redactor, which hides any `key: value`, leaves it readable.
    `Authentication: ${config.apiKeyEnv === undefined ? (config.apiKeyDirect === undefined ? 'no API key configured' : 'API key set in the user file') : `API key read from environment variable ${config.apiKeyEnv}`}`,
    ...ctx.loaded.errors.map((e) => `error: ${e.message}`),
  ].join('\n');
  return ok(text, {
    action: 'get',
    allowlist: [...patchAllowlist.keys()],
    values,
    locked,
    sources: Object.fromEntries([...patchAllowlist].map(([key, name]) => [key, sources[name]])),
    note: NOTE,
  });
};

/** The setup rule: in domain-tagged mode setupComplete needs the shared coding bank. */
const setupRuleViolation = (patch: ConfigPatch, after: MemoryConfig): string | undefined => {
  if (patch['setupComplete'] !== true) return undefined;
  if (after.scopeMode !== 'domain-tagged') return undefined;
  if (after.memoryProfile === 'global-only' || after.memoryProfile === 'recall-only') return undefined;
  if (after.projectBankId !== undefined) return undefined;
  return 'Cannot set setupComplete=true in domain-tagged mode without projectBankId. Set projectBankId first (in the same patch or before): it names the bank that holds the memory of all the user\'s projects.';
};

const layer = (scope: FileScope, file: string, data: unknown): ConfigLayer | undefined => (data === undefined ? undefined : { scope, path: file, data });

const patchConfig = async (params: MemoryConfigParams, ctx: ToolContext): Promise<ToolOutcome> => {
  const patch = params.patch;
  if (patch === undefined) return fail('invalidParams', 'tool memory_config: field patch: required for action patch. Nothing was changed.', { field: 'patch' });
  const locked = lockedKeysIn(patch);
  if (locked.length > 0) {
    return fail('rejected', `${locked.map((key) => lockedFieldText(key, ctx.loaded.trust.userFile)).join(' ')} Nothing was changed.`, { field: `patch.${locked[0] ?? ''}` });
  }
  const keys = Object.keys(patch);
  if (keys.length === 0) {
    return fail('invalidParams', `Provide at least one allowlisted config field to patch (allowed: ${[...patchAllowlist.keys()].join(', ')}).`, { field: 'patch' });
  }
  const scope = params.scope ?? 'project';
  const globalLocked = scope === 'global' ? globalLockedKeysIn(patch) : [];
  if (globalLocked.length > 0) {
    return fail('rejected', `${globalLocked.map((key) => globalLockedFieldText(key, ctx.loaded.trust.userFile)).join(' ')} Nothing was changed.`, { field: `patch.${globalLocked[0] ?? ''}` });
  }
  // A bank the loader refuses in this project's file (a personal bank, another project's own):
  // written anyway, it was reported as effective and then refused at the next load (round 12).
  const named = patch.projectBankId;
  const refusedBank = scope === 'project' && typeof named === 'string' ? refusedProjectBank(named, ctx.loaded.cwd, ctx.loaded.knownBanks) : undefined;
  if (refusedBank !== undefined) return fail('rejected', `projectBankId ${refusedBank}. Nothing was changed.`, { field: 'patch.projectBankId' });
  const fileScope: FileScope = scope === 'global' ? 'user' : 'project';
  const file = scope === 'global' ? ctx.loaded.files.user.path : ctx.loaded.files.project.path;
  const user = ctx.configFiles.read('user', ctx.loaded.files.user.path);
  const project = ctx.configFiles.read('project', ctx.loaded.files.project.path);
  const target = fileScope === 'user' ? user : project;
  if (target.error !== undefined) {
    return fail('io', `${target.error.message}. Fix the file by hand first; memory_config never rewrites a file it cannot parse.`);
  }

  const set: { path: string; value: unknown }[] = [];
  const unset: string[] = [];
  for (const key of keys) {
    const where = patchTarget(key);
    if (where === undefined) continue; // the codec refused unknown keys already
    if (patch[key] === null) unset.push(where.path);
    else set.push({ path: where.path, value: patch[key] });
  }
  const nextData = applyConfigEdit(target.data, { set, unset });
  const resolved = resolveConfig({
    user: fileScope === 'user' ? layer('user', user.path, nextData) : layer('user', user.path, user.data),
    project: fileScope === 'project' ? layer('project', project.path, nextData) : layer('project', project.path, project.data),
    env: ctx.env,
    stateDir: ctx.loaded.stateDir,
    home: ctx.loaded.home,
  });
  const violation = setupRuleViolation(patch, resolved.config);
  if (violation !== undefined) return fail('rejected', `${violation} Nothing was changed.`, { field: 'patch.setupComplete' });

  // What the patch changes in effect, and where something else still wins.
  const effective: Record<string, JsonValue> = {};
  const notes: string[] = [];
  for (const key of keys) {
    const name = patchAllowlist.get(key);
    if (name === undefined) continue; // the codec refused keys off the allowlist already
    effective[key] = shown(specOf(name), resolved.config[name]);
    const source = resolved.sources[name];
    if (patch[key] !== null && source !== fileScope) {
      notes.push(`${key}: the ${source === 'env' ? 'environment' : `${source} file`} still overrides this value`);
    }
  }
  const fileWarnings = resolved.warnings.filter((w) => w.location === file || w.source === fileScope).map((w) => w.message);
  const wouldPatch: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, patch[k] ?? null]));

  if (params.dryRun !== false) {
    const text = [
      `Preview (dryRun): would patch ${file}:`,
      ...keys.map((k) => `  ${k} = ${valueText(wouldPatch[k] ?? null)}${patch[k] === null ? ' (reset)' : ''} -> effective ${valueText(effective[k] ?? null)}`),
      ...notes.map((n) => `note: ${n}`),
      ...fileWarnings.map((w) => `warning: ${w}`),
      'Nothing was written. Call again with dryRun:false to apply.',
    ].join('\n');
    return ok(text, { dryRun: true, scope, path: file, wouldPatch, effective, notes, warnings: fileWarnings, allowlist: [...patchAllowlist.keys()] });
  }

  const error = await ctx.configFiles.write(file, fileScope, target.token, nextData);
  if (error !== undefined) return fail('io', error);
  await ctx.reloadConfig?.();
  const text = [
    `Patched ${file}:`,
    ...keys.map((k) => `  ${k} = ${valueText(wouldPatch[k] ?? null)}${patch[k] === null ? ' (reset)' : ''} -> effective ${valueText(effective[k] ?? null)}`),
    ...notes.map((n) => `note: ${n}`),
    ...fileWarnings.map((w) => `warning: ${w}`),
  ].join('\n');
  return ok(text, { dryRun: false, scope, path: file, patched: wouldPatch, values: allowlistedValues(resolved.config), notes, warnings: fileWarnings });
};

export const memoryConfigTool = defineTool<MemoryConfigParams>({
  name: 'memory_config',
  label: 'Memory Config',
  description:
    'Get or patch allowlisted memory configuration. action get returns effective values (no secrets) and the allowlist. action patch changes typed allowlisted fields in the project file ({state_dir}/memory.json, default) or the global user file; it previews unless dryRun is false. Where memory goes and which secret it reads are never patchable: baseUrl, apiKeyEnvVar, apiKeyDirect, trustedOrigins and enabled are refused, and so is the project identity (projectId, projectIdStrategy); recallEnabled, retainEnabled, memoryProfile, projectBankId, enableGlobalBank, globalBankId, userScopeTags and includeSharedObservations are refused in scope global (they would turn memory off, or change whose memories are read, in every project); the user changes them in /memory settings or setup, or by editing the file. Never pass raw API keys. In domain-tagged mode setupComplete needs projectBankId. Check memory_status before changing config.',
  promptSnippet: 'memory_config: read or patch (preview first) allowlisted memory settings',
  runsWhenDisabled: true,
  // A secret-looking value is refused by field (configPatch.ts), never written as [REDACTED].
  paramsUnredacted: true,
  params: MemoryConfigParams,
  handler: async (params, ctx) => (params.action === 'get' ? getConfig(ctx) : patchConfig(params, ctx)),
});
