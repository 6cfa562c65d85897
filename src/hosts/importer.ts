/**
 * Builds the import gate for a memory runtime: the checkpoint journal (JSONL at
 * `importCheckpoint`), the manifest file, pi's session reader, the runtime's retain queue,
 * and a run lock so two imports of one project never interleave. Hosts call this; the
 * gate itself only sees ports.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { createDirLock, type HeldLock } from '../adapters/fs/dirLock.js';
import { openJsonlJournal } from '../adapters/queue/jsonlJournal.js';
import { readJsonFile, writeJsonFile } from '../adapters/fs/stateFiles.js';
import { otherAgentSessionDirs } from '../adapters/sessions/agentSessionDirs.js';
import { piSessionDir, piSessionFiles } from '../adapters/sessions/piSessionFiles.js';
import { rememberedSha256Hex } from '../adapters/ids/sha256Hex.js';
import * as path from 'node:path';
import { redact, redactValue } from '../config/redact.js';
import { jsonCopy, type PositiveInt } from '../codecs/codecs.js';
import type { SessionImporter } from '../tools/commands/commandContext.js';
import { importTable } from '../tools/commands/importReport.js';
import { pathRedactingJournal } from '../effects/import/checkpointRedaction.js';
import type { MemoryConfig } from '../config/fields.js';
import { importCount, importSummary, importView, type ImportView } from '../machines/import/selectors.js';
import type { RuntimeStatusView } from '../tools/context.js';
import type { ImportOptions } from '../machines/import/events.js';
import { readImportState } from '../effects/import/importState.js';
import { startImportGate, type ImportGate } from '../effects/import/importGate.js';
import { directRetain } from '../effects/import/directRetain.js';
import { systemClock } from '../effects/ports/clock.js';
import type { MemoryRuntime } from './memoryRuntime.js';

export interface ImportOverrides {
  readonly dryRun: boolean;
}

/** The run options from config (the contract's import fields) and the command's flags. */
export const importOptionsFrom = (config: MemoryConfig, bankId: string, overrides: ImportOverrides): ImportOptions => {
  // The config's bounded length (SummaryChars) is a PositiveInt, as the import's options keep it.
  const toolSummaryMaxChars: PositiveInt = config.importToolSummaryMaxChars;
  return {
    dryRun: overrides.dryRun,
    resume: config.importResume,
    replaceExisting: config.importReplaceExisting,
    mode: config.importMode,
    qualityProfile: config.importQualityProfile,
    branches: config.importBranches,
    toolResults: config.importToolResults,
    toolSummaryMaxChars,
    bankId,
  } as ImportOptions;
};

export interface Importer {
  readonly gate: ImportGate;
  readonly checkpointPath: string;
  readonly manifestPath: string;
  /** pi's session directory for this project. */
  readonly sessionDir: string;
  /** Claude Code's and Codex's session directories that exist; with `sessionDir`, what `--all` imports. */
  readonly otherAgentDirs: readonly string[];
  options(overrides: ImportOverrides): ImportOptions;
  close(): Promise<void>;
}

export interface OpenImporterOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  /** How long to wait for another import of this project to finish. */
  readonly lockTimeoutMs?: number;
  /**
   * The commands a message names where the person reads it: the CLI's own command lines
   * (selfCommand.ts); default pi's (`/memory dead-letters`, `/memory:doctor`).
   */
  readonly commands?: { readonly deadLetters: string; readonly doctor: string };
}

