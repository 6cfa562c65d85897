import { defineConfig } from 'vitest/config';

export const config = defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', 'json'],
    // Read by .ci/run to print one plain `N passed, N failed` closing line.
    outputFile: { json: 'test-artifacts/vitest.json' },
  },
});

export default config;
