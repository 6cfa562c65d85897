/**
 * THE table of configuration fields. The config codec, the defaults, the choices, the reset
 * keys, where a field lives in a file, its environment variables, `memory_config`'s patch
 * allowlist, the advanced flag, the settings tab, the docs and the doctor's listing are all
 * read from here. Add a field here and nowhere else.
 */
import * as t from 'io-ts';
import { BankId, FlushIntervalMs, RecallContextTurns, RecallDeadlineMs, RecallQueryChars, RecallTokens, ServerTimeoutMs, StatusChars, SummaryChars } from '../codecs/codecs.js';
import { stated } from '../codecs/decode.js';
import { FactType as WireFactType } from '../wire/hindsight.js';
import { ConfigPath, ConfigText, EnvVarName, HttpUrl, Origin, ScopeTag, optional, select } from './codecs.js';

export type Tab = 'Connection' | 'Banks' | 'Scope' | 'Recall' | 'Retain' | 'Import' | 'UI';

export type FieldKind =
  | 'boolean'
  | 'text'
  | 'url'
  | 'env-name'
  | 'secret'
  | 'positive-int'
  | 'non-negative-int'
  | 'select'
  | 'bank-id'
  | 'tags'
  | 'fact-types'
  | 'path'
  | 'origins'
  | 'projects';

/** How an environment variable sets a field; the first variable set (non-empty) wins. */
export interface EnvBinding {
  readonly names: readonly string[];
  /** Turns the variable's text (and its name) into the field's raw value; default: the text. */
  readonly parse?: (raw: string, name: string) => unknown;
}

export interface FieldSpec<C extends t.Mixed = t.Mixed> {
  readonly codec: C;
  readonly default: t.TypeOf<C>;
  /** How the default reads in docs when it is computed (`auto-derived`, `{state_dir}/...`). */
  readonly defaultText?: string;
  /** Dotted location inside a config file (`recall.maxTokens`). */
  readonly path: string;
  /** The reset key of contract 8.2; resetting it removes every field that shares it. */
  readonly resetKey: string;
  readonly tab: Tab;
  readonly kind: FieldKind;
  readonly choices?: readonly string[];
  readonly advanced: boolean;
  /** The key `memory_config` patches accept for this field; absent: not patchable. */
  readonly patchKey?: string;
  /**
   * Where memory goes or which secret is read (baseUrl, the key variable, the raw key, trusted
   * origins, the master switch): never changed by a tool call, only by the user in setup or
   * settings or by editing the file. `patchKey` is still the name a patch would use, so a
   * refusal can name it.
   */
  readonly agentLocked?: boolean;
  /** Why it is locked when that is not where memory goes: it is the project's identity. */
  readonly agentLockReason?: 'identity';
  /** A tool call may not change it in the user file: it would turn memory off in every project. */
  readonly globalAgentLocked?: boolean;
  /**
   * Decides whose memories a session reads or writes (project id and strategy, scope tags, the
   * user bank, the profile): a project file's value is honoured only when the user trusts the
   * project (`memory.trustedProjects`), as its server and key variable are (`decideTrust`).
   */
  readonly identity?: boolean;
  /** Refused when it appears in the project file (a repository's author wrote that file). */
  readonly userFileOnly?: boolean;
  /**
   * A project file may set it to `false` (memory off in this project) but not to `true` over the
   * user file's `false`: a cloned repository must not turn on what the user turned off everywhere.
   * `'unlessTrusted'`: it may in a project the user file lists in `memory.trustedProjects`.
   */
  readonly projectMayOnlyDisable?: true | 'unlessTrusted';
  /** Never printed: shown as `(set)` / `(not set)`. */
  readonly secret?: boolean;
  readonly env?: EnvBinding;
  /** Where the field comes from: contract 8.2, 8.3, or added by this project. */
  readonly origin: '8.2' | '8.3' | 'added';
  readonly description: string;
}

const field = <C extends t.Mixed>(spec: FieldSpec<C>): FieldSpec<C> => spec;

const truthy = (raw: string): boolean => ['1', 'true', 'yes', 'on'].includes(raw.trim().toLowerCase());

