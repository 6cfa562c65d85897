/**
 * A person's side in pi, wired: the first-run question, guided setup, the settings editor and
 * starter models, over the UI port (pi's `ctx.ui`), the config writer and the runtime's setup
 * gate. After setup or the on/off switch writes, the runtime is started again so the server
 * client, the key and the queue follow the new config.
 */
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';
import { homedir } from 'node:os';
import { fileConfigFiles } from '../../adapters/fs/configFile.js';
import { createMemoryServer } from '../../adapters/server/client.js';
import { piUi, type PiUiContext } from '../../adapters/ui/piUi.js';
import { redact } from '../../config/redact.js';
import { STARTER_MODELS, type AgentUse } from '../../config/starterModels.js';
import { displayPath } from '../../config/displayPath.js';
import { commitWrite, planWrite } from '../../effects/setup/configWriter.js';
import { runGuide } from '../../effects/setup/guide.js';
import { runSettings, switchMemory, type SettingsDeps } from '../../effects/setup/settings.js';
import type { FileScope } from '../../config/resolve.js';
import { systemClock } from '../../effects/ports/clock.js';
import type { UiPort } from '../../effects/ports/ui.js';
import { setupEvents } from '../../machines/setup/events.js';
import { firstRunAction } from '../../machines/setup/person.js';
import { setupState } from '../../machines/setup/selectors.js';
import { findTool } from '../../tools/catalogue.js';
import { hubImporter } from '../importer.js';
import type { MemoryRuntime } from '../memoryRuntime.js';
import type { RuntimeHolder } from './holder.js';
import { embeddedServerCommand } from './serverCommand.js';

/** The UI port over this context; without a UI, warnings go to stderr (pi drops them). */
export const uiOf = (ctx: Pick<ExtensionContext, 'ui' | 'hasUI'>): UiPort =>
  piUi(ctx.ui as unknown as PiUiContext, ctx.hasUI, (text) => process.stderr.write(`agent-memory: ${redact(text)}\n`));

const env = (): Readonly<Record<string, string | undefined>> => process.env;

const isDeclined = (runtime: MemoryRuntime): boolean => runtime.loaded.config.setupDeclined.some((id) => id === runtime.scope.identity.id);

const settingsDeps = (runtime: MemoryRuntime, ui: UiPort): SettingsDeps => ({
  ui,
  files: fileConfigFiles,
  clock: systemClock,
  dispatch: (event) => runtime.setup.dispatch(event),
  loaded: () => runtime.loaded,
  reload: () => runtime.reloadConfig(),
});

/** Waits (bounded) for the setup gate to leave probing and bank creation. */
const settled = (runtime: MemoryRuntime, ms: number): Promise<void> =>
  new Promise((resolve) => {
    const done = (): boolean => {
      const state = setupState(runtime.setup.getSnapshot());
      return state !== 'probing' && state !== 'bankMissing';
    };
    if (done()) return resolve();
    const timer = setTimeout(finish, ms);
    const unsubscribe = runtime.setup.subscribe(() => {
      if (done()) finish();
    });
    function finish(): void {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    }
  });

/**
 * The starter set for `use`, through the mental-model tool: those whose name the bank already
 * has are left alone, so applying twice creates nothing new. `confirm`: show the preview first.
 */
export const applyStarters = async (runtime: MemoryRuntime, ui: UiPort, use: AgentUse, o: { readonly confirm: boolean }): Promise<string> => {
  await settled(runtime, 10_000);
  const tool = findTool('memory_mental_model');
  if (tool === undefined) return 'Mental models are not available in this build.';
  const ctx = await runtime.toolContext();
  const listed = await tool.run({ action: 'list' }, ctx);
  if (!listed.ok) return `Starter mental models were not created: ${listed.error.message}`;
  const items = ((listed.result.details as { items?: { name?: string }[] }).items ?? []).map((m) => (m.name ?? '').toLowerCase());
  const missing = STARTER_MODELS[use].filter((m) => !items.includes(m.name.toLowerCase()));
  if (missing.length === 0) return `The ${use} starter mental models are all there already; nothing was created.`;
  if (o.confirm) {
    const previews: string[] = [];
    for (const m of missing) {
      const preview = await tool.run({ action: 'create', name: m.name, sourceQuery: m.sourceQuery, tags: [...m.tags] }, ctx);
      previews.push(preview.ok ? preview.result.text.replace(/ Nothing was changed.*$/, '') : `${m.name}: ${preview.error.message}`);
    }
    if (!(await ui.confirm(`Create ${missing.length} ${use} starter mental model(s)?`, previews.join('\n')))) return 'No starter mental models were created.';
  }
  const made: string[] = [];
  const failed: string[] = [];
  for (const m of missing) {
    const created = await tool.run({ action: 'create', name: m.name, sourceQuery: m.sourceQuery, tags: [...m.tags], dryRun: false }, ctx);
    if (created.ok) made.push(m.name);
    else failed.push(`${m.name} (${created.error.message})`);
  }
  return [
    made.length > 0 ? `Created starter mental models: ${made.join(', ')}.` : '',
    failed.length > 0 ? `Not created: ${failed.join('; ')}.` : '',
  ]
    .filter((s) => s !== '')
    .join(' ');
};

