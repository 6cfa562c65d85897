/**
 * The settings editor (`/memory settings`, the hub's "Settings"): the config fields grouped
 * by their tab, advanced ones behind a toggle; each shows its value, default, choices and the
 * file it comes from. A change is validated by the field's own codec (an error names the
 * field), a reset removes every field sharing the reset key (`memory.apiKey` clears the key
 * variable and the raw key together), and both show the diff before anything is written.
 * Also the on/off switch: off in this project or in every project, and on again.
 */
import * as E from 'fp-ts/lib/Either.js';
import { fieldList, type FieldName, type FieldSpec, type Tab } from '../../config/fields.js';
import type { LoadedConfig } from '../../config/load.js';
import type { FileScope } from '../../config/resolve.js';
import { decodeWith } from '../../codecs/decode.js';
import { setupEvents, type SetupEventInput } from '../../machines/setup/events.js';
import type { ClockPort } from '../ports/clock.js';
import type { ConfigFilePort } from '../ports/configFiles.js';
import type { UiPort } from '../ports/ui.js';
import { displayPath } from '../../config/displayPath.js';
// Where a value comes from, in a field's label: the file itself is in the field's own dialog ("Value: … (from <file>)").
import { SOURCE_WORDS } from '../../config/sourceWords.js';
import { previewAndWrite, type FileEdit, type WriteOutcome } from './configWriter.js';
import { isOneOf, isRecord } from '../../codecs/codecs.js';

export interface SettingsDeps {
  readonly ui: UiPort;
  readonly files: ConfigFilePort;
  readonly clock: ClockPort;
  readonly dispatch: (event: SetupEventInput) => Promise<unknown>;
  /** The config as it is now (read again after each write). */
  readonly loaded: () => LoadedConfig;
  /** Re-reads config after a write. */
  readonly reload: () => Promise<void>;
}

type Field = FieldSpec & { readonly name: FieldName };

const TABS: readonly Tab[] = ['Connection', 'Banks', 'Scope', 'Recall', 'Retain', 'Import', 'UI'];

/** Where the editor writes a field: the user file for where memory goes and what it shows, the project file for the rest. */
export const settingsFile = (field: Pick<FieldSpec, 'userFileOnly' | 'agentLocked' | 'tab'>): FileScope =>
  field.userFileOnly === true || field.agentLocked === true || field.tab === 'UI' ? 'user' : 'project';

const valueText = (field: Field, value: unknown): string => {
  if (field.secret === true) return value === undefined ? 'not set' : '(set, not shown)';
  if (value === undefined) return field.defaultText ?? 'not set';
  return typeof value === 'string' ? value : JSON.stringify(value);
};

const sourceText = (loaded: LoadedConfig, name: FieldName): string => {
  const source = loaded.sources[name];
  if (source === 'user') return displayPath(loaded.files.user.path, loaded.home);
  if (source === 'project') return displayPath(loaded.files.project.path, loaded.home, loaded.cwd);
  return source === 'env' ? 'the environment' : 'default';
};


/** Choices a person reads in an 80-column terminal: pi draws " → " before each, so 76 characters (a value set in a file named by its path wrapped the path to the next line, where it read as another choice). */
const LABEL_WIDTH = 76;

/** `path = value (source)` within LABEL_WIDTH, the value cut with "…" when it must be. */
const fieldLabel = (path: string, value: string, source: string): string => {
  const room = LABEL_WIDTH - `${path} =  (${source})`.length;
  const chars = [...value];
  const shown = chars.length <= room ? value : `${chars.slice(0, Math.max(1, room - 1)).join('')}…`;
  return `${path} = ${shown} (${source})`;
};

/** Parses typed text for a field: JSON for numbers, lists and booleans, text otherwise. */
const parseTyped = (field: Field, text: string): unknown => {
  if (field.kind === 'tags' || field.kind === 'origins' || field.kind === 'fact-types') {
    return text.trim() === '' ? [] : text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  }
  if (field.kind === 'positive-int' || field.kind === 'non-negative-int') return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
  return text.trim();
};

/** What a typed value must be, in words (the prompt and the refusal say the same). */
const KIND_WORDS: Partial<Record<Field['kind'], string>> = {
  'positive-int': 'a whole number above 0',
  'non-negative-int': 'a whole number, 0 or more',
  url: 'an http(s) URL',
  'env-name': 'an environment variable name (letters, digits, _)',
  'bank-id': 'a bank id',
  tags: 'a comma-separated list',
  origins: 'a comma-separated list of URLs',
  'fact-types': 'a comma-separated list of world, experience, observation',
};

const fieldsOf = (tab: Tab, advanced: boolean): readonly Field[] => fieldList.filter((f) => f.tab === tab && (advanced || !f.advanced));

/** The fields a reset of `field` removes: every field sharing its reset key. */
export const resetGroup = (field: Pick<FieldSpec, 'resetKey'>): readonly Field[] => fieldList.filter((f) => f.resetKey === field.resetKey);

