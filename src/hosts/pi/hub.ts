/**
 * `/memory` with a UI: status at a glance, then one menu. Each entry runs the same command
 * the text hub runs (`src/tools/commands`) or a person's flow (`person.ts`); with memory off
 * the entries that reach the server are left out, and on/off, setup, settings, doctor and
 * status stay.
 */
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';
import type { AgentUse } from '../../config/starterModels.js';
import type { UiPort } from '../../effects/ports/ui.js';
import { setupState } from '../../machines/setup/selectors.js';
import { deadLettersCommand, memoryHubCommand, type CommandContext, type CommandReport } from '../../tools/commands/index.js';
import { findTool } from '../../tools/catalogue.js';
import { isRecord } from '../../codecs/codecs.js';
import type { MemoryRuntime } from '../memoryRuntime.js';
import type { RuntimeHolder } from './holder.js';
import { applyStarters, guidedSetup, settingsEditor, switchOnOff, uiOf } from './person.js';
import { hubGlance } from './hubGlance.js';
import { fitNotice, piColumns } from './noticeFit.js';

const HUB_ENTRIES = {
  on: 'Turn memory on',
  off: 'Turn memory off',
  setup: 'Set up memory (guided)',
  settings: 'Settings',
  doctor: 'Doctor (diagnostics)',
  status: 'Status (full)',
  flush: 'Deliver queued memories now',
  deadLetters: 'Dead letters',
  models: 'Mental models',
  import: 'Import past sessions',
  mode: 'Session memory mode',
  optOut: 'Do not save the next run',
  /** Groups: pi 1.6 lists at most ten choices and scrolls the rest out of sight. */
  session: 'This session',
  queue: 'Queue: deliver now, dead letters',
  back: 'Back',
  close: 'Close',
} as const;

/** A report as a notice, fitted to pi's width (the hub has a UI). */
const show = (ui: UiPort, report: CommandReport): void => ui.notify(fitNotice(report.text, report.level, piColumns()), report.level);

/** `text` in at most `max` characters, marked "…" when cut. */
const clip = (text: string, max: number): string => {
  const chars = [...text.replace(/\s+/g, ' ')];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
};

const glance = (runtime: MemoryRuntime): string => {
  const status = runtime.status();
  const columns = piColumns();
  const queueState = runtime.queue?.status();
  return hubGlance({
    state: runtime.loaded.config.enabled ? setupState(runtime.setup.getSnapshot()) : 'off',
    detail: status.setup.detail,
    bank: status.projectBank,
    tag: status.projectTag,
    ...(status.queue === undefined ? {} : { queue: status.queue }),
    setupEntry: HUB_ENTRIES.setup,
    ...(queueState?.state === 'paused' && queueState.pausedReason !== undefined ? { savingPaused: queueState.pausedReason } : {}),
    ...(columns === undefined ? {} : { columns }),
  });
};

const queueTitle = (runtime: MemoryRuntime): string => {
  const queue = runtime.queue?.status();
  return queue === undefined ? 'Queue' : `Queue: ${queue.depth} queued, ${queue.deadLetters} dead letter${queue.deadLetters === 1 ? '' : 's'}`;
};