/** The import offer: a dry run's estimate, then (on yes) the import. Quiet when there is nothing to import. */
const offerImport = async (runtime: MemoryRuntime, ui: UiPort): Promise<string | undefined> => {
  const importer = hubImporter(runtime, {
    home: process.env['HOME'] ?? homedir(),
    sessionFile: runtime.session.view().context.sessionFile ?? undefined,
    onProgress: (text) => ui.setStatus('memory-import', text),
  });
  const dry = await importer.importSessions({ dryRun: true });
  const documents = (dry.details as { documents?: number }).documents ?? 0;
  // The session being set up is not "past"; with nothing else there is nothing to offer.
  if (documents <= 1) return undefined;
  const yes = await ui.confirm('Import past sessions of this project?', `${dry.text}\n\nImport them now? (/memory import later does the same)`);
  if (!yes) return 'Past sessions were not imported; /memory import does it later.';
  const applied = await importer.importSessions({ dryRun: false });
  return applied.text;
};

/** Guided setup, then (when it wrote) a fresh runtime, starter models, the import offer. */
export const guidedSetup = async (holder: RuntimeHolder, ctx: ExtensionContext, via: 'first-run' | 'command' | 'hub'): Promise<void> => {
  const ui = uiOf(ctx);
  const runtime = holder.runtime ?? (await holder.starting);
  if (runtime === undefined) return;
  if (!ui.interactive) {
    ui.notify('Guided memory setup needs pi\'s interactive screen: start pi in this repository and run /memory setup.', 'warning');
    return;
  }
  // Read fresh: a file fixed since the session started no longer stops setup.
  const unreadable = [runtime.loaded.files.user, runtime.loaded.files.project].flatMap((f) => fileConfigFiles.read(f.scope, f.path).error?.message ?? []);
  if (unreadable.length > 0) {
    // Setup never writes over a file it could not read: say so before the first question,
    // not after the last one.
    ui.notify(`Memory setup cannot start: ${unreadable.join('; ')}. Fix ${unreadable.length === 1 ? 'that file' : 'those files'} (the line and column above), then run /memory setup.`, 'warning');
    return;
  }
  const result = await runGuide({
    ui,
    files: fileConfigFiles,
    clock: systemClock,
    dispatch: (event) => runtime.setup.dispatch(event),
    loaded: runtime.loaded,
    scope: runtime.scope,
    scopeFor: (config) => runtime.scopeFor(config),
    env: env(),
    openServer: (baseUrl, apiKey) => createMemoryServer({ baseUrl, timeoutMs: 3_000, clock: systemClock, ...(apiKey === undefined ? {} : { apiKey }) }),
    serverCommand: embeddedServerCommand(),
    via,
  });
  if (result.outcome !== 'written') {
    ui.notify(result.text, result.outcome === 'failed' ? 'warning' : 'info');
    return;
  }
  const next = await holder.restart?.(ctx);
  const lines = [result.text];
  if (next !== undefined) {
    await settled(next, 10_000);
    const state = setupState(next.setup.getSnapshot());
    lines.push(state === 'ready' ? `Memory is on: bank ${next.scope.projectBank.bankId}, tagged ${next.scope.identity.tag}.` : `Memory: ${state}${next.setup.getSnapshot().context.detail === null ? '' : ` (${next.setup.getSnapshot().context.detail ?? ''})`}; /memory:doctor says more.`);
    if (result.starters !== undefined && state === 'ready') lines.push(await applyStarters(next, ui, result.starters, { confirm: false }));
  }
  ui.notify(lines.join('\n'), 'info');
  if (next !== undefined && setupState(next.setup.getSnapshot()) === 'ready') {
    const imported = await offerImport(next, ui).catch((error: unknown) => `Import did not run: ${redact(error instanceof Error ? error.message : String(error))}`);
    if (imported !== undefined) ui.notify(imported, 'info');
  }
};

