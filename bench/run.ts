/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process (so one benchmark's heap
 * and timers cannot skew the next) and lists the result files. `npm run bench -- name` runs one.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultsDir } from './lib/harness.js';
import { readResults, summaryTable, updateReadme } from './lib/summary.js';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const file of benches) {
  console.log(`\n== ${file}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(here, file)], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
console.log(`\n${benches.length - failed} benchmarks ran, ${failed} failed; results in bench/results/`);
if (updateReadme(join(here, '..', 'README.md'), summaryTable(readResults(resultsDir)))) console.log('README.md benchmark table updated');
process.exitCode = failed === 0 ? 0 : 1;