const deadLetters = async (ui: UiPort, cmd: CommandContext): Promise<void> => {
  const queue = cmd.deadLetters;
  if (queue === undefined) return show(ui, await deadLettersCommand(undefined, []));
  const dead = await queue.deadLetters();
  if (dead.length === 0) return ui.notify('No dead letters.', 'info');
  const statusOf = (d: (typeof dead)[number]): string => (d.status === null ? 'no status' : `HTTP ${d.status}`);
  // One line each in an 80-column terminal (pi draws " → " before it): the job id and up to
  // 120 characters of reason wrapped every choice over two or three lines. The number keeps
  // clipped labels apart; the whole letter is the next dialog's title.
  const labels = dead.map((d, i) => clip(`${i + 1}. ${statusOf(d)}, bank ${d.job.bankId}: ${d.reason}`, 76));
  const picked = await ui.select(`${dead.length} dead letter(s): the server refused them for good. Pick one, or all:`, [...labels, 'Requeue all and deliver', 'Drop all', 'Back']);
  if (picked === undefined || picked === 'Back') return;
  const requeueAndDeliver = async (ids: string): Promise<void> => {
    show(ui, await deadLettersCommand(queue, ['requeue', ids]));
    show(ui, await memoryHubCommand(cmd, 'flush'));
  };
  if (picked === 'Requeue all and deliver') return requeueAndDeliver('all');
  if (picked === 'Drop all') {
    if (await ui.confirm('Drop every dead letter?', 'They will not be retained.')) show(ui, await deadLettersCommand(queue, ['drop', 'all']));
    return;
  }
  const job = dead[labels.indexOf(picked)];
  if (job === undefined) return;
  const verb = await ui.select(`Dead letter ${job.job.jobId} (bank ${job.job.bankId}, ${statusOf(job)}): ${job.reason}`, ['Requeue and deliver', 'Drop', 'Back']);
  if (verb === 'Requeue and deliver') return requeueAndDeliver(job.job.jobId);
  if (verb === 'Drop') show(ui, await deadLettersCommand(queue, ['drop', job.job.jobId]));
};

/** The models a `memory_mental_model list` answered, from its details. */
const listedModels = (details: unknown): { readonly id: string; readonly name: string }[] => {
  const items = isRecord(details) ? details['items'] : undefined;
  if (!Array.isArray(items)) return [];
  return items.flatMap((m: unknown) => (isRecord(m) && typeof m['id'] === 'string' && typeof m['name'] === 'string' ? [{ id: m['id'], name: m['name'] }] : []));
};

const models = async (ui: UiPort, runtime: MemoryRuntime, cmd: CommandContext): Promise<void> => {
  const use: AgentUse = runtime.loaded.config.agentUse;
  const apply = `Apply the ${use} starter set`;
  const picked = await ui.select('Mental models', ['List', apply, 'Refresh all', 'Back']);
  const tool = findTool('memory_mental_model');
  if (picked === 'List') {
    // The list is for choosing one to read: its content is what a person wants to see.
    const listed = await tool?.run({ action: 'list' }, cmd.tools);
    const items = listed?.ok === true ? listedModels(listed.result.details) : [];
    if (tool === undefined || listed?.ok !== true || items.length === 0) return show(ui, await memoryHubCommand(cmd, 'models'));
    const labels = items.map((m) => `${m.name} (${m.id})`);
    const chosen = await ui.select(`Mental models: choose one to read (${items.length})`, [...labels, 'Back']);
    const model = items[labels.indexOf(chosen ?? '')];
    if (model === undefined) return;
    const got = await tool.run({ action: 'get', id: model.id }, cmd.tools);
    return got.ok ? ui.notify(got.result.text, 'info') : ui.notify(got.error.message, 'warning');
  }
  if (picked === apply) return ui.notify(await applyStarters(runtime, ui, use, { confirm: true }), 'info');
  if (picked !== 'Refresh all') return;
  if (tool === undefined) return;
  const listed = await tool.run({ action: 'list' }, cmd.tools);
  if (!listed.ok) return ui.notify(listed.error.message, 'warning');
  const ids = listedModels(listed.result.details).map((m) => m.id);
  const results = await Promise.all(ids.map((id) => tool.run({ action: 'refresh', id, dryRun: false }, cmd.tools)));
  ui.notify(`Refresh asked for ${results.filter((r) => r.ok).length} of ${ids.length} mental model(s).`, 'info');
};

