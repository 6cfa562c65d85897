// The peers' side of the comparison bench (bench/server-peers.bench.ts): each peer runs in its own
// process, reads the same items and queries, and reports one JSON line per step on stdout.
import { readFileSync } from 'node:fs';

/** The items file: one JSON object per line ({content, document_id, tags}). */
export const readItems = (path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));

export const readQueries = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** One step's report; the parent timestamps each line as it arrives. */
export const report = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

/**
 * The serving half every peer shares: the first query is reported at once (the parent times
 * process start to that line), then every query is timed and the peak RSS reported.
 */
export const serve = async (queries, query) => {
  const first = query(queries[0]);
  report({ step: 'first', hits: first.length });
  for (let i = 0; i < 20; i += 1) query(queries[i % queries.length]);
  const latencies = [];
  for (const q of queries) {
    const start = process.hrtime.bigint();
    query(q);
    latencies.push(ms(start));
  }
  report({ step: 'served', latencies, peakRssMb: process.resourceUsage().maxRSS / 1024 });
};

export { ms };
