/**
 * /memory: the memory hub as text. Without arguments it shows status and what can be done;
 * `/memory <action>` runs one: status, mode, next-opt-out, models, import, flush, doctor, setup.
 */
import { fieldList } from '../../config/fields.js';
import { redact } from '../../config/redact.js';
import { toJson } from '../../effects/kernel/trace.js';
import { findTool } from '../catalogue.js';
import { buildStatusReport, statusLegend, statusLines } from '../statusReport.js';
import { queueNextSteps, type CommandContext, type CommandReport, type SessionMode } from './commandContext.js';
import { deadLettersCommand } from './deadLetters.js';
import { AWAITING_PROJECT_BANK } from '../../config/scope.js';
import { doctorCommand } from './doctor.js';
import { nextOptOutCommand } from './nextOptOut.js';

export const HUB_ACTIONS: readonly { readonly name: string; readonly usage: string; readonly summary: string }[] = [
  { name: 'status', usage: '/memory status', summary: 'setup, banks, scope, queue and server health' },
  { name: 'mode', usage: '/memory mode normal|read-only|ignored', summary: 'session memory mode' },
  { name: 'next-opt-out', usage: '/memory next-opt-out', summary: 'skip automatic retain for the next run' },
  { name: 'models', usage: '/memory models', summary: 'mental models of the project bank' },
  { name: 'import', usage: '/memory import [apply]', summary: 'import host sessions (dry run unless apply)' },
  { name: 'flush', usage: '/memory flush', summary: 'deliver the retain queue now' },
  { name: 'dead-letters', usage: '/memory dead-letters [list|requeue ID|drop ID]', summary: 'jobs the server refused: reasons, requeue, drop' },
  { name: 'doctor', usage: '/memory doctor', summary: 'diagnostics' },
  { name: 'settings', usage: '/memory settings', summary: 'every setting: value, default, source file (an editor in pi\'s interactive screen)' },
  { name: 'setup', usage: '/memory setup', summary: 'guided setup (questions in pi\'s interactive screen; here, what is left to do)' },
];

const MODES: readonly SessionMode[] = ['normal', 'read-only', 'ignored'];
const isMode = (value: string): value is SessionMode => MODES.some((m) => m === value);

const menu = (): string[] => ['Actions:', ...HUB_ACTIONS.map((a) => `  ${a.usage.padEnd(40)} ${a.summary}`)];

const status = async (ctx: CommandContext, withMenu: boolean): Promise<CommandReport> => {
  const report = await buildStatusReport(ctx.tools, ctx.serverCommand);
  // What waits on the person (memory_status and the doctor say these too), each with what to do.
  // The Setup line names what to do when it warns: its hint is not repeated (as in the doctor).
  const setupShown = report.fields.some((f) => f.key === 'setup' && f.tone === 'warn');
  const notes = [
    ...report.problems.filter((p) => !(setupShown && p === AWAITING_PROJECT_BANK)).map((p) => `note: ${p}`),
    ...queueNextSteps(report.queue, ctx.queueCommands).map((step) => `Queue: ${step}`),
  ];
  const text = ['Memory', ...statusLines(report.fields), ...statusLegend(report.fields), ...(report.setupHint === undefined ? [] : [report.setupHint]), ...notes, ...(withMenu ? menu() : [])].join('\n');
  const warn = report.fields.some((f) => f.tone === 'warn');
  return { level: warn ? 'warning' : 'info', text, details: toJson(report) };
};

const flush = async (ctx: CommandContext): Promise<CommandReport> => {
  const { queue, clock, loaded } = ctx.tools;
  const report = await queue.flush({ deadline: clock.now() + loaded.config.timeoutMs });
  const after = queue.status();
  // "Memory flushed 0; dead-lettered 0; remaining 0." read as a failure to a person who found nothing waiting.
  const nothing = report.delivered === 0 && report.deadLettered === 0 && after.depth === 0 && report.stoppedBecause === undefined;
  const text = nothing
    ? `Nothing was queued: every memory is delivered${after.deadLetters > 0 ? `; ${after.deadLetters} dead letter(s) kept for inspection` : ''}.`
    : `Memory flushed ${report.delivered}; dead-lettered ${report.deadLettered}; remaining ${after.depth}${
    report.stoppedBecause === undefined ? '' : ` (stopped: ${redact(report.stoppedBecause)})`
  }${after.deadLetters > 0 ? `; ${after.deadLetters} dead letter(s) kept for inspection` : ''}.`;
  return {
    level: after.depth > 0 || report.deadLettered > 0 || after.deadLetters > 0 ? 'warning' : 'info',
    text,
    details: { delivered: report.delivered, deadLettered: report.deadLettered, remaining: after.depth, deadLetters: after.deadLetters, state: after.state },
  };
};

