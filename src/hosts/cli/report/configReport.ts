/**
 * The effective configuration and scope of a directory as readable text: what `agent-memory
 * scope` prints and what `start` shows first. Secrets are shown only as set / not set.
 */
import type { LoadedConfig } from '../../../config/load.js';
import { fieldList } from '../../../config/fields.js';
import type { Scope } from '../../../config/scope.js';
import { redact } from '../../../config/redact.js';

const show = (value: unknown): string => {
  if (value === undefined) return 'not set';
  return redact(typeof value === 'string' ? value : JSON.stringify(value));
};

/** One line per field: `path = value (source)`; `all` includes fields still at their default. */
const configLines = (loaded: LoadedConfig, all = false): string[] =>
  fieldList
    .filter((f) => all || loaded.sources[f.name] !== 'default')
    .map((f) => {
      const value = loaded.config[f.name];
      const text = f.secret === true ? (value === undefined ? 'not set' : '(set)') : show(value);
      return `  ${f.path} = ${text} (${loaded.sources[f.name]})`;
    });

const scopeLines = (scope: Scope): string[] => {
  const banks = (targets: Scope['automatic']['read']) => (targets.length === 0 ? 'none' : targets.map((t) => `${t.bankId} (${t.role})`).join(', '));
  return [
    `  project id    ${scope.identity.id} (from ${scope.identity.basis}: ${redact(scope.identity.source)})`,
    `  scope tags    ${scope.projectScopeTags.join(', ')}`,
    `  mode          ${scope.mode}, profile ${scope.profile}`,
    `  project bank  ${scope.projectBank.bankId}${scope.projectBank.derived ? ' (derived from the path)' : ''}${scope.projectBank.active ? '' : ' (inactive)'}`,
    `  user bank     ${scope.userBank.bankId ?? 'not set'}${scope.userBank.active ? '' : ' (inactive)'}`,
    `  recall reads  ${banks(scope.automatic.read)}`,
    `  retain writes ${banks(scope.automatic.write)}`,
    ...scope.problems.map((p) => `  note: ${redact(p)}`),
  ];
};

export const configReport = (loaded: LoadedConfig, scope: Scope, options: { all?: boolean } = {}): string => {
  const changed = configLines(loaded, options.all === true);
  return [
    `config (user ${loaded.files.user.exists ? loaded.files.user.path : 'file absent'}; project ${loaded.files.project.exists ? loaded.files.project.path : 'file absent'})`,
    ...(changed.length === 0 ? ['  every field at its default'] : changed),
    ...loaded.errors.map((e) => `  error: ${e.message}`),
    ...loaded.warnings.map((w) => `  warning: ${w.location} ${w.field} = ${w.value}: ${w.message}`),
    'scope',
    ...scopeLines(scope),
  ].join('\n');
};
