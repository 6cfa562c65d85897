/**
 * Where a sync ingest's main thread went, from a `--cpu-prof` profile of `agent-memory serve`
 * (`bench/paired-ingest.ts --prof DIR` writes one per run; the main thread's ends `.0.001`):
 * the samples from the first to the last retain plan, each put in the first part whose
 * functions are on its stack (the order matters: the snapshot before the index, the index's
 * analysis before its bookkeeping, the plan's own analysis before the plan).
 *
 *   npx tsx bench/ingest-profile-split.ts DIR/CPU....0.001.cpuprofile [--others]
 *
 * Under load a profile's samples also hold time the thread waited for a core: read the shares,
 * and take the main thread's CPU from paired-ingest's `wall/batch` line to turn them into time.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const PARTS: readonly (readonly [string, readonly string[]])[] = [
  ['idle', ['(idle)']],
  ['garbage collection', ['(garbage collector)']],
  ['snapshot in the run (walk, segment, index seal and file)', ['writeSegment', 'encodeIndexFile', 'save', 'writeIndexFile', 'snapshotNow', 'seal']],
  ['index: analysis (wordsAndTerms)', ['wordsAndTerms', 'readingOf', 'asciiScan', 'stemWord', 'analyze']],
  ['index: bookkeeping (add, term ids, postings)', ['drain', 'indexedDocument']],
  ['request analysis (entities, chunks)', ['analyseItems', 'extractEntitySteps', 'chunkText']],
  ['plan', ['planRetain', 'planNow', 'assignDocumentIds']],
  ['store apply', ['applyAll', 'applyMutation']],
  ['commit (encode, write, fdatasync)', ['commit', 'encodeLineBytes', 'writeBatch', 'fdatasync', 'datasync']],
  ['request JSON and decode', ['parseJsonBody', 'decodeOr422', 'unknownFields']],
  ['response', ['writev', 'end', 'writeHead']],
  ['HTTP parsing, socket', ['parserOnHeadersComplete', 'parserOnBody', 'parserOnMessageComplete', 'parserOnIncoming', 'onStreamRead']],
];

const { values, positionals } = parseArgs({ allowPositionals: true, options: { others: { type: 'boolean' } } });
const path = positionals[0];
if (path === undefined) throw new Error('ingest-profile-split: name a .cpuprofile');
const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const stacks = new Map<number, Set<string>>();
const stackOf = (id: number): Set<string> => {
  let names = stacks.get(id);
  if (names === undefined) {
    names = new Set();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) names.add(byId.get(at)?.callFrame.functionName ?? '');
    stacks.set(id, names);
  }
  return names;
};

const planned = profile.samples.flatMap((s, i) => (stackOf(s).has('planRetain') ? [i] : []));
const first = planned[0];
const last = planned[planned.length - 1];
if (first === undefined || last === undefined) throw new Error('ingest-profile-split: no retain plan in this profile');

const micros = new Map<string, number>();
const others = new Map<string, number>();
let windowUs = 0;
for (let i = first; i <= last; i += 1) {
  const sample = profile.samples[i] ?? 0;
  // A sample's delta is the time until the next sample.
  const us = profile.timeDeltas[i + 1] ?? 0;
  windowUs += us;
  const names = stackOf(sample);
  const part = PARTS.find(([, fns]) => fns.some((f) => names.has(f)))?.[0] ?? 'other';
  micros.set(part, (micros.get(part) ?? 0) + us);
  if (part === 'other') {
    const leaf = byId.get(sample)?.callFrame.functionName ?? '';
    others.set(leaf, (others.get(leaf) ?? 0) + us);
  }
}
const busy = windowUs - (micros.get('idle') ?? 0);
console.log(`window ${(windowUs / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms (shares below are of busy)`);
for (const [part, us] of [...micros].sort((a, b) => b[1] - a[1])) {
  if (part !== 'idle') console.log(`${part.padEnd(58)} ${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}%`);
}
if (values.others === true) for (const [leaf, us] of [...others].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  other: ${(us / 1000).toFixed(1).padStart(7)} ms ${leaf || '(anonymous)'}`);
