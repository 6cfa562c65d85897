/**
 * The benchmark tables, built from bench/results/*.json, between two marker comments, so the
 * figures in the docs are always the ones the last `npm run bench` measured: every figure in
 * docs/benchmarks.md, and the README's short table of the figures that carry a target.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResult } from './harness.js';

export const START = '<!-- bench:start -->';
export const END = '<!-- bench:end -->';

const fmt = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3));

export const summaryTable = (results: readonly BenchResult[]): string => {
  const rows = results.flatMap((r) =>
    r.figures.map((f) => {
      const base = f.baseline === undefined ? '' : `${f.baseline.name}: ${fmt(f.baseline.value)}`;
      const ratio = f.ratio === undefined ? '' : `${fmt(f.ratio)}×`;
      const verdict = f.pass === undefined ? '' : f.pass ? 'met' : '**missed**';
      return `| ${r.bench} | ${f.name} | ${fmt(f.value)} ${f.unit} | ${base} | ${ratio} | ${f.target ?? ''} | ${verdict} |`;
    }),
  );
  const when = results.map((r) => r.at).sort().at(-1) ?? 'never';
  return [
    `Measured by \`npm run bench\` on ${results[0]?.node ?? 'Node'} (last run ${when}); each figure beside a baseline from the same run.`,
    '',
    '| bench | figure | value | baseline (same run) | ratio | target | |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
};

/** The figures that carry a target, one line each: what a person checks first. */
export const targetTable = (results: readonly BenchResult[]): string => {
  const rows = results.flatMap((r) =>
    r.figures
      .filter((f) => f.target !== undefined)
      .map((f) => {
        const ratio = f.ratio === undefined || f.baseline === undefined ? '' : `${fmt(f.ratio)}× ${f.baseline.name}`;
        const verdict = f.pass === undefined ? '' : f.pass ? 'met' : '**missed**';
        return `| ${f.name} | ${fmt(f.value)} ${f.unit} | ${ratio} | ${f.target ?? ''} ${verdict} |`;
      }),
  );
  const when = results.map((r) => r.at).sort().at(-1) ?? 'never';
  return [
    `\`npm run bench\` on ${results[0]?.node ?? 'Node'}, last run ${when}; every figure with its same-run baseline: [docs/benchmarks.md](docs/benchmarks.md).`,
    '',
    '| figure | value | vs same-run baseline | target |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
};

export const readResults = (dir: string): BenchResult[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as BenchResult)
    : [];

/** Replaces the text between the markers; returns false when the file has no markers. */
export const updateBetweenMarkers = (path: string, table: string): boolean => {
  const text = readFileSync(path, 'utf8');
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) return false;
  writeFileSync(path, `${text.slice(0, a + START.length)}\n${table}\n${text.slice(b)}`);
  return true;
};
