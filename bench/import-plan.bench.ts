/**
 * Dry-run planning of about 200 MB of generated pi session files (IMPORT_PLAN_MB to change):
 * scan, stream every file, build and hash every document. Baseline: a raw read of the same
 * files in the same run. Target: at least 50 MB/s.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { piSessionFiles } from '../src/adapters/sessions/piSessionFiles.js';
import { startImportGate } from '../src/effects/import/importGate.js';
import { systemClock } from '../src/effects/ports/clock.js';
import { createMemoryJournal } from '../test/helpers/memoryJournal.js';
import type { ImportOptions } from '../src/machines/import/events.js';
import { writeResult } from './lib/harness.js';
import { writeSessionSet } from './lib/sessionData.js';

const TOTAL = Number(process.env['IMPORT_PLAN_MB'] ?? 200) * 1e6;

const dir = await mkdtemp(join(tmpdir(), 'am-bench-import-plan-'));
try {
  const cwd = join(dir, 'project');
  const sessions = join(dir, 'sessions');
  await import('node:fs').then((fs) => fs.mkdirSync(sessions, { recursive: true }));
  const set = writeSessionSet(sessions, cwd, TOTAL, 500_000);

  // Read once untimed so both measurements start from a warm page cache.
  for (const name of await readdir(sessions)) await readFile(join(sessions, name));
  const rawStart = process.hrtime.bigint();
  for (const name of await readdir(sessions)) await readFile(join(sessions, name));
  const rawMs = Number(process.hrtime.bigint() - rawStart) / 1e6;

  const refuse = () => Promise.reject(new Error('a dry run never queues'));
  const gate = await startImportGate({
    files: piSessionFiles,
    queue: { enqueue: refuse, flush: refuse, status: () => ({ depth: 0, deadLetters: 0, state: 'idle', damaged: 0 }), subscribe: () => () => undefined, deadLetters: refuse },
    manifest: { path: join(dir, 'manifest.json'), read: async () => ({}), write: async () => undefined },
    journal: createMemoryJournal(),
    clock: systemClock,
    project: { cwd, bankId: 'bench', tags: ['project:bench'] },
  });
  const options = { dryRun: true, resume: true, replaceExisting: true, mode: 'curated', qualityProfile: 'compatible', branches: 'current-only', toolResults: 'errors-only', toolSummaryMaxChars: 500, bankId: 'bench' } as ImportOptions;
  const planStart = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  const view = await gate.run({ sources: [sessions], options });
  const planMs = Number(process.hrtime.bigint() - planStart) / 1e6;
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  await gate.stop();
  if (view.state !== 'planned' || view.sessions !== set.files) throw new Error(`planned ${view.sessions} of ${set.files} sessions (${view.state})`);

  const mbps = (ms: number): number => set.bytes / 1e6 / (ms / 1000);
  writeResult(
    'import-plan',
    [
      {
        name: `dry-run planning of ${(set.bytes / 1e6).toFixed(0)} MB (${set.files} sessions, ${view.documents} documents)`,
        unit: 'MB/s',
        value: mbps(planMs),
        baseline: { name: 'raw read of the same files', value: mbps(rawMs) },
        target: '>= 50 MB/s',
        pass: mbps(planMs) >= 50,
      },
    ],
    [
      `curated mode, current branch; ${view.tokens} estimated tokens; generated data in a temp dir, removed after the run`,
      `planning used ${cpuMs.toFixed(0)} ms of CPU for ${planMs.toFixed(0)} ms wall: ${(set.bytes / 1e6 / (cpuMs / 1000)).toFixed(1)} MB per CPU-second (the wall figure suffers on a loaded machine)`,
    ],
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