const budget = select(['low', 'mid', 'high']);
const profile = select(['project-only', 'project+global', 'global-only', 'recall-only']);
const agentUse = select(['coding', 'conversation']);
const scopeMode = select(['domain-tagged', 'isolated-bank']);
const idStrategy = select(['pin', 'remote', 'basename']);
const delivery = select(['immediate', 'coalesced']);
const globalRetain = select(['explicit-only']);
const importMode = select(['curated', 'raw', 'forensic']);
const quality = select(['compatible', 'strict']);
const branches = select(['current-only', 'all-leaves']);
const toolResults = select(['errors-only', 'summary', 'content']);
const statusStyle = select(['off', 'text', 'emoji', 'nerdfont']);
const statusDetail = select(['minimal', 'project', 'activity', 'verbose']);

const Tags = t.array(ScopeTag, 'ScopeTag[]');
/** The wire's fact kinds (`src/wire/hindsight.ts`), with the choices the config docs list. */
const FactType = { codec: WireFactType, choices: ['world', 'experience', 'observation'] as const satisfies readonly (keyof typeof WireFactType.keys)[] };
const FactTypes = t.array(FactType.codec, 'FactType[]');
const Origins = t.array(Origin, 'Origin[]');
const Paths = t.array(ConfigPath, 'ConfigPath[]');

