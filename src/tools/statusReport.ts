/**
 * The status report shared by memory_status, /memory and /memory:doctor: setup, banks, scope,
 * recall/retain flags, queue, server health and sync readiness. Probes are bounded (1.5 s
 * each, in parallel) so a dead server costs one short wait; nothing here changes state.
 */
import * as E from 'fp-ts/lib/Either.js';
import { redact } from '../config/redact.js';
import type { Capabilities, ServerFailure } from '../effects/ports/memoryServer.js';
import type { RuntimeStatusView, ToolContext } from './context.js';
import { decodeWith } from '../codecs/decode.js';
import { GitSeedReceipt, gitSeedReceiptPath } from './memorySeedGit.js';
import { callOptions, runCall } from './serverCall.js';
import { connectionWords, describeFailure, failureText } from '../effects/ports/memoryServer.js';
import { startServerCommand } from '../config/serverStart.js';
import { setupFacts } from '../effects/setup/setup.js';

export type Tone = 'default' | 'custom' | 'warn' | 'info' | 'note';

export interface StatusField {
  readonly key: string;
  readonly label: string;
  readonly value: string;
  readonly tone: Tone;
}

export type SyncReason = 'git_seed_missing' | 'git_seed_stale' | 'queue_pending' | 'queue_dead_letter' | 'queue_paused' | 'retain_failing';

export interface SyncStatus {
  readonly ready: boolean;
  readonly reasons: SyncReason[];
  readonly queue: { readonly depth: number; readonly deadLetters: number; readonly state: string };
  readonly gitSeed: { readonly receipt: GitSeedReceipt | null; readonly currentHead: string | null; readonly headMatches: boolean | null };
  readonly knowledgePages: 'supported' | 'unavailable' | 'unknown';
}

export interface StatusReport {
  readonly setupComplete: boolean;
  readonly setupHint?: string;
  readonly setup: { readonly state: string; readonly detail?: string };
  readonly enabled: boolean;
  readonly health: string;
  /** The kind of the first failed probe (`unreachable`, `timeout`, `unauthorized`, ...), when one failed. */
  readonly healthFailure?: string;
  /** Why the server did not answer, in a few words ("connection refused"), for a line that says what to do apart. */
  readonly healthCause?: string;
  readonly reachable: boolean | null;
  readonly server: { readonly baseUrl: string; readonly apiVersion?: string; readonly embedded?: boolean; readonly breaker: string };
  readonly project: { readonly projectId: string; readonly basis: string; readonly source: string; readonly projectTag: string; readonly legacyRepoTag: string };
  readonly banks: {
    readonly coding: { readonly bankId: string; readonly derived: boolean; readonly active: boolean; readonly exists: boolean | null };
    readonly life: { readonly bankId: string | null; readonly active: boolean; readonly exists: boolean | null };
  };
  readonly flags: { readonly recall: boolean; readonly retain: boolean; readonly sessionRecall: boolean; readonly sessionRetain: boolean; readonly nextRetainSkipped: boolean };
  readonly queue: { readonly depth: number; readonly deadLetters: number; readonly state: string; readonly pausedReason?: string; readonly lastError?: string; readonly retainFailing?: string };
  readonly sync: SyncStatus;
  readonly fields: StatusField[];
  readonly problems: string[];
}

const PROBE_MS = 1500;

const SETUP_HINT =
  'Memory is not set up in this project: run /memory setup in pi (a few questions; nothing is written until you confirm).';


/**
 * Whether setup is done, decided by the same rule as the setup gate behind pi's footer
 * (`setupFacts`), so `agent-memory status`, `memory_status` and the footer never disagree.
 */
const setupDone = (ctx: ToolContext): boolean => setupFacts(ctx.loaded, ctx.scope).configured;

/** The gate's states in the footer's words (the JSON keeps the state names). */
const SETUP_WORDS: Readonly<Record<string, string>> = {
  unconfigured: 'setup needed',
  probing: 'connecting',
  bankMissing: 'bank not created yet',
  disabled: 'off',
};

/** Set up, yet memory cannot work now: marked like a setup still to do. */
const SETUP_TROUBLE: ReadonlySet<string> = new Set(['degraded', 'untrusted']);

