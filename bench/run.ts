/**
 * `npm run bench`: runs every bench/*.bench.ts in its own process (so one benchmark's heap
 * and timers cannot skew the next) and lists the result files. `npm run bench -- name` runs one;
 * `npm run bench -- recall-quality --data PATH` hands the flag to that bench.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultsDir } from './lib/harness.js';
import { readResults, summaryTable, targetTable, updateBetweenMarkers } from './lib/summary.js';

const here = dirname(fileURLToPath(import.meta.url));
// Names pick benches; `--flag value` pairs are handed to each bench run (`--data PATH`).
const args = process.argv.slice(2);
const flags = args.flatMap((a, i) => (a.startsWith('--') ? [a, ...(args[i + 1] !== undefined && !args[i + 1]!.startsWith('--') ? [args[i + 1]!] : [])] : []));
const only = args.filter((a) => !flags.includes(a));
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const file of benches) {
  console.log(`\n== ${file}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(here, file), ...flags], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
console.log(`\n${benches.length - failed} benchmarks ran, ${failed} failed; results in bench/results/`);
const results = readResults(resultsDir);
if (updateBetweenMarkers(join(here, '..', 'docs', 'benchmarks.md'), summaryTable(results))) console.log('docs/benchmarks.md table updated');
if (updateBetweenMarkers(join(here, '..', 'README.md'), targetTable(results))) console.log('README.md target table updated');
process.exitCode = failed === 0 ? 0 : 1;