export const configFields = {
  // --- Connection -------------------------------------------------------------------------
  enabled: field({
    codec: t.boolean, default: true, path: 'enabled', resetKey: 'enabled', tab: 'Connection', kind: 'boolean', advanced: false, agentLocked: true, projectMayOnlyDisable: true,
    env: { names: ['PI_MEMORY_ENABLED'], parse: truthy }, origin: '8.2',
    description: 'Master switch. When off, automatic recall and retain are skipped.',
  }),
  setupComplete: field({
    codec: t.boolean, default: false, path: 'setupComplete', resetKey: 'setupComplete', tab: 'Connection', kind: 'boolean', advanced: false,
    patchKey: 'setupComplete', origin: '8.3',
    description: 'Explicit setup flag. In domain-tagged mode it needs a projectBankId.',
  }),
  baseUrl: field({
    codec: HttpUrl, default: stated(HttpUrl, 'http://localhost:8888', 'memory.baseUrl default'), path: 'memory.baseUrl', resetKey: 'memory.baseUrl', tab: 'Connection', kind: 'url',
    advanced: false, patchKey: 'baseUrl', agentLocked: true, env: { names: ['MEMORY_BASE_URL'] }, origin: '8.2',
    description: 'Memory server endpoint for recall, retain, reflect and bank setup. A project file may only point it at an origin the user file trusts (trustedOrigins); otherwise memory is off for the project. Never patchable by a tool call.',
  }),
  apiKeyEnv: field({
    codec: optional(EnvVarName), default: undefined, defaultText: 'not set', path: 'memory.apiKeyEnv', resetKey: 'memory.apiKey', tab: 'Connection',
    kind: 'env-name', advanced: false, patchKey: 'apiKeyEnvVar', agentLocked: true,
    env: {
      // MEMORY_API_KEY_REF names another variable; MEMORY_API_TOKEN / MEMORY_API_KEY hold the key itself,
      // so the config records their name and the key is read from the environment when needed.
      names: ['MEMORY_API_KEY_REF', 'MEMORY_API_TOKEN', 'MEMORY_API_KEY'],
      parse: (raw, name) => (name === 'MEMORY_API_KEY_REF' ? raw.trim() : name),
    },
    origin: '8.2',
    description: 'Name of the environment variable holding the API key (recommended).',
  }),
  apiKeyDirect: field({
    codec: optional(ConfigText), default: undefined, defaultText: 'not set', path: 'memory.apiKeyDirect', resetKey: 'memory.apiKey', tab: 'Connection',
    kind: 'secret', advanced: true, userFileOnly: true, secret: true, agentLocked: true, origin: '8.2',
    description: 'Raw API key. Only read from the user file ~/.pi/agent/memory.json; refused in a project file.',
  }),
  timeoutMs: field({
    codec: ServerTimeoutMs, default: stated(ServerTimeoutMs, 30_000, 'memory.timeoutMs default'), path: 'memory.timeoutMs', resetKey: 'memory.timeoutMs', tab: 'Connection', kind: 'positive-int',
    advanced: false, patchKey: 'timeoutMs', origin: '8.2',
    description: 'Maximum wait for one network call to the memory server, in ms (at most 60000).',
  }),
  trustedOrigins: field({
    codec: Origins, default: [], path: 'memory.trustedOrigins', resetKey: 'memory.trustedOrigins', tab: 'Connection', kind: 'origins', advanced: true,
    userFileOnly: true, agentLocked: true, origin: 'added',
    description: 'Origins (besides the user-file or default baseUrl) a project file may point memory at, or name another apiKeyEnv for; any other change turns memory off for the project. User file only.',
  }),
  trustedProjects: field({
    codec: Paths, default: [], path: 'memory.trustedProjects', resetKey: 'memory.trustedProjects', tab: 'Connection', kind: 'projects', advanced: true,
    userFileOnly: true, agentLocked: true, origin: 'added',
    description: 'Project directories (absolute, or ~/...) whose .pi/memory.json may choose whose memories the session reads and writes: scope.projectId, scope.projectIdStrategy, scope.userScopeTags, scope.includeSharedObservations, banks.profile and banks.global. In any other project those fields are ignored with a warning. User file only.',
  }),
  setupDeclined: field({
    codec: t.array(ConfigText, 'ConfigText[]'), default: [], path: 'setup.declinedProjects', resetKey: 'setup.declinedProjects', tab: 'Connection', kind: 'tags',
    advanced: true, userFileOnly: true, agentLocked: true, origin: 'added',
    description: 'Projects (by project id) where the person answered "never in this repository" to the first-run setup question: it is not asked there again. User file only.',
  }),
  // --- Banks ------------------------------------------------------------------------------
  memoryProfile: field({
    ...profile, default: 'project-only', path: 'banks.profile', resetKey: 'banks.profile', tab: 'Banks', kind: 'select', advanced: false,
    patchKey: 'memoryProfile', identity: true, globalAgentLocked: true, origin: '8.2',
    description: 'project-only: one shared coding bank. project+global: also recall a personal (user) bank. global-only: user bank only, no automatic retain. recall-only: automatic recall, no automatic retain.',
  }),
  agentUse: field({
    ...agentUse, default: 'coding', path: 'agentUse', resetKey: 'agentUse', tab: 'Banks', kind: 'select', advanced: false, patchKey: 'agentUse', origin: '8.2',
    description: 'Selects the starter mental-model set.',
  }),
  mentalModelsInject: field({
    codec: t.boolean, default: true, path: 'mentalModels.inject', resetKey: 'mentalModels.inject', tab: 'Banks', kind: 'boolean', advanced: false,
    patchKey: 'mentalModelsInject', origin: '8.2',
    description: 'Inject mental-model content of the active banks into automatic context with recall.',
  }),
  projectBankId: field({
    codec: optional(BankId), default: undefined, defaultText: 'auto-derived', path: 'banks.project.bankId', resetKey: 'banks.project.bankId', tab: 'Banks',
    kind: 'bank-id', advanced: false, patchKey: 'projectBankId', globalAgentLocked: true, env: { names: ['PI_MEMORY_PROJECT_BANK_ID'] }, origin: '8.2',
    description: 'The shared coding bank (domain-tagged mode). Isolated mode may pin a per-repository bank.',
  }),
  globalBankEnabled: field({
    codec: t.boolean, default: false, path: 'banks.global.enabled', resetKey: 'banks.global.enabled', tab: 'Banks', kind: 'boolean', advanced: false,
    patchKey: 'enableGlobalBank', globalAgentLocked: true, env: { names: ['PI_MEMORY_USER_BANK_ID', 'PI_MEMORY_GLOBAL_BANK_ID'], parse: () => true }, identity: true, origin: '8.2',
    description: 'Allow cross-project recall from the shared user bank.',
  }),
  globalBankId: field({
    codec: optional(BankId), default: undefined, defaultText: 'not set', path: 'banks.global.bankId', resetKey: 'banks.global.bankId', tab: 'Banks',
    kind: 'bank-id', advanced: false, patchKey: 'globalBankId', globalAgentLocked: true, env: { names: ['PI_MEMORY_USER_BANK_ID', 'PI_MEMORY_GLOBAL_BANK_ID'] }, identity: true, origin: '8.2',
    description: 'The shared user bank, used only when user memory is enabled.',
  }),
  // --- Scope ------------------------------------------------------------------------------
  scopeMode: field({
    ...scopeMode, default: 'domain-tagged', path: 'scope.mode', resetKey: 'scope.mode', tab: 'Scope', kind: 'select', advanced: false,
    patchKey: 'scopeMode', origin: '8.3',
    description: 'domain-tagged: one shared coding bank, projects kept apart by project: tags. isolated-bank: a bank per repository (hard wall).',
  }),
  projectIdStrategy: field({
    ...idStrategy, default: 'remote', path: 'scope.projectIdStrategy', resetKey: 'scope.projectIdStrategy', tab: 'Scope', kind: 'select',
    advanced: false, patchKey: 'projectIdStrategy', identity: true, agentLocked: true, agentLockReason: 'identity', origin: '8.3',
    description: 'How the project id is derived: pin (scope.projectId), remote (normalised git origin URL; an origin that is a path on this machine gives its folder name) or basename (repository folder name).',
  }),
  projectId: field({
    codec: optional(ConfigText), default: undefined, defaultText: 'not set', path: 'scope.projectId', resetKey: 'scope.projectId', tab: 'Scope',
    kind: 'text', advanced: false, patchKey: 'projectId', identity: true, agentLocked: true, agentLockReason: 'identity', origin: '8.3',
    description: 'Pinned project id for the project:<id> tag; wins over remote and basename.',
  }),
  includeSharedObservations: field({
    codec: t.boolean, default: false, path: 'scope.includeSharedObservations', resetKey: 'scope.includeSharedObservations', tab: 'Scope',
    kind: 'boolean', advanced: false, patchKey: 'includeSharedObservations', globalAgentLocked: true, identity: true, origin: '8.3',
    description: 'Also recall shared (untagged) observations of the same bank, OR-ed with the scope filter.',
  }),
  userScopeTags: field({
    codec: Tags, default: stated(Tags, ['source:pi', 'harness:pi'], 'scope.userScopeTags default'), path: 'scope.userScopeTags', resetKey: 'scope.userScopeTags', tab: 'Scope', kind: 'tags',
    advanced: false, patchKey: 'userScopeTags', globalAgentLocked: true, identity: true, origin: '8.3',
    description: 'Tag filter for user-bank recall; an empty list means no tag filter on the user bank.',
  }),
  // --- Recall -----------------------------------------------------------------------------
  recallEnabled: field({
    codec: t.boolean, default: true, path: 'recall.enabled', resetKey: 'recall.enabled', tab: 'Recall', kind: 'boolean', advanced: false,
    patchKey: 'recallEnabled', globalAgentLocked: true, projectMayOnlyDisable: 'unlessTrusted', origin: '8.2', description: 'Look up memory before answer generation and inject it ephemerally.',
  }),
  recallBudget: field({
    ...budget, default: 'mid', path: 'recall.budget', resetKey: 'recall.budget', tab: 'Recall', kind: 'select', advanced: false,
    patchKey: 'recallBudget', origin: '8.2', description: 'Retrieval effort.',
  }),
  recallMaxTokens: field({
    codec: RecallTokens, default: stated(RecallTokens, 800, 'recall.maxTokens default'), path: 'recall.maxTokens', resetKey: 'recall.maxTokens', tab: 'Recall', kind: 'positive-int',
    advanced: false, patchKey: 'recallMaxTokens', origin: '8.2', description: 'Project-bank tokens injected into context (at most 8192).',
  }),
  recallUserMaxTokens: field({
    codec: RecallTokens, default: stated(RecallTokens, 400, 'recall.userMaxTokens default'), path: 'recall.userMaxTokens', resetKey: 'recall.userMaxTokens', tab: 'Recall',
    kind: 'positive-int', advanced: true, patchKey: 'recallUserMaxTokens', origin: '8.2', description: 'User-bank tokens injected, independent of the project cap (at most 8192).',
  }),
  recallStoreLast: field({
    codec: t.boolean, default: false, path: 'recall.storeLastRecall', resetKey: 'recall.storeLastRecall', tab: 'Recall', kind: 'boolean',
    advanced: true, patchKey: 'recallStoreLast', origin: '8.2', description: 'Write the latest successful recall to {state_dir}/memory/last-recall.json.',
  }),
  recallStoreFailures: field({
    codec: t.boolean, default: false, path: 'recall.storeLastRecallFailures', resetKey: 'recall.storeLastRecallFailures', tab: 'Recall',
    kind: 'boolean', advanced: true, patchKey: 'recallStoreFailures', origin: '8.2',
    description: 'Also record redacted failed recall attempts. Needs recall.storeLastRecall.',
  }),
  recallPreferObservations: field({
    codec: t.boolean, default: true, path: 'recall.preferObservations', resetKey: 'recall.preferObservations', tab: 'Recall', kind: 'boolean',
    advanced: true, patchKey: 'recallPreferObservations', origin: '8.2', description: 'Drop raw facts superseded by a returned observation.',
  }),
  recallTimeoutMs: field({
    codec: RecallDeadlineMs, default: stated(RecallDeadlineMs, 1500, 'recall.timeoutMs default'), path: 'recall.timeoutMs', resetKey: 'recall.timeoutMs', tab: 'Recall', kind: 'positive-int',
    advanced: true, patchKey: 'recallTimeoutMs', origin: 'added',
    description: 'Deadline of automatic recall before an answer, in ms (at most 30000): a slow server never holds the prompt longer.',
  }),
  recallTypes: field({
    codec: FactTypes, default: ['world', 'experience', 'observation'], path: 'recall.types', resetKey: 'recall.types', tab: 'Recall',
    kind: 'fact-types', choices: FactType.choices, advanced: true, patchKey: 'recallTypes', origin: 'added',
    description: 'Fact types automatic recall asks for.',
  }),
  recallContextTurns: field({
    codec: RecallContextTurns, default: stated(RecallContextTurns, 2, 'recall.contextTurns default'), path: 'recall.contextTurns', resetKey: 'recall.contextTurns', tab: 'Recall',
    kind: 'non-negative-int', advanced: true, patchKey: 'recallContextTurns', origin: 'added',
    description: 'Earlier turns folded into the automatic recall query (at most 20).',
  }),
  recallMaxQueryChars: field({
    codec: RecallQueryChars, default: stated(RecallQueryChars, 800, 'recall.maxQueryChars default'), path: 'recall.maxQueryChars', resetKey: 'recall.maxQueryChars', tab: 'Recall',
    kind: 'positive-int', advanced: true, patchKey: 'recallMaxQueryChars', origin: 'added',
    description: 'Longest automatic recall query sent to the server, in characters (at most 8000).',
  }),
  // --- Retain -----------------------------------------------------------------------------
  retainEnabled: field({
    codec: t.boolean, default: true, path: 'retain.enabled', resetKey: 'retain.enabled', tab: 'Retain', kind: 'boolean', advanced: false,
    patchKey: 'retainEnabled', globalAgentLocked: true, projectMayOnlyDisable: 'unlessTrusted', origin: '8.2', description: 'Store raw structured conversation deltas after turns.',
  }),
  retainAsync: field({
    codec: t.boolean, default: true, path: 'retain.async', resetKey: 'retain.async', tab: 'Retain', kind: 'boolean', advanced: true,
    patchKey: 'retainAsync', origin: '8.2', description: 'Write retain jobs through the durable queue instead of blocking the UI.',
  }),
  retainDelivery: field({
    ...delivery, default: 'immediate', path: 'retain.delivery', resetKey: 'retain.delivery', tab: 'Retain', kind: 'select', advanced: true,
    patchKey: 'retainDelivery', origin: '8.2',
    description: 'immediate flushes after every turn; coalesced merges compatible deltas and delivers at session end or every retainFlushIntervalMs.',
  }),
  retainFlushIntervalMs: field({
    codec: FlushIntervalMs, default: stated(FlushIntervalMs, 0, 'retain.flushIntervalMs default'), path: 'retain.flushIntervalMs', resetKey: 'retain.flushIntervalMs', tab: 'Retain',
    kind: 'non-negative-int', advanced: true, patchKey: 'retainFlushIntervalMs', origin: 'added',
    description: 'Periodic flush of a coalesced queue, in ms (1000 or more); 0 flushes only at session end.',
  }),
  queuePath: field({
    codec: ConfigPath, default: stated(ConfigPath, '{state_dir}/memory/retain-queue.jsonl', 'retain.queuePath default'), path: 'retain.queuePath', resetKey: 'retain.queuePath', tab: 'Retain',
    kind: 'path', advanced: true, origin: '8.2', description: 'The JSONL retain queue (retry journal).',
  }),
  globalRetainMode: field({
    ...globalRetain, default: 'explicit-only', path: 'globalRetain.mode', resetKey: 'globalRetain.mode', tab: 'Retain', kind: 'select',
    advanced: true, origin: '8.2', description: 'User-bank writes are manual (memory_retain_global). The only supported mode.',
  }),
  // --- Import -----------------------------------------------------------------------------
  importMode: field({
    ...importMode, default: 'curated', path: 'import.mode', resetKey: 'import.mode', tab: 'Import', kind: 'select', advanced: false, origin: '8.2',
    description: 'How `agent-memory import` and `/memory import` project sessions. curated: the live retain projection (tool results per import.toolResults; successful read/grep/find/ls output dropped). raw: every message with full tool results (injected recall blocks still dropped). forensic: also injected recall blocks, thinking and metadata entries. See docs/import.md.',
  }),
  importQualityProfile: field({
    ...quality, default: 'compatible', path: 'import.qualityProfile', resetKey: 'import.qualityProfile', tab: 'Import', kind: 'select',
    advanced: false, origin: '8.2', description: 'strict (curated mode only) also drops successful tool output that looks like progress/UI/status output, is over 2 KiB, or repeats within a document; tool errors are always kept.',
  }),
  importBranches: field({
    ...branches, default: 'current-only', path: 'import.includeBranches', resetKey: 'import.includeBranches', tab: 'Import', kind: 'select',
    advanced: false, origin: '8.2', description: 'current-only: the path to the last entry (pi\'s current leaf). all-leaves: every branch too, each imported from where it forks off, so a shared prefix is stored once.',
  }),
  importToolResults: field({
    ...toolResults, default: 'errors-only', path: 'import.toolResults', resetKey: 'import.toolResults', tab: 'Import', kind: 'select',
    advanced: false, origin: '8.2', description: 'Successful tool results in curated mode: errors-only drops them, summary keeps the first import.toolResultSummaryMaxChars characters, content keeps them whole. Tool errors are always kept.',
  }),
  importToolSummaryMaxChars: field({
    codec: SummaryChars, default: stated(SummaryChars, 500, 'import.toolResultSummaryMaxChars default'), path: 'import.toolResultSummaryMaxChars', resetKey: 'import.toolResultSummaryMaxChars',
    tab: 'Import', kind: 'positive-int', advanced: true, origin: '8.2', description: 'Maximum characters per successful tool summary (at most 20000).',
  }),
  importManifest: field({
    codec: ConfigPath, default: stated(ConfigPath, '{state_dir}/memory/import-manifest.json', 'import.manifestPath default'), path: 'import.manifestPath', resetKey: 'import.manifestPath',
    tab: 'Import', kind: 'path', advanced: true, origin: '8.2', description: 'JSON record of every imported session: its file and each document id with its content hash. Written after each import run.',
  }),
  importCheckpoint: field({
    codec: ConfigPath, default: stated(ConfigPath, '{state_dir}/memory/import-checkpoint.json', 'import.checkpointPath default'), path: 'import.checkpointPath', resetKey: 'import.checkpointPath',
    tab: 'Import', kind: 'path', advanced: true, origin: '8.2', description: 'The import gate\'s journal (JSONL, one event a line, fsync\'d): an interrupted import (Ctrl+C, kill, server down, 401) resumes from it.',
  }),
  importReplaceExisting: field({
    codec: t.boolean, default: true, path: 'import.replaceExistingImportedDocs', resetKey: 'import.replaceExistingImportedDocs', tab: 'Import',
    kind: 'boolean', advanced: true, origin: '8.2', description: 'A session that grew since its import replaces its documents (same deterministic ids). Off: documents imported before are left as they are.',
  }),
  importResume: field({
    codec: t.boolean, default: true, path: 'import.resume', resetKey: 'import.resume', tab: 'Import', kind: 'boolean', advanced: true, origin: '8.2',
    description: 'Skip documents the checkpoint records as queued or delivered with the same content hash. Off: every planned document is sent again (replacing, never duplicating).',
  }),
  // --- UI ---------------------------------------------------------------------------------
  statusStyle: field({
    ...statusStyle, default: 'text', path: 'status.style', resetKey: 'status.style', tab: 'UI', kind: 'select', advanced: false, origin: '8.2',
    description: 'Footer symbol style.',
  }),
  statusDetail: field({
    ...statusDetail, default: 'activity', path: 'status.detail', resetKey: 'status.detail', tab: 'UI', kind: 'select', advanced: false, origin: '8.2',
    description: 'Amount of information in the host footer.',
  }),
  statusMaxLength: field({
    codec: StatusChars, default: stated(StatusChars, 24, 'status.maxLength default'), path: 'status.maxLength', resetKey: 'status.maxLength', tab: 'UI', kind: 'positive-int',
    advanced: false, origin: '8.2', description: 'Maximum footer characters (at most 200).',
  }),
  statusActivity: field({
    codec: t.boolean, default: true, path: 'status.showActivity', resetKey: 'status.showActivity', tab: 'UI', kind: 'boolean', advanced: false,
    origin: '8.2', description: 'Show recall/retain activity in the status line.',
  }),
  notifyStartup: field({
    codec: t.boolean, default: true, path: 'notifications.startup', resetKey: 'notifications.startup', tab: 'UI', kind: 'boolean', advanced: false,
    origin: '8.2', description: 'Show the selected bank at session start.',
  }),
  notifyRecall: field({
    codec: t.boolean, default: false, path: 'notifications.recall', resetKey: 'notifications.recall', tab: 'UI', kind: 'boolean', advanced: false,
    origin: '8.2', description: 'Notify when automatic recall runs.',
  }),
  notifyRetain: field({
    codec: t.boolean, default: false, path: 'notifications.retain', resetKey: 'notifications.retain', tab: 'UI', kind: 'boolean', advanced: false,
    origin: '8.2', description: 'Notify when automatic retain queues memory.',
  }),
};

