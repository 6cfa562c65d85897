/**
 * Shared benchmark plumbing: percentiles, a timed loop, and the result file.
 * Every benchmark reports its figure beside a baseline measured in the same run,
 * so the ratio holds on a noisy machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const resultsDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export const percentiles = (samples: readonly number[]): Percentiles => {
  if (samples.length === 0) throw new Error('percentiles: no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return {
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    n: sorted.length,
  };
};

/** Times `fn` `iterations` times after `warmup` untimed runs; returns milliseconds per call. */
export const sample = async (fn: () => unknown, iterations: number, warmup = Math.min(50, iterations)): Promise<number[]> => {
  for (let i = 0; i < warmup; i += 1) await fn();
  const out: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return out;
};

export interface Figure {
  /** What is measured, e.g. `recall p50 at 100k memories`. */
  readonly name: string;
  readonly unit: 'ms' | 'items/s' | 'jobs/s' | 'ratio' | 's' | 'KiB' | 'MB/s' | 'MB' | 'lines';
  readonly value: number;
  /** The same-run baseline this figure is read against, if any. */
  readonly baseline?: { readonly name: string; readonly value: number };
  /** The target from the issue, e.g. `< 10`. */
  readonly target?: string;
  readonly pass?: boolean;
  /** `value / baseline.value`, filled in by `writeResult`. */
  readonly ratio?: number;
}

export interface BenchResult {
  readonly bench: string;
  readonly at: string;
  readonly node: string;
  readonly figures: readonly Figure[];
  readonly notes?: readonly string[];
}

/** Writes `bench/results/<bench>.json` and prints a one-line summary per figure. */
export const writeResult = (bench: string, figures: readonly Figure[], notes: readonly string[] = []): BenchResult => {
  // The ratio to the same-run baseline is what stays comparable across machines.
  const withRatio = figures.map((f) => (f.baseline && f.baseline.value !== 0 ? { ...f, ratio: f.value / f.baseline.value } : f));
  const result: BenchResult = { bench, at: new Date().toISOString(), node: process.version, figures: withRatio, notes };
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${bench}.json`), `${JSON.stringify(result, null, 2)}\n`);
  for (const f of figures) {
    const base = f.baseline ? ` (baseline ${f.baseline.name}: ${f.baseline.value.toFixed(3)})` : '';
    const target = f.target ? ` target ${f.target}${f.pass === undefined ? '' : f.pass ? ' ok' : ' MISSED'}` : '';
    console.log(`${bench}: ${f.name} = ${f.value.toFixed(3)} ${f.unit}${base}${target}`);
  }
  return result;
};
