/**
 * Config resolution, pure: defaults < user file < project file < environment, field by field
 * from the table. A bad value is dropped with a warning (the layer below wins, so a value only
 * one file sets falls back to its default); nothing here throws or writes.
 */
import { nearestName } from './nearestName.js';
import { expectedWords } from './expectedWords.js';
import { isDeepStrictEqual } from 'node:util';
import * as path from 'node:path';
import { isRight } from 'fp-ts/lib/Either.js';
import { decodeWith } from '../codecs/decode.js';
import { REDACTED, containsSecret, isSecretFieldName, redact, redactUnknown } from './redact.js';
import { MemoryConfig, configFields, fieldList, type FieldName, type FieldSpec } from './fields.js';
import { decideTrust, trustNotice, type ConfigSource, type KeyTrust } from './trust.js';
import { refusedPersonalBank, refusedProjectBank, type KnownBank } from './knownBanks.js';
import { displayPath } from './displayPath.js';

export type FileScope = 'user' | 'project';

export interface ConfigWarning {
  readonly source: ConfigSource;
  /** The file path, or `environment`. */
  readonly location: string;
  /** The dotted field path in the file, or the environment variable name. */
  readonly field: string;
  /** A short, redacted preview of the offending value. */
  readonly value: string;
  readonly message: string;
}

/** One parsed config file. `data` is whatever JSON it held. */
export interface ConfigLayer {
  readonly scope: FileScope;
  readonly path: string;
  readonly data: unknown;
}

export interface ResolveInput {
  readonly user?: ConfigLayer | undefined;
  readonly project?: ConfigLayer | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Absolute `{state_dir}` (`<cwd>/.pi`). */
  readonly stateDir: string;
  readonly home: string;
  /** The host's project trust (pi 0.79+ `ctx.isProjectTrusted()`); undefined when it has none. */
  readonly hostTrusted?: boolean | undefined;
  /** Where the user file is (it follows `PI_CODING_AGENT_DIR`), so messages name the real path. */
  readonly userFile?: string;
  /** The project directory `memory.trustedProjects` is compared with; default the state dir's parent. */
  readonly projectDir?: string | undefined;
  /** Banks the person's config names as theirs (`knownBanks.ts`): a project file may not name one as its project bank. */
  readonly knownBanks?: readonly KnownBank[];
}

/**
 * Whether the project file may choose whose memories the session reads and writes (the
 * fields marked `identity`): only in a directory the user file lists, and never when the host
 * says the project is untrusted.
 */
export interface IdentityTrust {
  readonly trusted: boolean;
  readonly projectDir: string;
  /** The identity fields the project file set and that were ignored. */
  readonly refused: readonly string[];
  /** What the user does to trust it; set when something was refused. */
  readonly remedy?: string;
}

/** A path as a person reads it: the home directory as `~`. */

export interface ResolvedConfig {
  readonly config: MemoryConfig;
  readonly sources: Readonly<Record<FieldName, ConfigSource>>;
  readonly warnings: readonly ConfigWarning[];
  readonly trust: KeyTrust;
  readonly identity: IdentityTrust;
}

type Json = Record<string, unknown>;

const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

/** `value` when it is a string (every baseline of a string field is), else `otherwise`. */
const stringOr = <D>(value: unknown, otherwise: D): string | D => (typeof value === 'string' ? value : otherwise);

const lookup = (data: unknown, dotted: string): { found: boolean; value?: unknown; blockedAt?: string } => {
  let cur: unknown = data;
  const parts = dotted.split('.');
  for (const [i, key] of parts.entries()) {
    if (!isObject(cur)) return { found: false, blockedAt: parts.slice(0, i).join('.') };
    if (!Object.hasOwn(cur, key)) return { found: false };
    cur = cur[key];
  }
  return { found: true, value: cur };
};