export const openImporter = async (runtime: MemoryRuntime, options: OpenImporterOptions): Promise<Importer> => {
  const { config } = runtime.loaded;
  const queue = runtime.queue;
  if (queue === undefined) throw new Error(`the retain queue is not open (${runtime.status().problems.join('; ') || 'unknown reason'}); run ${options.commands?.doctor ?? '/memory:doctor'} to see why`);
  const checkpointPath = config.importCheckpoint;
  const manifestPath = config.importManifest;
  const lock = createDirLock({ path: `${checkpointPath}.run.lock`, staleMs: 60_000 });
  let held: HeldLock | undefined;
  try {
    held = await lock.acquire(options.lockTimeoutMs ?? 2_000);
  } catch {
    const owner = await lock.holder();
    throw new Error(`another import of this project is running (pid ${owner?.pid ?? '?'} on ${owner?.host ?? hostname()}); wait for it, or stop it with Ctrl+C`);
  }
  const heartbeat = setInterval(() => void held?.refresh(), 20_000);
  heartbeat.unref();
  const journal = await openJsonlJournal({ path: checkpointPath, onDamage: (damage) => process.emitWarning(redact(`import checkpoint: ${damage.reason}`)) });
  const scope = runtime.scope;
  const bankId = scope.projectBank.bankId;
  const gate = await startImportGate({
    // The documents' hashes are remembered for the retain queue's hash of the same content (one SHA-256 pass less).
    files: { ...piSessionFiles, digest: rememberedSha256Hex },
    queue,
    // The plan's documents go straight to the server while it answers; the queue takes the rest.
    direct: directRetain({ server: runtime.server, digest: rememberedSha256Hex, now: () => systemClock.now(), async: config.retainAsync }),
    // Session paths can hold a secret: redacted in what the checkpoint stores.
    journal: pathRedactingJournal(journal),
    clock: systemClock,
    project: { cwd: runtime.loaded.cwd, bankId, tags: scope.projectRetainTags },
    liveRetained: (sessionId) => {
      const fingerprints = runtime.retainCursor.retained(sessionId);
      return fingerprints.size === 0 ? undefined : { fingerprints, digest: runtime.ids.digest };
    },
    manifest: { path: manifestPath, read: () => readJsonFile(manifestPath), write: (data) => writeJsonFile(manifestPath, data) },
    ...(options.commands === undefined ? {} : { deadLettersCommand: options.commands.deadLetters }),
  });
  return {
    gate,
    checkpointPath,
    manifestPath,
    sessionDir: piSessionDir(runtime.loaded.cwd, options.env ?? process.env, options.home),
    otherAgentDirs: otherAgentSessionDirs(runtime.loaded.cwd, options.env ?? process.env, options.home),
    options: (overrides) => importOptionsFrom(runtime.loaded.config, bankId, overrides),
    close: async () => {
      clearInterval(heartbeat);
      await gate.stop();
      await journal.close();
      await held?.release();
    },
  };
};

/** The import state recorded in a project's checkpoint, without opening the gate (status, doctor). */
export const readImportStatus = async (checkpointPath: string): Promise<ImportView | undefined> => {
  if (!existsSync(checkpointPath)) return undefined;
  const journal = await openJsonlJournal({ path: checkpointPath });
  let view: ImportView;
  try {
    view = importView(await readImportState(journal));
  } finally {
    await journal.close();
  }
  if (view.state !== 'scanning' && view.state !== 'planning' && view.state !== 'importing') return view;
  // Mid-run in the checkpoint: running now if another process holds the run lock, else interrupted.
  const holder = await createDirLock({ path: `${checkpointPath}.run.lock` }).holder();
  return holder !== undefined ? view : { ...view, state: 'paused', pause: { cause: 'interrupted', reason: 'the last import stopped before it finished' } };
};

/** The import state as status, `/memory` and the doctor show it. */
export const importStatusOf = async (checkpointPath: string): Promise<RuntimeStatusView['import']> => {
  try {
    const view = await readImportStatus(checkpointPath);
    if (view === undefined) return undefined;
    return {
      state: view.state,
      detail: importSummary(view),
      checkpoint: checkpointPath,
      ...(view.startedAt === null ? {} : { lastRun: new Date(view.startedAt).toISOString() }),
      counts: { sessions: view.sessions, documents: view.documents, queued: view.queued, sent: view.sent, skipped: view.skipped, imported: view.imported.total, delivered: view.imported.completed },
      ...(view.error === null ? {} : { error: view.error }),
    };
  } catch (error) {
    return { state: 'unreadable', detail: redact(`${error instanceof Error ? error.message : String(error)}; move or repair ${checkpointPath}, then run the import again`), checkpoint: checkpointPath };
  }
};


export interface HubImporterOptions extends OpenImporterOptions {
  /** The host session's own file: its directory is where this project's sessions are. */
  readonly sessionFile?: string | undefined;
  /** Progress lines while a run is under way (pi: the footer status). */
  readonly onProgress?: (text: string | undefined) => void;
}

/** `/memory import [apply]`: this project's pi, Claude Code and Codex sessions, a dry run unless applied. */
export const hubImporter = (runtime: MemoryRuntime, options: HubImporterOptions): SessionImporter => ({
  importSessions: async ({ dryRun }) => {
    const importer = await openImporter(runtime, options);
    const sources = [options.sessionFile === undefined ? importer.sessionDir : path.dirname(options.sessionFile), ...importer.otherAgentDirs];
    const unsubscribe = importer.gate.subscribe((snapshot) => {
      const view = importView(snapshot);
      options.onProgress?.(`memory import: ${view.state} ${importCount(view)}`);
    });
    try {
      const view = await importer.gate.run({ sources, options: importer.options({ dryRun }) });
      const snapshot = dryRun ? importer.gate.lastDryRun() : importer.gate.gate.getSnapshot();
      const text = importTable(view, snapshot, { checkpoint: importer.checkpointPath, manifest: importer.manifestPath }).join('\n');
      return { text, details: redactValue(jsonCopy(view)) };
    } finally {
      unsubscribe();
      options.onProgress?.(undefined);
      await importer.close();
    }
  },
});
