/**
 * `npm run test:fast`, the inner loop: the machines, the effects over their twins, config, the
 * tools, the server's units and the architecture checks, all in-process (no pi, no child process, no mount). `npm test`
 * runs these and everything else (docs/architecture.md, "Test tiers").
 */
import { defineConfig } from 'vitest/config';
import { baseTest } from './vitest.config.js';

export default defineConfig({
  test: {
    ...baseTest,
    include: ['test/{machines,effects,config,tools,server,architecture}/**/*.test.ts'],
    // These two start the server as a child process and restart it: the full suite's.
    exclude: ['test/server/persistence.test.ts', 'test/server/serveCommand.test.ts'],
    // One module graph per worker, not per file: importing src again for every file was most
    // of this tier's time. The full suite keeps vitest's per-file isolation.
    isolate: false,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-fast.json' },
  },
});