/** Objects merged key by key, arrays and scalars replaced; `__proto__` and friends ignored. */
const deepMerge = (base: unknown, over: unknown): unknown => {
  if (!isObject(base) || !isObject(over)) return over;
  const out: Json = {};
  for (const [k, v] of [...Object.entries(base), ...Object.entries(over)]) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
    const merged = Object.hasOwn(out, k) ? deepMerge(out[k], v) : v;
    Object.defineProperty(out, k, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return out;
};

const preview = (spec: FieldSpec | undefined, value: unknown): string => {
  if (spec?.secret === true) return REDACTED;
  const text = typeof value === 'string' ? JSON.stringify(redact(value)) : redactUnknown(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

const knownPaths = new Set(fieldList.map((f) => f.path));
const knownPrefixes = new Set(fieldList.flatMap((f) => f.path.split('.').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('.'))));

const unknownHint = (dotted: string): string => {
  const meant = nearestName(dotted, [...knownPaths, ...knownPrefixes]);
  return meant === undefined ? 'unknown field, ignored' : `unknown field, ignored (did you mean ${meant}?)`;
};

/** Keys in a file that no field claims: warned about, never read. */
const unknownKeyWarnings = (layer: ConfigLayer): ConfigWarning[] => {
  const out: ConfigWarning[] = [];
  const walk = (node: unknown, prefix: string) => {
    if (!isObject(node)) {
      out.push({
        source: layer.scope, location: layer.path, field: prefix || '(root)', value: preview(undefined, node),
        message: `${layer.path}: field ${prefix || '(root)'}: expected an object, got ${preview(undefined, node)}; ignored`,
      });
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      const dotted = prefix === '' ? key : `${prefix}.${key}`;
      if (knownPaths.has(dotted)) continue;
      if (knownPrefixes.has(dotted)) {
        walk(value, dotted);
        continue;
      }
      const secretish = isSecretFieldName(key);
      const hint = secretish
        ? 'raw keys are not read from config fields; set memory.apiKeyEnv to the name of an environment variable (or memory.apiKeyDirect in the user file)'
        : unknownHint(dotted);
      out.push({
        source: layer.scope, location: layer.path, field: dotted, value: secretish ? REDACTED : preview(undefined, value),
        message: `${layer.path}: field ${dotted}: ${hint}`,
      });
    }
  };
  walk(layer.data, '');
  return out;
};

const STATE_DIR = '{state_dir}';

const isInside = (root: string, candidate: string): boolean => {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/**
 * A configured path made absolute. `{state_dir}` and relative paths resolve against the state
 * directory. A project file (a repository's author wrote it) may only name a file strictly
 * inside `{state_dir}/memory`; only the user file may point elsewhere (or use `~/`). Links on
 * the way are refused where the file is opened (`adapters/fs/safeFile.ts`).
 */
const resolvePathValue = (raw: string, source: ConfigSource, stateDir: string, home: string): string | undefined => {
  let text = raw.split(STATE_DIR).join(stateDir);
  if (source !== 'project' && (text === '~' || text.startsWith('~/'))) text = path.join(home, text.slice(1));
  const absolute = path.resolve(stateDir, text);
  const memoryDir = path.join(stateDir, 'memory');
  if (source === 'project' && (path.isAbsolute(raw) || absolute === memoryDir || !isInside(memoryDir, absolute))) return undefined;
  return absolute;
};

/** `memory.trustedProjects` as the user file lists them, made absolute (`~/` is the home). */
export const trustedProjectsOf = (user: ConfigLayer | undefined, home: string): string[] => {
  const hit: { found: boolean; value?: unknown } = user === undefined ? { found: false } : lookup(user.data, 'memory.trustedProjects');
  const decoded = hit.found ? decodeWith(configFields.trustedProjects.codec, 'memory.trustedProjects')(hit.value) : undefined;
  if (decoded === undefined || !isRight(decoded)) return [];
  return decoded.right.flatMap((entry) => {
    const text = entry === '~' || entry.startsWith('~/') ? path.join(home, entry.slice(1)) : entry;
    return path.isAbsolute(text) ? [path.resolve(text)] : [];
  });
};

interface FieldOutcome {
  value: unknown;
  source: ConfigSource;
  /** The value without the project file: what trust compares against. */
  baseline: unknown;
}

export const resolveConfig = (input: ResolveInput): ResolvedConfig => {
  const warnings: ConfigWarning[] = [];
  const layers = [input.user, input.project].filter((l): l is ConfigLayer => l !== undefined);
  for (const layer of layers) warnings.push(...unknownKeyWarnings(layer));

  const projectDir = path.resolve(input.projectDir ?? path.dirname(input.stateDir));
  const identityTrusted = input.hostTrusted !== false && trustedProjectsOf(input.user, input.home).includes(projectDir);
  const userFileShown = input.userFile === undefined ? '~/.pi/agent/memory.json' : displayPath(input.userFile, input.home);
  const trustIt =
    input.hostTrusted === false
      ? `pi does not trust this project; trust it in pi and add "${projectDir}" to memory.trustedProjects in ${userFileShown}`
      : `to use it, add "${projectDir}" to memory.trustedProjects in ${userFileShown}`;
  const refusedIdentity: string[] = [];
  const outcomes = new Map<FieldName, FieldOutcome>();
  for (const spec of fieldList) {
    const decode = decodeWith(spec.codec, spec.path);
    const outcome: FieldOutcome = { value: structuredClone(spec.default), source: 'default', baseline: undefined };
    outcome.baseline = outcome.value;
    const accept = (raw: unknown, source: ConfigSource, location: string, name: string): void => {
      const reject = (why: string) =>
        warnings.push({
          source, location, field: name, value: preview(spec, raw),
          message: `${location}: field ${name}: ${why} (got ${preview(spec, raw)}); using ${preview(spec, outcome.value)}`,
        });
      if (source === 'project' && spec.userFileOnly === true) {
        reject(`only allowed in the user file ${userFileShown}, refused in a project file`);
        return;
      }
      if (source === 'project' && spec.identity === true && !identityTrusted) {
        // Setup writes banks.profile "project-only" (the default) into the project file: in the
        // next clone, or for a second pi with its own user file, ignoring it changed nothing, yet
        // a warning said it was ignored (fifth pass). A value that is the one in effect is no refusal.
        const same = decode(raw);
        if (isRight(same) && isDeepStrictEqual(same.right, outcome.value)) return;
        refusedIdentity.push(name);
        reject(`decides whose memories this session reads and writes, and this project is not trusted for that; ignored (${trustIt})`);
        return;
      }
      if (source === 'project' && spec.secret !== true && typeof raw === 'string' && containsSecret(raw)) {
        reject('looks like a secret; a project file may not carry one');
        return;
      }
      const decoded = decode(raw);
      if (!isRight(decoded)) {
        reject(`expected ${expectedWords(decoded.left.issues[0]?.expected ?? spec.codec.name)}`);
        return;
      }
      if (source === 'project' && spec.name === 'projectBankId' && typeof decoded.right === 'string') {
        const why = refusedProjectBank(decoded.right, projectDir, input.knownBanks ?? []);
        if (why !== undefined) {
          reject(why);
          return;
        }
      }
      if (source === 'project' && spec.projectMayOnlyDisable !== undefined && decoded.right === true && outcome.source === 'user' && outcome.value === false) {
        if (spec.projectMayOnlyDisable === true) {
          reject(`${userFileShown} turns memory off in every project; a project file may turn it off, not back on (turn it on from /memory, "Turn memory on")`);
          return;
        }
        // A repository must not start keeping (or sending) what the user stopped everywhere; the user may opt one project in.
        if (!identityTrusted) {
          reject(`${userFileShown} turns it off in every project; a project file may turn it off, not back on (${trustIt})`);
          return;
        }
      }
      let value: unknown = decoded.right;
      if (spec.kind === 'path') {
        // A path field's codec decodes to a string.
        const absolute = typeof value === 'string' ? resolvePathValue(value, source, input.stateDir, input.home) : undefined;
        if (absolute === undefined) {
          reject(source === 'project' ? `a project file may only name a file inside ${path.join(input.stateDir, 'memory')} (relative, e.g. memory/retain-queue.jsonl)` : `must be a path`);
          return;
        }
        value = absolute;
      }
      outcome.value = deepMerge(outcome.value, value);
      outcome.source = source;
      if (source !== 'project') outcome.baseline = outcome.value;
    };
    if (spec.kind === 'path' && typeof spec.default === 'string') outcome.value = outcome.baseline = resolvePathValue(spec.default, 'default', input.stateDir, input.home);
    for (const layer of layers) {
      const hit = lookup(layer.data, spec.path);
      if (!hit.found || hit.value === null) continue;
      accept(hit.value, layer.scope, layer.path, spec.path);
    }
    const binding = spec.env;
    if (binding !== undefined) {
      const name = binding.names.find((n) => (input.env[n] ?? '').trim() !== '');
      if (name !== undefined) {
        const text = input.env[name] ?? ''; // set and not blank: found just above
        accept(binding.parse === undefined ? text.trim() : binding.parse(text, name), 'env', 'environment', name);
      }
    }
    outcomes.set(spec.name, outcome);
  }

  // A project file's personal bank is of the user tier alone: naming this project's own bank or a
  // bank the person's config gives another tier would make a shared bank read as personal (and
  // every project's memory there recalled as the person's own). Checked once both banks are known.
  const personal = outcomes.get('globalBankId');
  if (personal?.source === 'project' && typeof personal.value === 'string') {
    const own = outcomes.get('projectBankId')?.value;
    const why = refusedPersonalBank(personal.value, typeof own === 'string' ? own : undefined, input.knownBanks ?? []);
    if (why !== undefined) {
      const spec = configFields.globalBankId;
      const location = input.project?.path ?? 'project file';
      warnings.push({
        source: 'project', location, field: spec.path, value: preview(spec, personal.value),
        message: `${location}: field ${spec.path}: ${why} (got ${preview(spec, personal.value)}); using ${preview(spec, personal.baseline)}`,
      });
      personal.value = personal.baseline;
      personal.source = personal.baseline === spec.default ? 'default' : 'user';
    }
  }

  const pick = (key: 'value' | 'baseline') => Object.fromEntries([...outcomes].map(([name, o]) => [name, o[key]]));
  const sources = Object.fromEntries([...outcomes].map(([name, o]) => [name, o.source])) as Record<FieldName, ConfigSource>;
  // Every value was decoded by its own field codec above; the whole-object decode is a guard.
  const decoded = MemoryConfig.decode(pick('value'));
  if (!isRight(decoded)) throw new Error('config resolution produced an invalid config');
  const baseline = pick('baseline');
  const trust = decideTrust({
    config: decoded.right,
    sources,
    baseline: { baseUrl: stringOr(baseline['baseUrl'], decoded.right.baseUrl), apiKeyEnv: stringOr(baseline['apiKeyEnv'], undefined) },
    hostTrusted: input.hostTrusted,
    ...(input.userFile === undefined ? {} : { userFile: displayPath(input.userFile, input.home) }),
  });
  // Memory off is the master switch off: every consumer that honours `enabled` (the queue,
  // the setup gate, every tool) honours trust too, with nothing else to remember.
  const config: MemoryConfig = trust.memoryAllowed ? decoded.right : { ...decoded.right, enabled: false };
  if (!trust.memoryAllowed) {
    const field = trust.baseUrlSource === 'project' && trust.rule !== 'untrusted-key-variable' ? 'memory.baseUrl' : 'memory.apiKeyEnv';
    warnings.push({
      source: 'project', location: input.project?.path ?? 'project file', field, value: preview(undefined, field === 'memory.baseUrl' ? config.baseUrl : config.apiKeyEnv),
      message: `${input.project?.path ?? 'project file'}: field ${field}: ${trustNotice(trust) ?? trust.reason}`,
    });
  }
  const identity: IdentityTrust = {
    trusted: identityTrusted,
    projectDir,
    refused: refusedIdentity,
    ...(refusedIdentity.length === 0 ? {} : { remedy: trustIt }),
  };
  return { config, sources, warnings, trust, identity };
};