/** Writes one edit after the diff; tells the gate; reloads. */
const write = async (deps: SettingsDeps, edits: readonly FileEdit[], title: string, via: 'settings' | 'hub'): Promise<WriteOutcome> => {
  const loaded = deps.loaded();
  const outcome = await previewAndWrite({ ui: deps.ui, files: deps.files, home: loaded.home, cwd: loaded.cwd }, edits, title);
  if (outcome._tag === 'written') {
    await deps.dispatch(setupEvents.configWritten({ at: deps.clock.now(), via, files: outcome.plan.files.map((f) => f.path), fields: [...outcome.plan.fields] }));
    await deps.reload();
  } else if (outcome._tag === 'failed') {
    await deps.dispatch(setupEvents.configWriteFailed({ at: deps.clock.now(), reason: outcome.reason }));
  }
  return outcome;
};

/** `where` makes the written files read as a person reads them (`~/...`, or relative in the project). */
const outcomeText = (outcome: WriteOutcome, what: string, where: { readonly home: string; readonly cwd: string }): { text: string; level: 'info' | 'warning' } => {
  switch (outcome._tag) {
    case 'written':
      return { text: `${what}: written to ${outcome.plan.files.map((f) => displayPath(f.path, where.home, where.cwd)).join(' and ')}.`, level: 'info' };
    case 'unchanged':
      return { text: `${what}: already so; nothing was written.`, level: 'info' };
    case 'declined':
      return { text: `${what}: not written.`, level: 'info' };
    case 'failed':
      return { text: `${what}: not written: ${outcome.reason}`, level: 'warning' };
  }
};

/** Why a value was refused, in words, with what was given (it said "expected PositiveInt"). */
const refusalText = (field: Field, raw: unknown, decoded: E.Either<{ readonly issues: readonly { readonly expected?: string }[] }, unknown>): string => {
  const why = E.isLeft(decoded) ? (decoded.left.issues[0]?.expected ?? field.codec.name) : field.codec.name;
  const words = KIND_WORDS[field.kind];
  const given = typeof raw === 'string' ? `"${raw.slice(0, 80)}"` : JSON.stringify(raw);
  // A whole number above the bound is the only number an integer field refuses besides negatives.
  const wrong = typeof raw === 'number' && raw > 0 ? 'is too large' : `is not ${words ?? `valid (expected ${why})`}`;
  return `${field.path}: ${given} ${wrong}; nothing was written.`;
};

/**
 * The new value of `field`, decoded by its codec, or undefined when the person leaves (Esc, or
 * Enter on an empty line). A typed value the codec refuses is said and asked for again (it went
 * back to the editor's first menu, and the person had to find the tab and the field again).
 */
const askValue = async (deps: SettingsDeps, field: Field, value: unknown): Promise<{ readonly value: unknown } | undefined> => {
  const { ui } = deps;
  if (field.kind === 'boolean' || (field.kind === 'select' && field.choices !== undefined)) {
    const picked = await ui.select(`${field.path}`, field.kind === 'boolean' ? ['true', 'false'] : (field.choices ?? []));
    if (picked === undefined) return undefined;
    const raw = field.kind === 'boolean' ? picked === 'true' : picked;
    const decoded = decodeWith(field.codec, field.path)(raw);
    if (E.isLeft(decoded) || decoded.right === undefined) {
      ui.notify(refusalText(field, raw, decoded), 'warning');
      return undefined;
    }
    return { value: decoded.right };
  }
  const words = KIND_WORDS[field.kind];
  // pi's input dialog draws no placeholder: the title says the value now, and an empty line keeps it.
  const now = field.secret === true ? undefined : valueText(field, value);
  const hint = [words, now === undefined ? undefined : `now ${now}; Enter keeps it`].filter((w) => w !== undefined).join('; ');
  const title = hint === '' ? field.path : `${field.path} (${hint})`;
  for (;;) {
    const typed = await ui.input(title, now ?? '');
    if (typed === undefined) return undefined;
    if (typed.trim() === '') {
      ui.notify(`${field.path}: unchanged${now === undefined ? '' : ` (${now})`}; nothing was written.`, 'info');
      return undefined;
    }
    const raw = parseTyped(field, typed);
    const decoded = decodeWith(field.codec, field.path)(raw);
    if (E.isRight(decoded) && decoded.right !== undefined) return { value: decoded.right };
    ui.notify(`${refusalText(field, raw, decoded)} Type another value, or Esc to leave it as it is.`, 'warning');
  }
};