const mode = async (ctx: CommandContext, value: string | undefined): Promise<CommandReport> => {
  if (value === undefined || !isMode(value)) {
    return { level: 'error', text: `Usage: /memory mode ${MODES.join('|')} (got ${value === undefined ? 'nothing' : JSON.stringify(redact(value).slice(0, 40))}).`, details: { modes: [...MODES] } };
  }
  if (ctx.control?.setMode === undefined) return { level: 'error', text: 'This host cannot change the session memory mode.', details: {} };
  await ctx.control.setMode(value);
  return { level: 'info', text: `Session memory mode: ${value}`, details: { mode: value } };
};

const models = async (ctx: CommandContext): Promise<CommandReport> => {
  const tool = findTool('memory_mental_model');
  if (tool === undefined) return { level: 'error', text: 'memory_mental_model is not available.', details: {} };
  const outcome = await tool.run({ action: 'list' }, ctx.tools);
  return outcome.ok
    ? { level: 'info', text: outcome.result.text, details: outcome.result.details }
    : { level: outcome.error.code === 'unsupportedCapability' ? 'warning' : 'error', text: outcome.error.message, details: { code: outcome.error.code } };
};

const importSessions = async (ctx: CommandContext, apply: boolean): Promise<CommandReport> => {
  if (ctx.importer === undefined) {
    return { level: 'warning', text: 'Session import is not wired into this host; nothing was imported.', details: { available: false } };
  }
  try {
    const result = await ctx.importer.importSessions({ dryRun: !apply });
    const next = apply ? '' : '\nThis was a dry run; nothing was imported. Run /memory import apply to import.';
    return { level: 'info', text: `${redact(result.text)}${next}`, details: result.details };
  } catch (cause) {
    return { level: 'error', text: `Import failed: ${redact(cause instanceof Error ? cause.message : String(cause))}`, details: { available: true } };
  }
};

/** Without a UI: what is left to set up, and where to answer the questions. */
const setup = async (ctx: CommandContext): Promise<CommandReport> => {
  const report = await buildStatusReport(ctx.tools, ctx.serverCommand);
  const { scope } = ctx.tools;
  const steps = [
    `Server: ${report.health} at ${report.server.baseUrl}.`,
    `Bank: ${scope.projectBank.derived && scope.mode === 'domain-tagged' ? 'not chosen yet.' : `${scope.projectBank.bankId}.`}`,
    `Project: ${scope.identity.tag} (from ${scope.identity.basis}).`,
    `Setup: ${report.setupComplete ? 'complete.' : 'not complete.'}`,
    'Git: .pi/memory/ (the queue journal holds conversation text) carries its own .gitignore ignoring everything in it, written when memory creates the directory; nothing there is committed.',
  ];
  const next = report.setupComplete ? [] : ['Start pi in this repository and run /memory setup: it asks a few questions, shows the change and writes it only when you confirm.'];
  return { level: report.setupComplete ? 'info' : 'warning', text: ['Memory setup', ...steps, ...next].join('\n'), details: { setupComplete: report.setupComplete, steps } };
};

/** Without a UI: every setting by tab, with its value and where it comes from. */
const settings = (ctx: CommandContext): CommandReport => {
  const { config, sources } = ctx.tools.loaded;
  const tabs = [...new Set(fieldList.map((f) => f.tab))];
  const shown = (f: (typeof fieldList)[number]): string => {
    const v: unknown = config[f.name];
    if (f.secret === true) return v === undefined ? 'not set' : '(set, not shown)';
    return v === undefined ? (f.defaultText ?? 'not set') : typeof v === 'string' ? v : JSON.stringify(v);
  };
  const lines = tabs.flatMap((tab) => [`${tab}:`, ...fieldList.filter((f) => f.tab === tab).map((f) => `  ${f.path} = ${shown(f)} (${sources[f.name]})${f.advanced ? ' [advanced]' : ''}`)]);
  return { level: 'info', text: ['Memory settings (change them with /memory settings in pi\'s interactive screen):', ...lines].join('\n'), details: { tabs } };
};

/** Runs `/memory [action] [args]`; `args` is the raw text after the command name. */
export const memoryHubCommand = async (ctx: CommandContext, args: string): Promise<CommandReport> => {
  const [action, ...rest] = args.trim().split(/\s+/).filter((w) => w !== '');
  switch (action) {
    case undefined:
      return status(ctx, true);
    case 'status':
      return status(ctx, false);
    case 'mode':
      return mode(ctx, rest[0]);
    case 'next-opt-out':
      return nextOptOutCommand(ctx);
    case 'models':
    case 'mental-models':
      return models(ctx);
    case 'import':
      return importSessions(ctx, rest[0] === 'apply');
    case 'flush':
      return flush(ctx);
    case 'dead-letters':
      return deadLettersCommand(ctx.deadLetters, rest);
    case 'doctor':
      return doctorCommand(ctx);
    case 'setup':
      return setup(ctx);
    case 'settings':
      return settings(ctx);
    default:
      return { level: 'error', text: [`Unknown action for /memory: ${JSON.stringify(redact(action).slice(0, 40))}.`, ...menu()].join('\n'), details: { actions: HUB_ACTIONS.map((a) => a.name) } };
  }
};
