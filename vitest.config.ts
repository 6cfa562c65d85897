import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/helpers/longestFirst.js';

/** What every tier shares. */
export const baseTest = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks',
  // vitest's default on 2 cores is one file at a time; most long files wait on child
  // processes (pi, the CLI, a server), so three run side by side.
  maxWorkers: 3,
  // Every temp dir of the run in one place, removed at its end (test/helpers/tempRoot.ts).
  globalSetup: 'test/helpers/tempRoot.ts',
} as const;

/** `npm test`: every test, longest files first. */
export const config = defineConfig({
  test: {
    ...baseTest,
    // The pi extension bundled once for every real pi the run starts (test/helpers/piExtension.ts).
    globalSetup: [baseTest.globalSetup, 'test/helpers/piExtension.ts'],
    include: ['test/**/*.test.ts'],
    sequence: { sequencer: LongestFirst },
    reporters: ['default', 'json'],
    // Read by .ci/run to print one plain `N passed, N failed` closing line.
    outputFile: { json: 'test-artifacts/vitest.json' },
  },
});

export default config;