const editField = async (deps: SettingsDeps, field: Field): Promise<void> => {
  const { ui } = deps;
  const loaded = deps.loaded();
  const scope = settingsFile(field);
  const file = scope === 'user' ? loaded.files.user.path : loaded.files.project.path;
  const group = resetGroup(field);
  const value = loaded.config[field.name];
  const detail = [
    `${field.path}: ${field.description}`,
    `Value: ${valueText(field, value)} (from ${sourceText(loaded, field.name)})`,
    `Default: ${valueText(field, field.default)}`,
    ...(field.choices === undefined ? [] : [`Choices: ${field.choices.join(', ')}`]),
    `Written to: ${displayPath(file, loaded.home)}`,
  ].join('\n');
  const resetLabel = group.length > 1 ? `Reset ${field.resetKey} (clears ${group.map((f) => f.path).join(' and ')})` : `Reset to the default`;
  const action = await ui.select(detail, ['Change', resetLabel, 'Back']);
  if (action === undefined || action === 'Back') return;
  if (action === resetLabel) {
    const edit: FileEdit = { scope, path: file, set: [], unset: group.map((f) => f.path) };
    const outcome = await write(deps, [edit], `Reset ${field.resetKey}?`, 'settings');
    const told = outcomeText(outcome, `Reset ${field.resetKey}`, deps.loaded());
    ui.notify(told.text, told.level);
    return;
  }
  const chosen = await askValue(deps, field, value);
  if (chosen === undefined) return;
  const outcome = await write(deps, [{ scope, path: file, set: [{ path: field.path, value: chosen.value }], unset: [] }], `Change ${field.path}?`, 'settings');
  const told = outcomeText(outcome, `${field.path}`, deps.loaded());
  const after = deps.loaded();
  const overridden = outcome._tag === 'written' && after.sources[field.name] !== scope ? ` Note: ${sourceText(after, field.name)} still sets it.` : '';
  ui.notify(`${told.text}${overridden}`, told.level);
};

/** The editor: tab, field, change or reset; Esc or "Done" leaves. */
export const runSettings = async (deps: SettingsDeps): Promise<void> => {
  const { ui } = deps;
  let advanced = false;
  for (;;) {
    const toggle = advanced ? 'Hide advanced settings' : 'Show advanced settings';
    const tab = await ui.select('Memory settings', [...TABS, toggle, 'Done']);
    if (tab === undefined || tab === 'Done') return;
    if (tab === toggle) {
      advanced = !advanced;
      continue;
    }
    if (!isOneOf(TABS, tab)) continue;
    const loaded = deps.loaded();
    const fields = fieldsOf(tab, advanced);
    const labels = fields.map((f) => fieldLabel(f.path, valueText(f, loaded.config[f.name]), SOURCE_WORDS[loaded.sources[f.name]]));
    const picked = await ui.select(`${tab} settings${advanced ? '' : ' (advanced ones hidden)'}`, [...labels, 'Back']);
    if (picked === undefined) return;
    const field = fields[labels.indexOf(picked)];
    if (field === undefined) continue;
    await editField(deps, field);
  }
};

const setsOff = (file: LoadedConfig['files']['user']): boolean => isRecord(file.data) && file.data['enabled'] === false;

/**
 * The hub's on/off. Off writes `enabled: false` where the person chose (`offScope`: this
 * project's file, or the user file for every project). On removes every `enabled: false` that keeps memory off, in both files, so
 * one answer is enough (the preview names each file).
 */
export const switchMemory = async (deps: SettingsDeps, on: boolean, offScope: FileScope = 'user'): Promise<{ readonly text: string; readonly level: 'info' | 'warning'; readonly written: boolean }> => {
  const loaded = deps.loaded();
  if (loaded.sources.enabled === 'env') {
    return { text: `Memory is turned ${loaded.config.enabled ? 'on' : 'off'} by PI_MEMORY_ENABLED in the environment: change it there and start pi again.`, level: 'warning', written: false };
  }
  const { user, project } = loaded.files;
  const shown = (file: { readonly path: string }): string => displayPath(file.path, loaded.home, loaded.cwd);
  const offFiles = on ? [user, project].filter(setsOff) : [];
  const edits: FileEdit[] = on
    ? offFiles.map((f) => ({ scope: f.scope, path: f.path, set: [], unset: ['enabled'] }))
    : [{ scope: offScope, path: offScope === 'user' ? user.path : project.path, set: [{ path: 'enabled', value: false }], unset: [] }];
  if (edits.length === 0) return { text: 'Memory on: already so; nothing was written.', level: 'info', written: false };
  const outcome = await write(deps, edits, on ? 'Turn memory on?' : 'Turn memory off?', 'hub');
  if (outcome._tag === 'written') {
    if (on) {
      const where = offFiles.some((f) => f.scope === 'user') ? 'in every project' : 'in this project';
      return { text: `Memory is on ${where} (enabled removed from ${offFiles.map(shown).join(' and ')}).`, level: 'info', written: true };
    }
    const where = offScope === 'user' ? 'in every project' : 'in this project';
    return { text: `Memory is off ${where} (enabled: false in ${shown(edits[0] ?? user)}). Turn it back on from /memory.`, level: 'info', written: true };
  }
  const told = outcomeText(outcome, on ? 'Memory on' : 'Memory off', deps.loaded());
  return { ...told, written: false };
};