/** scope.mode's values as a person reads them; the value stays, since it is what the config file takes. */
const SCOPE_WORDS: Readonly<Record<'domain-tagged' | 'isolated-bank', string>> = {
  'domain-tagged': 'domain-tagged (one bank for all your projects, each kept apart by its project tag)',
  'isolated-bank': 'isolated-bank (a bank of its own for this project)',
};

/** Why memory is not in sync, in a person's words (the JSON keeps the reason codes). */
export const SYNC_WORDS: Readonly<Record<SyncReason, string>> = {
  git_seed_missing: 'git history not imported yet (ask the agent to run memory_seed_git)',
  git_seed_stale: 'new commits since the git history was imported (ask the agent to run memory_seed_git)',
  queue_pending: 'turns waiting to be saved',
  queue_dead_letter: 'turns that could not be saved (see /memory dead-letters in pi, agent-memory dead-letters in a shell)',
  queue_paused: 'saving is paused',
  retain_failing: 'saving turns is failing',
};

/** Sync reasons that need the person (the Queue line says why); the others only wait. */
const WARN_SYNC: ReadonlySet<SyncReason> = new Set(['queue_dead_letter', 'queue_paused', 'retain_failing']);

/**
 * The gate's state where no gate runs (the CLI): the same states pi's footer shows, from the
 * same setup rule and this report's own probe of the server.
 */
const probedSetupState = (ctx: ToolContext, reachable: boolean | null, codingExists: boolean | null): { state: string; detail?: string } => {
  const facts = setupFacts(ctx.loaded, ctx.scope);
  // The gate's order: a refused project file is named before the switch it turned off.
  if (facts.untrusted === true) return { state: 'untrusted', ...(facts.reason === undefined ? {} : { detail: facts.reason }) };
  if (!ctx.loaded.config.enabled) return { state: 'disabled' };
  if (!facts.configured) return { state: 'unconfigured', ...(facts.reason === undefined ? {} : { detail: facts.reason }) };
  if (reachable !== true) return { state: 'degraded', detail: 'the server did not answer' };
  if (codingExists === false) return { state: 'bankMissing', detail: 'the bank is created on the first pi session' };
  return { state: 'ready' };
};

/** The import line: its summary already opens with the state ("done: ..."), so the state is not said twice. */
const importText = (view: { readonly state: string; readonly detail?: string }): string => {
  if (view.detail === undefined) return view.state;
  const detail = redact(view.detail);
  return detail.startsWith(view.state) ? detail : `${view.state}: ${detail}`;
};

/**
 * What the running session met (a queue file set aside, ...), and in pi a paused or failed import
 * with the action that resumes it. Said in pi's doctor and status, which listed neither (a
 * shell's doctor and status name theirs, `src/hosts/cli/commands/doctor.ts`). The queue's next
 * steps are `queueNextSteps` (commandContext.ts), with the commands of where the person is.
 */
const sessionProblems = (ctx: ToolContext, runtime: RuntimeStatusView | undefined): string[] => {
  if (runtime === undefined || ctx.session === undefined) return [];
  // A config file's errors are said as such already.
  const configErrors = new Set(ctx.loaded.errors.map((e) => e.message));
  const imported = runtime.import;
  return [
    ...(runtime.problems ?? []).filter((p) => !configErrors.has(p)),
    ...(imported !== undefined && (imported.state === 'paused' || imported.state === 'failed') ? [`the last import is ${imported.state}: /memory import apply resumes it (documents already imported are skipped)`] : []),
  ];
};

/**
 * `serverCommand`: the command that starts the embedded server where the person is (pi: the
 * extension's `serve.mjs`; a shell: this CLI's `serve`), named in the Health line's next step.
 */