/** Remembers "never in this repository" in the user file, by project id. */
const decline = async (runtime: MemoryRuntime, ui: UiPort): Promise<void> => {
  const loaded = runtime.loaded;
  const id = runtime.scope.identity.id;
  const plan = planWrite(fileConfigFiles, [{ scope: 'user', path: loaded.files.user.path, set: [{ path: 'setup.declinedProjects', value: [...new Set([...loaded.config.setupDeclined, id])] }], unset: [] }], loaded.home);
  const error = 'error' in plan ? plan.error : await commitWrite(fileConfigFiles, plan);
  if (error !== undefined) {
    await runtime.setup.dispatch(setupEvents.configWriteFailed({ at: systemClock.now(), reason: error }));
    ui.notify(`Could not remember that answer: ${error}`, 'warning');
    return;
  }
  await runtime.setup.dispatch(setupEvents.configWritten({ at: systemClock.now(), via: 'first-run', files: [loaded.files.user.path], fields: ['setup.declinedProjects'] }));
  await runtime.reloadConfig();
  ui.notify(
    `Memory will not ask again in this repository (project ${id}, recorded under setup.declinedProjects in ${displayPath(loaded.files.user.path, loaded.home)}). Nothing here is saved to memory; /memory setup still sets it up.`,
    'info',
  );
};

/**
 * The first run in a repository that is not set up: one question (set up now / not now /
 * never here). Without a UI it says what to run and never waits. Not awaited by
 * `session_start`: pi's start-up goes on while the question is open.
 */
export const firstRun = async (holder: RuntimeHolder, ctx: ExtensionContext): Promise<void> => {
  const runtime = holder.runtime ?? (await holder.starting);
  if (runtime === undefined) return;
  const ui = uiOf(ctx);
  // A refused state dir (a planted link) is not "not set up": its own notice says what to fix.
  const refused = runtime.status().problems.some((p) => p.startsWith('memory is off for this project'));
  const state = refused ? 'disabled' : setupState(runtime.setup.getSnapshot());
  const action = firstRunAction({ state, interactive: ui.interactive, declined: isDeclined(runtime), asked: holder.firstRunAsked === true, configUnreadable: runtime.loaded.errors.length > 0 });
  if (action === 'quiet') return;
  holder.firstRunAsked = true;
  if (action === 'tell') {
    // The start-up notice already said what to run (binding.ts, on stderr without a UI).
    await runtime.setup.dispatch(setupEvents.firstRunTold({ at: systemClock.now() }));
    return;
  }
  const choice = await ui.select('Memory is not set up in this repository. Set it up now? (a few questions; nothing is written until you confirm)', [
    'Set up now',
    'Not now',
    'Never in this repository',
  ]);
  const answer = choice === 'Set up now' ? 'setup' : choice === 'Never in this repository' ? 'never' : 'later';
  await runtime.setup.dispatch(setupEvents.firstRunAnswered({ at: systemClock.now(), choice: answer }));
  if (answer === 'setup') return guidedSetup(holder, ctx, 'first-run');
  if (answer === 'never') return decline(runtime, ui);
  ui.notify('Memory stays off here for now; run /memory setup when you want it. Until then this session\'s conversation is held, not saved.', 'info');
};

/** The settings editor, then a fresh runtime when a write changed where memory goes. */
export const settingsEditor = async (holder: RuntimeHolder, ctx: ExtensionContext, runtime: MemoryRuntime): Promise<void> => {
  const ui = uiOf(ctx);
  const before = { baseUrl: runtime.loaded.config.baseUrl, key: `${runtime.loaded.config.apiKeyEnv ?? ''}|${runtime.loaded.config.apiKeyDirect === undefined ? '' : 'set'}`, enabled: runtime.loaded.config.enabled };
  await runSettings(settingsDeps(runtime, ui));
  const after = runtime.loaded.config;
  const key = `${after.apiKeyEnv ?? ''}|${after.apiKeyDirect === undefined ? '' : 'set'}`;
  if (after.baseUrl !== before.baseUrl || key !== before.key || after.enabled !== before.enabled) await holder.restart?.(ctx);
};

const OFF_HERE = 'In this project only';
const OFF_EVERYWHERE = 'In every project';

/** The hub's on/off: off asks where (this project or every project), on undoes every off; a fresh runtime opens (or closes) the queue. */
export const switchOnOff = async (holder: RuntimeHolder, ctx: ExtensionContext, runtime: MemoryRuntime): Promise<void> => {
  const ui = uiOf(ctx);
  const on = !runtime.loaded.config.enabled;
  let offScope: FileScope = 'user';
  if (!on && runtime.loaded.sources.enabled !== 'env') {
    const where = await ui.select('Turn memory off where?', [OFF_HERE, OFF_EVERYWHERE, 'Back']);
    if (where !== OFF_HERE && where !== OFF_EVERYWHERE) return;
    offScope = where === OFF_HERE ? 'project' : 'user';
  }
  const result = await switchMemory(settingsDeps(runtime, ui), on, offScope);
  if (result.written) {
    const next = await holder.restart?.(ctx);
    if (next !== undefined) await settled(next, 5_000);
  }
  ui.notify(result.text, result.level);
};
