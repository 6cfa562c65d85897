/**
 * The full suite's file order: the files that run longest (each mostly waiting on child
 * processes: pi, the CLI, a server) start first, so the short ones fill the other workers
 * around them instead of a long one starting last. vitest orders by the durations it cached
 * when it has them; a fresh clone has none, hence this list. The rest keep vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST = [
  'test/reliability/chaos/chaos.test.ts',
  'test/hosts/pi/hostMatrix.test.ts',
  'test/hosts/pi/cliPrint.test.ts',
  'test/hosts/cli/diagnostics.test.ts',
  'test/reliability/retainQueueProcesses.test.ts',
  'test/hosts/cli/import.test.ts',
  'test/hosts/pi/packInstall.test.ts',
  'test/hosts/pi/deadLetters.test.ts',
  'test/reliability/traceDirFaults.test.ts',
];

const rank = (spec: TestSpecification): number => {
  const i = LONGEST.findIndex((file) => spec.moduleId.endsWith(file));
  return i < 0 ? LONGEST.length : i;
};

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array sort is stable: within a rank, vitest's own order holds.
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}