export const buildStatusReport = async (ctx: ToolContext, serverCommand?: string): Promise<StatusReport> => {
  const { config } = ctx.loaded;
  const { scope } = ctx;
  const probe = callOptions(ctx, Math.min(PROBE_MS, config.timeoutMs));
  const userBankId = scope.userBank.active ? scope.userBank.bankId : null;
  const [caps, codingExists, lifeExists, head, receiptRead] = await Promise.all([
    runCall(ctx.server.capabilities(probe)),
    scope.projectBank.active ? runCall(ctx.server.bankExists(scope.projectBank.bankId, probe)) : Promise.resolve(undefined),
    userBankId === null ? Promise.resolve(undefined) : runCall(ctx.server.bankExists(userBankId, probe)),
    ctx.git.readHead(ctx.loaded.cwd),
    ctx.stateFiles.readJson(gitSeedReceiptPath(ctx.loaded.stateDir)),
  ]);
  const capabilities: Capabilities | undefined = E.isRight(caps) ? caps.right : undefined;
  const firstFailure = [caps, codingExists, lifeExists].find((r): r is E.Left<ServerFailure> => r !== undefined && E.isLeft(r));
  const reachable = firstFailure === undefined ? true : E.isLeft(caps) && (caps.left._tag === 'unreachable' || caps.left._tag === 'timeout' || caps.left._tag === 'circuitOpen') ? false : null;
  const failed = firstFailure?.left;
  const healthCause =
    failed?._tag === 'unreachable' ? connectionWords(redact(failed.message)) : failed?._tag === 'timeout' ? 'no answer in time' : failed?._tag === 'circuitOpen' ? 'no answer; calls paused' : undefined;
  const start = serverCommand === undefined ? undefined : startServerCommand(serverCommand, ctx.server.baseUrl);
  // "unreachable: memory server unreachable (GET /version: ECONNREFUSED); check …" said it twice.
  const health =
    failed === undefined
      ? 'reachable'
      : failed._tag === 'unreachable'
        ? `unreachable (${healthCause ?? ''}); ${failureText(failed, start).next ?? ''}`
        : failed._tag === 'timeout' || failed._tag === 'circuitOpen'
          ? `unreachable: ${redact(describeFailure(failed, start))}`
          : // It answered: "unreachable: memory server rejected the API key" said the opposite (seventh pass).
            `answers, but: ${redact(describeFailure(failed, start))}`;
  const exists = (r: typeof codingExists): boolean | null => (r === undefined || E.isLeft(r) ? null : r.right);

  const queue = ctx.queue.status();
  const runtime = ctx.status?.();
  const done = setupDone(ctx);
  const gateSetup = runtime?.setup ?? probedSetupState(ctx, reachable, exists(codingExists));
  // Degraded with the probe failing here too: what failed, as the probe found it now; the next step is said once (Health, the doctor's error).
  const setup = gateSetup.state === 'degraded' && failed !== undefined ? { state: 'degraded', detail: reachable === false ? 'the server did not answer' : redact(failureText(failed).what) } : gateSetup;
  const receiptFile = gitSeedReceiptPath(ctx.loaded.stateDir);
  const decodedReceipt = receiptRead.value === undefined ? undefined : decodeWith(GitSeedReceipt, receiptFile)(receiptRead.value);
  const receipt = decodedReceipt !== undefined && E.isRight(decodedReceipt) ? decodedReceipt.right : null;
  const receiptProblems = [
    ...(receiptRead.error === undefined ? [] : [`git seed receipt: ${receiptRead.error}; run memory_seed_git again`]),
    ...(decodedReceipt !== undefined && E.isLeft(decodedReceipt) ? [`git seed receipt unreadable (${decodedReceipt.left.message}); run memory_seed_git again`] : []),
  ];
  const currentHead = E.isRight(head) ? head.right : null;
  const reasons: SyncReason[] = [];
  if (currentHead !== null && receipt === null) reasons.push('git_seed_missing');
  if (currentHead !== null && receipt !== null && receipt.headSha !== currentHead) reasons.push('git_seed_stale');
  if (queue.depth > 0) reasons.push('queue_pending');
  if (queue.deadLetters > 0) reasons.push('queue_dead_letter');
  if (queue.state === 'paused') reasons.push('queue_paused');
  if (queue.retainFailing !== undefined) reasons.push('retain_failing');
  const knowledgePages = capabilities === undefined ? 'unknown' : capabilities.features.knowledge ? 'supported' : 'unavailable';
  const sync: SyncStatus = {
    ready: reasons.length === 0,
    reasons,
    queue: { depth: queue.depth, deadLetters: queue.deadLetters, state: queue.state },
    gitSeed: { receipt, currentHead, headMatches: receipt === null || currentHead === null ? null : receipt.headSha === currentHead },
    knowledgePages,
  };
  const session = ctx.session;
  const flags = {
    recall: config.enabled && config.recallEnabled,
    retain: config.enabled && config.retainEnabled,
    sessionRecall: session?.recallAllowed ?? true,
    sessionRetain: session?.retainAllowed ?? true,
    nextRetainSkipped: runtime?.session?.nextRetainSkipped ?? false,
  };
  const codingExists_ = exists(codingExists);
  const lifeExists_ = exists(lifeExists);
  const breaker = ctx.server.breaker();
  const waiting = setup.state === 'unconfigured' ? ', once set up' : '';
  const fields: StatusField[] = [
    { key: 'setup', label: 'Setup', value: (SETUP_WORDS[setup.state] ?? setup.state) + (setup.detail === undefined ? '' : ` (${setup.detail})`), tone: done && !SETUP_TROUBLE.has(setup.state) ? 'default' : 'warn' },
    { key: 'enabled', label: 'Enabled', value: config.enabled ? 'on' : 'off', tone: config.enabled ? 'default' : 'info' },
    { key: 'baseUrl', label: 'Server', value: redact(ctx.server.baseUrl), tone: ctx.loaded.sources.baseUrl === 'default' ? 'default' : 'custom' },
    { key: 'health', label: 'Health', value: health, tone: firstFailure === undefined ? 'default' : 'warn' },
    {
      key: 'serverVersion',
      label: 'Server version',
      value:
        capabilities === undefined
          ? 'unknown'
          : `${capabilities.apiVersion}${capabilities.embedded ? ' (embedded)' : ''}${capabilities.features.append ? '' : ' — below the 0.8 floor: upgrade the server to 0.8 or later'}`,
      tone: capabilities !== undefined && !capabilities.features.append ? 'warn' : 'default',
    },
    ...(breaker.state === 'closed'
      ? []
      : [{ key: 'breaker', label: 'Circuit', value: `${breaker.state} after ${breaker.failures} failure(s); calls fail fast until the server answers again`, tone: 'warn' as const }]),
    { key: 'scopeMode', label: 'Scope mode', value: SCOPE_WORDS[scope.mode], tone: scope.mode === 'domain-tagged' ? 'default' : 'custom' },
    { key: 'sharedObservations', label: 'Shared observations', value: config.includeSharedObservations ? 'include (opt-in)' : 'strict project only', tone: config.includeSharedObservations ? 'custom' : 'default' },
    { key: 'projectScope', label: 'Project scope', value: `${scope.identity.tag} (from ${scope.identity.basis}: ${redact(scope.identity.source)})`, tone: 'default' },
    {
      key: 'codingBank',
      label: 'Coding bank',
      // Domain-tagged and not set up, the derived id is a placeholder nothing goes to (the Setup line says what to run).
      value: !scope.projectBank.active
        ? 'disabled'
        : scope.projectBank.derived && scope.mode === 'domain-tagged' && !done
          ? `not chosen yet (setup chooses it; ${scope.projectBank.bankId} is a placeholder)`
          : `${scope.projectBank.bankId}${scope.projectBank.derived ? ' (path-derived)' : ''}${codingExists_ === false ? ' (not created yet)' : ''}`,
      tone: scope.projectBank.active && scope.projectBank.derived && scope.mode === 'domain-tagged' ? 'warn' : scope.projectBank.active ? 'default' : 'info',
    },
    {
      key: 'lifeBank',
      label: 'Personal bank',
      value: scope.userBank.active ? `${scope.userBank.bankId ?? ''}${lifeExists_ === false ? ' (not created yet)' : ''}` : scope.userBank.bankId === null && config.globalBankEnabled ? '(no bankId)' : 'disabled',
      tone: scope.userBank.bankId === null && config.globalBankEnabled ? 'warn' : scope.userBank.active ? 'custom' : 'info',
    },
    // Not set up, nothing is recalled or saved yet: "on" alone read as if it were.
    { key: 'recall', label: 'Recall', value: flags.recall && flags.sessionRecall ? `on${waiting}` : 'off', tone: flags.recall ? 'default' : 'info' },
    { key: 'retain', label: 'Retain', value: flags.retain && flags.sessionRetain ? (flags.nextRetainSkipped ? 'on (next run skipped)' : `on${waiting}`) : 'off', tone: flags.retain ? 'default' : 'info' },
    {
      key: 'queue',
      label: 'Queue',
      // A turn that could not be saved comes first: it is the one thing here that loses memory.
      value: `${queue.retainFailing === undefined ? '' : `retain failing: ${redact(queue.retainFailing)}; `}${queue.depth} pending${queue.deadLetters > 0 ? `, ${queue.deadLetters} dead-letter` : ''}${queue.state === 'paused' ? `, paused${queue.pausedReason === undefined ? '' : `: ${redact(queue.pausedReason)}`}` : ''}`,
      tone: queue.retainFailing !== undefined || queue.deadLetters > 0 || queue.state === 'paused' ? 'warn' : queue.depth > 0 ? 'note' : 'default',
    },
    {
      key: 'import',
      label: 'Import',
      value: runtime?.import === undefined ? 'never run in this project' : importText(runtime.import),
      tone: runtime?.import?.state === 'failed' || runtime?.import?.state === 'paused' ? 'warn' : 'default',
    },
    { key: 'mentalModels', label: 'Mental models', value: config.mentalModelsInject ? 'inject on' : 'inject off', tone: config.mentalModelsInject ? 'default' : 'info' },
    // Turns waiting or git history not imported yet are not settings: "not done yet", not "set differently".
    { key: 'sync', label: 'Sync', value: sync.ready ? 'up to date' : sync.reasons.map((r) => SYNC_WORDS[r]).join('; '), tone: sync.ready ? 'default' : sync.reasons.some((r) => WARN_SYNC.has(r)) ? 'warn' : 'note' },
  ];
  return {
    setupComplete: done,
    ...(done ? {} : { setupHint: SETUP_HINT }),
    setup,
    enabled: config.enabled,
    health,
    ...(firstFailure === undefined ? {} : { healthFailure: firstFailure.left._tag }),
    ...(healthCause === undefined ? {} : { healthCause }),
    reachable,
    server: {
      baseUrl: redact(ctx.server.baseUrl),
      ...(capabilities === undefined ? {} : { apiVersion: capabilities.apiVersion, embedded: capabilities.embedded }),
      breaker: breaker.state,
    },
    project: {
      projectId: scope.identity.id,
      basis: scope.identity.basis,
      source: redact(scope.identity.source),
      projectTag: scope.identity.tag,
      legacyRepoTag: scope.identity.legacyTag,
    },
    banks: {
      coding: { bankId: scope.projectBank.bankId, derived: scope.projectBank.derived, active: scope.projectBank.active, exists: codingExists_ },
      life: { bankId: scope.userBank.bankId, active: scope.userBank.active, exists: lifeExists_ },
    },
    flags,
    queue: {
      depth: queue.depth,
      deadLetters: queue.deadLetters,
      state: queue.state,
      ...(queue.pausedReason === undefined ? {} : { pausedReason: redact(queue.pausedReason) }),
      ...(queue.lastError === undefined ? {} : { lastError: redact(queue.lastError) }),
      ...(queue.retainFailing === undefined ? {} : { retainFailing: redact(queue.retainFailing) }),
    },
    sync,
    fields,
    problems: [...new Set([...scope.problems, ...receiptProblems, ...sessionProblems(ctx, runtime)].map(redact))],
  };
};

const PREFIX: Record<Tone, string> = { warn: '!', custom: '*', info: '-', note: '~', default: ' ' };
const MEANING: Record<Exclude<Tone, 'default'>, string> = { warn: 'needs attention', custom: 'set differently from the default', info: 'off on purpose', note: 'not done yet' };

/** `! Label: value` lines; the prefix marks broken (!), non-default (*), intentionally off (-) and not done yet (~). */
export const statusLines = (fields: readonly StatusField[]): string[] => fields.map((f) => `${PREFIX[f.tone]} ${f.label}: ${f.value}`);

/** What the markers of `statusLines` mean, in a command's help. */
export const STATUS_LEGEND_HELP = 'In the status lines, ! marks what needs attention, * what is set differently from the default, - what is off on purpose, ~ what is not done yet.';

/** One line saying what the markers `fields` show mean (none when every line is plain), for a person reading them. */
export const statusLegend = (fields: readonly StatusField[]): string[] => {
  const used = (['warn', 'custom', 'info', 'note'] as const).filter((tone) => fields.some((f) => f.tone === tone));
  return used.length === 0 ? [] : [`(${used.map((tone) => `${PREFIX[tone]} ${MEANING[tone]}`).join(', ')})`];
};