export type ConfigFields = typeof configFields;
export type FieldName = keyof ConfigFields;

const isFieldName = (key: string): key is FieldName => Object.hasOwn(configFields, key);

/** The table as a list, in table order, each entry carrying its name. */
export const fieldList: readonly (FieldSpec & { readonly name: FieldName })[] = Object.keys(configFields)
  .filter(isFieldName)
  .map((name): FieldSpec & { readonly name: FieldName } => ({ ...configFields[name], name }));

type ConfigProps = { [K in FieldName]: ConfigFields[K]['codec'] };

/** The effective configuration, one flat key per field. */
export const MemoryConfig = t.type(
  Object.fromEntries(fieldList.map((f) => [f.name, f.codec])) as ConfigProps,
  'MemoryConfig',
);
export type MemoryConfig = t.TypeOf<typeof MemoryConfig>;

/** Every field at its default (path fields still hold their `{state_dir}` template). */
export const defaultConfigTemplate = (): MemoryConfig =>
  stated(MemoryConfig, Object.fromEntries(fieldList.map((f) => [f.name, structuredClone(f.default)])), 'the default configuration');

/** The fields a reset key resets (two for `memory.apiKey`). */
export const fieldsForResetKey = (resetKey: string): readonly FieldName[] =>
  fieldList.filter((f) => f.resetKey === resetKey).map((f) => f.name);

/** `memory_config`'s patch allowlist: patch key -> field. Agent-locked fields are never on it. */
export const patchAllowlist: ReadonlyMap<string, FieldName> = new Map(
  fieldList.flatMap((f) => (f.patchKey === undefined || f.agentLocked === true ? [] : [[f.patchKey, f.name] as const])),
);

/** Patch keys a tool call may not write to the user file (switches that would turn memory off in every project). */
export const globalLockedKeys: ReadonlyMap<string, FieldName> = new Map(
  fieldList.flatMap((f) => (f.globalAgentLocked === true && f.patchKey !== undefined ? [[f.patchKey, f.name] as const] : [])),
);

/**
 * Keys a patch might use for an agent-locked field (its patch key, its field name, its last
 * file-path segment) -> the field, so a refusal names what was asked for.
 */
export const agentLockedKeys: ReadonlyMap<string, FieldName> = new Map(
  fieldList
    .filter((f) => f.agentLocked === true)
    .flatMap((f) => [...new Set([f.patchKey, f.name, f.path.split('.').pop()].filter((k): k is string => k !== undefined))].map((k) => [k, f.name] as const)),
);