const importMenu = async (ui: UiPort, cmd: CommandContext): Promise<void> => {
  const picked = await ui.select('Import past sessions of this project (pi, Claude Code, Codex)', ['Dry run: what would be imported', 'Import now (resumes an interrupted import)', 'Back']);
  if (picked === undefined || picked === 'Back') return;
  show(ui, await memoryHubCommand(cmd, picked.startsWith('Dry') ? 'import' : 'import apply'));
};

/** Opens the hub; one action per opening (run /memory again for the next). */
export const openHub = async (holder: RuntimeHolder, ctx: ExtensionContext, runtime: MemoryRuntime, cmd: CommandContext): Promise<void> => {
  const ui = uiOf(ctx);
  const enabled = runtime.loaded.config.enabled;
  const live = enabled && runtime.queue !== undefined;
  const dead = runtime.queue?.status().deadLetters ?? 0;
  const mode = runtime.session.view().context.mode;
  // At most ten choices, so pi 1.6's list (ten rows, the rest scrolled away) shows them all at
  // 80x24: the session's two and the queue's two are one choice each, opening their own list.
  // Not set up, setup is what the glance names and comes first; once set up, the switch does.
  const unconfigured = enabled && setupState(runtime.setup.getSnapshot()) === 'unconfigured';
  const entries = [
    ...(unconfigured ? [HUB_ENTRIES.setup] : []),
    enabled ? HUB_ENTRIES.off : HUB_ENTRIES.on,
    HUB_ENTRIES.status,
    ...(live ? [HUB_ENTRIES.import, `${HUB_ENTRIES.session} (mode ${mode})`, `${HUB_ENTRIES.queue} (${dead})`, HUB_ENTRIES.models] : []),
    HUB_ENTRIES.settings,
    HUB_ENTRIES.doctor,
    ...(unconfigured ? [] : [HUB_ENTRIES.setup]),
    HUB_ENTRIES.close,
  ];
  const top = await ui.select(glance(runtime), entries);
  const picked = top?.startsWith(HUB_ENTRIES.session)
    ? await ui.select(`This session: memory mode ${mode}`, [`${HUB_ENTRIES.mode} (now ${mode})`, HUB_ENTRIES.optOut, HUB_ENTRIES.back])
    : top?.startsWith(HUB_ENTRIES.queue)
      ? await ui.select(queueTitle(runtime), [HUB_ENTRIES.flush, `${HUB_ENTRIES.deadLetters} (${dead})`, HUB_ENTRIES.back])
      : top;
  if (picked === undefined || picked === HUB_ENTRIES.close || picked === HUB_ENTRIES.back) return;
  if (picked === HUB_ENTRIES.on || picked === HUB_ENTRIES.off) return switchOnOff(holder, ctx, runtime);
  if (picked === HUB_ENTRIES.setup) return guidedSetup(holder, ctx, 'hub');
  if (picked === HUB_ENTRIES.settings) return settingsEditor(holder, ctx, runtime);
  if (picked === HUB_ENTRIES.doctor) return show(ui, await memoryHubCommand(cmd, 'doctor'));
  if (picked === HUB_ENTRIES.status) return show(ui, await memoryHubCommand(cmd, 'status'));
  if (picked === HUB_ENTRIES.flush) return show(ui, await memoryHubCommand(cmd, 'flush'));
  if (picked.startsWith(HUB_ENTRIES.deadLetters)) return deadLetters(ui, cmd);
  if (picked === HUB_ENTRIES.models) return models(ui, runtime, cmd);
  if (picked === HUB_ENTRIES.import) return importMenu(ui, cmd);
  if (picked === HUB_ENTRIES.optOut) return show(ui, await memoryHubCommand(cmd, 'next-opt-out'));
  if (picked.startsWith(HUB_ENTRIES.mode)) {
    const next = await ui.select('Session memory mode', ['normal: recall and save', 'read-only: recall, never save', 'ignored: neither']);
    if (next !== undefined) show(ui, await memoryHubCommand(cmd, `mode ${next.split(':')[0] ?? ''}`));
  }
};
