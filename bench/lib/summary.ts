/**
 * The benchmark tables, built from bench/results/*.json, between two marker comments, so the
 * figures in the docs are always the ones the last `npm run bench` measured: every figure in
 * docs/benchmarks.md, and the README's one line a bench.
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

/**
 * The README's table: one line a bench, how many of its targets were met, the first figure that
 * carries a target (its headline) and the missed ones (the first by name, then how many more,
 * each in docs/benchmarks.md), so nothing missed is hidden and the README stays short.
 */
export const targetTable = (results: readonly BenchResult[]): string => {
  const rows = results.flatMap((r) => {
    const targeted = r.figures.filter((f) => f.target !== undefined && f.pass !== undefined);
    const head = targeted[0];
    if (head === undefined) return [];
    const met = targeted.filter((f) => f.pass === true).length;
    const ratio = head.ratio === undefined || head.baseline === undefined ? '' : ` (${fmt(head.ratio)}× ${head.baseline.name})`;
    const missed = targeted.filter((f) => f.pass !== true).map((f) => `${f.name} (${fmt(f.value)} ${f.unit}, target ${f.target ?? ''})`);
    return [`| ${r.bench} | ${met} of ${targeted.length} | ${head.name}: ${fmt(head.value)} ${head.unit}${ratio}, target ${head.target ?? ''} | ${missed.length > 1 ? `${missed[0] ?? ''}; ${missed.length - 1} more` : missed[0] ?? 'none'} |`];
  });
  const when = results.map((r) => r.at).sort().at(-1) ?? 'never';
  return [
    `\`npm run bench\` on ${results[0]?.node ?? 'Node'}, last run ${when}. Every figure with its same-run baseline: [docs/benchmarks.md](docs/benchmarks.md).`,
    '',
    '| bench | targets met | headline | missed |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
};

export const readResults = (dir: string): BenchResult[] =>
  existsSync(dir)
    ? readdirSync(dir)
        // A `--quick` run is a tuning aid that leaves the held-out sets out; it is never a result.
        .filter((f) => f.endsWith('.json') && !f.endsWith('-quick.json'))
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
