/** The chaos run's figures, as the markdown table docs/reliability.md explains and as JSON. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { BenchResult } from '../../../bench/lib/harness.js';

export type FaultKind = 'wrongKey' | 'diskFull' | 'readOnly' | 'clockJump';

export interface ChaosResult {
  readonly at: string;
  readonly node: string;
  readonly pi: string;
  readonly seed: number;
  readonly processes: number;
  readonly durationS: number;
  /** pi turns started (one marker each), the final clean turn included. */
  readonly turns: number;
  readonly serverKills: number;
  readonly piKills: number;
  readonly faultWindows: Readonly<Record<FaultKind, number>>;
  /** Faults that could not be made on this machine, with why. */
  readonly faultsNotDone: readonly string[];
  /** pi exited 0 and did not report the turn as not retained. */
  readonly acknowledged: number;
  /** Distinct markers on the server (acknowledged or not: a killed turn may have been made durable). */
  readonly delivered: number;
  /** Acknowledged markers not on the server. */
  readonly lost: number;
  /** Markers on the server more than once, and the copies beyond the first. */
  readonly duplicated: number;
  readonly extraCopies: number;
  /** Turns that reported their own retain failure (loud, not acknowledged). */
  readonly reportedNotRetained: number;
  /** pi exits that were neither 0 nor our SIGKILL, and turns our guard had to end. */
  readonly piErrors: number;
  readonly piHung: number;
  /** The final `agent-memory flush`: exit code and its last line. */
  readonly finalFlush: string;
  /** Retain operations still pending on the server when it was counted (should be 0). */
  readonly serverPendingOperations: number;
  /** Batch parents left `pending` although their sub-batches completed (a server finding). */
  readonly serverStuckParentOperations: number;
  /** Up to 20 lost and 20 duplicated markers, for the investigation. */
  readonly lostMarkers: readonly number[];
  /** For those lost turns: when they started (s into the run), how long they ran, what they lived through. */
  readonly lostDetails: readonly { readonly marker: number; readonly startedS: number; readonly ms: number; readonly faults: readonly FaultKind[]; readonly serverKills: number }[];
  readonly duplicatedMarkers: readonly (readonly [number, number])[];
}

const windows = (w: ChaosResult['faultWindows']): string => `wrong key ${w.wrongKey}, disk full ${w.diskFull}, read-only ${w.readOnly}, clock jump ${w.clockJump}`;

export const chaosTable = (r: ChaosResult): string =>
  [
    '| processes | duration | kills of server | kills of pi | fault windows | acknowledged | delivered | lost | duplicated |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${r.processes} | ${r.durationS} s | ${r.serverKills} | ${r.piKills} | ${windows(r.faultWindows)} | ${r.acknowledged} | ${r.delivered} | ${r.lost} | ${r.duplicated}${r.extraCopies > r.duplicated ? ` (${r.extraCopies} extra copies)` : ''} |`,
  ].join('\n');

/**
 * bench/results/chaos.json: the bench result shape (`npm run bench` reads every file there into
 * the README's table) with two figures, the shares of acknowledged turns lost and of delivered
 * turns duplicated (target 0), then every figure of the run and its table.
 */
export const chaosBenchResult = (r: ChaosResult): BenchResult & ChaosResult & { readonly table: string } => {
  const run = `${r.processes} processes, ${r.durationS} s, ${r.serverKills + r.piKills} kills`;
  return {
    ...r,
    bench: 'chaos',
    figures: [
      { name: `acknowledged turns lost, of ${r.acknowledged} (${run})`, unit: 'ratio', value: r.acknowledged === 0 ? 0 : r.lost / r.acknowledged, target: '0', pass: r.lost === 0 },
      { name: `delivered turns on the server more than once, of ${r.delivered}`, unit: 'ratio', value: r.delivered === 0 ? 0 : r.duplicated / r.delivered, target: '0', pass: r.duplicated === 0 },
    ],
    notes: ['npm run test:chaos; columns explained in docs/chaos.md'],
    table: chaosTable(r),
  };
};

export const writeChaosJson = async (file: string, r: ChaosResult): Promise<void> => {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(chaosBenchResult(r), null, 2)}\n`);
};
