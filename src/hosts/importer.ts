/**
 * Builds the import gate for a memory runtime: the checkpoint journal (JSONL at
 * `importCheckpoint`), the manifest file, pi's session reader, the runtime's retain queue,
 * and a run lock so two imports of one project never interleave. Hosts call this; the
 * gate itself only sees ports.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { createDirLock, type HeldLock } from '../adapters/queue/dirLock.js';
import { openJsonlJournal } from '../adapters/queue/jsonlJournal.js';
import { readJsonFile, writeJsonFile } from '../adapters/fs/stateFiles.js';
import { piSessionDir, piSessionFiles } from '../adapters/sessions/piSessionFiles.js';
import { redact } from '../config/redact.js';
import type { MemoryConfig } from '../config/fields.js';
import { importView, type ImportView } from '../machines/import/selectors.js';
import type { ImportOptions } from '../machines/import/events.js';
import { readImportState } from '../effects/import/importState.js';
import { startImportGate, type ImportGate } from '../effects/import/importGate.js';
import { systemClock } from '../effects/ports/clock.js';
import type { MemoryRuntime } from './memoryRuntime.js';

export interface ImportOverrides {
  readonly dryRun: boolean;
}

/** The run options from config (the contract's import fields) and the command's flags. */
export const importOptionsFrom = (config: MemoryConfig, bankId: string, overrides: ImportOverrides): ImportOptions =>
  ({
    dryRun: overrides.dryRun,
    resume: config.importResume,
    replaceExisting: config.importReplaceExisting,
    mode: config.importMode,
    qualityProfile: config.importQualityProfile,
    branches: config.importBranches,
    toolResults: config.importToolResults,
    toolSummaryMaxChars: config.importToolSummaryMaxChars,
    bankId,
  }) as ImportOptions;

export interface Importer {
  readonly gate: ImportGate;
  readonly checkpointPath: string;
  readonly manifestPath: string;
  /** pi's session directory for this project (what `--all` imports). */
  readonly sessionDir: string;
  options(overrides: ImportOverrides): ImportOptions;
  close(): Promise<void>;
}

export interface OpenImporterOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  /** How long to wait for another import of this project to finish. */
  readonly lockTimeoutMs?: number;
}

export const openImporter = async (runtime: MemoryRuntime, options: OpenImporterOptions): Promise<Importer> => {
  const { config } = runtime.loaded;
  const queue = runtime.queue;
  if (queue === undefined) throw new Error(`the retain queue is not open (${runtime.status().problems.join('; ') || 'unknown reason'}); run agent-memory doctor`);
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
    files: piSessionFiles,
    queue,
    journal,
    clock: systemClock,
    project: { cwd: runtime.loaded.cwd, bankId, tags: scope.projectRetainTags },
    manifest: { path: manifestPath, read: () => readJsonFile(manifestPath), write: (data) => writeJsonFile(manifestPath, data) },
  });
  return {
    gate,
    checkpointPath,
    manifestPath,
    sessionDir: piSessionDir(runtime.loaded.cwd, options.env ?? process.env, options.home),
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
  try {
    return importView(await readImportState(journal));
  } finally {
    await journal.close();
  }
};

