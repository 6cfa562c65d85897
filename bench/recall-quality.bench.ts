/**
 * Recall quality of the embedded server, beside textbook Okapi BM25 (k1 1.2, b 0.75) with and
 * without a Porter stemmer computed in the same run:
 *
 * - LoCoMo (`--data PATH` or RECALL_QUALITY_DATA; CC BY-NC, so never in the repository; skipped
 *   with a message when absent): every turn its own item (document id = dia_id), one bank per
 *   conversation, R@5 / R@10 over the questions of categories 1-4 with evidence; reported on
 *   the whole file and on two halves: conversations 0-1 (where parameters were chosen) and 2-4
 *   (never tuned on).
 * - The coding-memory set in fixtures/recall-quality/coding.json: facts among distractors,
 *   questions phrased without the fact's words; share of facts in the top 3. Beside it six
 *   sets of other projects, each written blind (by someone who read neither the ranking's code
 *   nor its thesaurus): coding-holdout-1 to -3 and -6 were measured blind once and then guided
 *   changes; coding-holdout-4 and -5 never did, and are how the coding figure carries to a
 *   project not seen.
 * - Precision: prompts no memory answers (off-topic prompts from fixtures/recall-quality,
 *   LoCoMo category 5): share for which automatic recall's floor keeps nothing.
 * - Ablations: the ranking with each stage added in turn and with each one left out, each with
 *   what automatic recall would inject at the floor (injected R@10, category 5 and off-topic
 *   prompts kept quiet), so a stage's cost in precision shows beside its gain in recall.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult, type Figure } from './lib/harness.js';
import { hitAt, readLocomo, type Conversation } from './lib/locomo.js';
import { okapiIndex } from './lib/okapi.js';
import { jsonPoster } from './lib/postJson.js';
import { defaultConfigTemplate } from '../src/config/fields.js';
import { renderRecallBlock } from '../src/effects/session/recallBlock.js';
import { RECALL_FLOOR as CLIENT_FLOOR } from '../src/effects/session/recallFloor.js';
import { startEmbeddedServer } from '../src/server/index.js';
import { extractEntities } from '../src/server/retain/entities.js';
import { attributionOf } from '../src/server/search/attribution.js';
import { DEFAULT_FIELDS, FieldIndex, type FieldWeights } from '../src/server/search/fieldIndex.js';
import { ALL_STAGES, DEFAULT_STAGES, rank, type RankStages } from '../src/server/search/ranker.js';

/** The floor automatic recall puts under the best `scores.final` (RECALL_FLOOR=x tries another). */
const RECALL_FLOOR = Number(process.env['RECALL_FLOOR'] ?? CLIENT_FLOOR);

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'fixtures', 'recall-quality');

const argValue = (flag: string): string | undefined => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const dataPath = argValue('--data') ?? process.env['RECALL_QUALITY_DATA'];

interface Doc {
  readonly id: string;
  readonly content: string;
  readonly context: string;
  readonly timestamp: string;
}
interface Probe {
  readonly query: string;
  readonly relevant: readonly string[];
}
interface Corpus {
  readonly name: string;
  readonly docs: readonly Doc[];
  readonly probes: readonly Probe[];
  /** Prompts nothing here answers. */
  readonly unanswerable: readonly string[];
}

interface CodingSet {
  facts: { id: string; content: string; context: string }[];
  distractors: { content: string; context: string }[];
  questions: { fact: string; question: string }[];
}

/**
 * `asPiRun`: each item is stored as the extension stores a run (retainProjection.ts: the JSON
 * array of the run's projected messages: the developer's message and the agent's answer), so
 * the ranking and the recall block meet what a pi session really retains.
 */
const codingCorpus = (file: string, name: string, asPiRun = false): Corpus => {
  const set = JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as CodingSet;
  const start = Date.UTC(2025, 0, 6);
  const all = [...set.facts.map((f) => ({ ...f })), ...set.distractors.map((d, i) => ({ id: `distractor-${i}`, ...d }))];
  // Interleaved, as memories of a project accumulate: a fact every few distractors.
  const order = all.map((d, i) => ({ d, key: (i * 7919) % all.length })).sort((a, b) => a.key - b.key);
  const docs = order.map(({ d }, i) => {
    const timestamp = new Date(start + i * 3_600_000).toISOString();
    // The agent's answer restates the request, as agents do: the block must not show it twice.
    const run = [
      { role: 'user', timestamp, content: d.content },
      { role: 'assistant', timestamp, content: [{ type: 'text', text: `Got it: ${d.content}` }], model: 'bench', stopReason: 'stop' },
    ];
    const content = asPiRun ? JSON.stringify(run, null, 2) : d.content;
    return { id: d.id, content, context: asPiRun ? `pi coding session for project "${name}", session ${i}.jsonl` : d.context, timestamp };
  });
  return { name, docs, probes: set.questions.map((q) => ({ query: q.question, relevant: [q.fact] })), unanswerable: [] };
};

const offTopic = (): string[] => JSON.parse(readFileSync(join(fixtures, 'off-topic.json'), 'utf8')) as string[];

/** Chat sets written for this project in LoCoMo's shape: every question with evidence counts. */
const chatCorpus = (file: string): Corpus => {
  const [c] = readLocomo(join(fixtures, file));
  if (c === undefined) throw new Error(`${file} holds no conversation`);
  return { name: c.id, docs: c.turns.map((t) => ({ id: t.diaId, content: t.content, context: t.context, timestamp: t.timestamp })), probes: c.questions.filter((q) => q.evidence.length > 0).map((q) => ({ query: q.question, relevant: q.evidence })), unanswerable: [] };
};

const locomoCorpora = (conversations: readonly Conversation[]): Corpus[] =>
  conversations.map((c) => ({
    name: c.id,
    docs: c.turns.map((t) => ({ id: t.diaId, content: t.content, context: t.context, timestamp: t.timestamp })),
    probes: c.questions.filter((q) => q.category >= 1 && q.category <= 4 && q.evidence.length > 0).map((q) => ({ query: q.question, relevant: q.evidence })),
    unanswerable: c.questions.filter((q) => q.category === 5).map((q) => q.question),
  }));

type Ranker = (query: string, limit: number) => { ids: string[]; finals?: number[] };

interface Tally {
  n: number;
  at1: number;
  at3: number;
  at5: number;
  at10: number;
  evidence: number;
  evidenceFound: number;
  /** Hits in the top 3 / 10 of what automatic recall would inject (best final >= floor; rankers with scores only). */
  injected3: number;
  injected10: number;
  /** Prompts nothing answers (category 5; off-topic prompts), and those the floor keeps quiet. */
  cat5: number;
  cat5Quiet: number;
  offTopic: number;
  offTopicQuiet: number;
}
const tally = (): Tally => ({ n: 0, at1: 0, at3: 0, at5: 0, at10: 0, evidence: 0, evidenceFound: 0, injected3: 0, injected10: 0, cat5: 0, cat5Quiet: 0, offTopic: 0, offTopicQuiet: 0 });
const score = (t: Tally, ranked: readonly string[], relevant: readonly string[]): void => {
  t.n += 1;
  if (hitAt(ranked, relevant, 1)) t.at1 += 1;
  if (hitAt(ranked, relevant, 3)) t.at3 += 1;
  if (hitAt(ranked, relevant, 5)) t.at5 += 1;
  if (hitAt(ranked, relevant, 10)) t.at10 += 1;
  const top10 = [...new Set(ranked)].slice(0, 10);
  t.evidence += relevant.length;
  t.evidenceFound += relevant.filter((r) => top10.includes(r)).length;
};
const add = (a: Tally, b: Tally): Tally => {
  const out = tally();
  for (const k of Object.keys(out) as (keyof Tally)[]) out[k] = a[k] + b[k];
  return out;
};
const pct = (x: number, n: number): number => (n === 0 ? 0 : (100 * x) / n);

/** What automatic recall would inject: nothing when the best result is under the floor. */
const passes = (finals: readonly number[] | undefined): boolean => finals === undefined || (finals[0] ?? 0) >= RECALL_FLOOR;

const evaluate = (corpus: Corpus, ranker: Ranker, prompts: readonly string[]): Tally => {
  const t = tally();
  let scored = false;
  for (const p of corpus.probes) {
    const r = ranker(p.query, 10);
    scored ||= r.finals !== undefined;
    score(t, r.ids, p.relevant);
    if (r.finals !== undefined && passes(r.finals)) {
      if (hitAt(r.ids, p.relevant, 3)) t.injected3 += 1;
      if (hitAt(r.ids, p.relevant, 10)) t.injected10 += 1;
    }
  }
  // Precision needs scores: the Okapi baselines have none.
  if (!scored) return t;
  for (const q of corpus.unanswerable) {
    t.cat5 += 1;
    if (!passes(ranker(q, 10).finals)) t.cat5Quiet += 1;
  }
  for (const q of prompts) {
    t.offTopic += 1;
    if (!passes(ranker(q, 10).finals)) t.offTopicQuiet += 1;
  }
  return t;
};

/** The server's ranking straight over an index of the corpus, with chosen stages. */
const directRanker = (corpus: Corpus, stages: RankStages, fields: FieldWeights = DEFAULT_FIELDS): Ranker => {
  const index = new FieldIndex(fields);
  const text = new Map<string, string>();
  for (const d of corpus.docs) {
    // As the server indexes a retained item: the entities its extractor finds, and a transcript
    // line's speaker (attribution.ts).
    const entities = extractEntities(d.content).map((e) => e.text);
    index.add({ id: d.id, text: d.content, context: d.context, entities, thread: d.context, order: Date.parse(d.timestamp), ...attributionOf(d.content) });
    text.set(d.id, [d.content, d.context, ...entities].join('\n'));
  }
  return (query, limit) => {
    const r = rank({ index, query, accept: () => true, limit, textOf: (id) => text.get(id) ?? '', stages });
    return { ids: r.hits.map((h) => h.id), finals: r.hits.map((h) => h.final) };
  };
};

const okapiRanker = (corpus: Corpus, stem: boolean): Ranker => {
  const index = okapiIndex(
    corpus.docs.map((d) => ({ id: d.id, text: d.content })),
    stem,
  );
  return (query, limit) => ({ ids: index.search(query, limit) });
};

const NONE: RankStages = { wordnet: false, coding: false, feedback: false, neighbours: false, replies: false, session: false, temporal: false, speakers: false, attribution: false, answerTypes: false, typos: false, vectors: false };
const TEXT_ONLY: FieldWeights = { ...DEFAULT_FIELDS, weight: [1, 0, 0] };
const PLAIN_FIELDS: FieldWeights = { ...TEXT_ONLY, b: [0.75, 0.75, 0.5] };

interface Variant {
  readonly name: string;
  readonly make: (c: Corpus) => Ranker;
}
const variants: Variant[] = [
  { name: 'Okapi BM25 (plain)', make: (c) => okapiRanker(c, false) },
  { name: 'Okapi BM25 + Porter stemmer', make: (c) => okapiRanker(c, true) },
  { name: 'server analyzer (Porter, contractions), text only, b 0.75', make: (c) => directRanker(c, NONE, PLAIN_FIELDS) },
  { name: '+ b 0.5', make: (c) => directRanker(c, NONE, TEXT_ONLY) },
  { name: '+ WordNet expansion', make: (c) => directRanker(c, { ...NONE, wordnet: true }) },
  { name: '+ coding thesaurus', make: (c) => directRanker(c, { ...NONE, wordnet: true, coding: true }) },
  { name: '+ neighbouring turns', make: (c) => directRanker(c, { ...NONE, wordnet: true, coding: true, neighbours: true }) },
  { name: '+ session evidence', make: (c) => directRanker(c, { ...DEFAULT_STAGES, replies: false, temporal: false, speakers: false, attribution: false, answerTypes: false }) },
  { name: '+ temporal cues', make: (c) => directRanker(c, { ...DEFAULT_STAGES, replies: false, speakers: false, attribution: false, answerTypes: false }) },
  { name: '+ speakers', make: (c) => directRanker(c, { ...DEFAULT_STAGES, replies: false, attribution: false, answerTypes: false }) },
  { name: '+ attribution check in the confidence', make: (c) => directRanker(c, { ...DEFAULT_STAGES, replies: false, answerTypes: false }) },
  { name: '+ replies and split messages', make: (c) => directRanker(c, { ...DEFAULT_STAGES, answerTypes: false }) },
  { name: '+ answer types (= server default)', make: (c) => directRanker(c, DEFAULT_STAGES) },
  { name: 'default + pseudo-relevance feedback', make: (c) => directRanker(c, ALL_STAGES) },
  { name: 'default + context field (BM25F weight 0.3)', make: (c) => directRanker(c, DEFAULT_STAGES, { ...DEFAULT_FIELDS, weight: [1, 0.3, 0.5] }) },
  { name: 'default but WordNet', make: (c) => directRanker(c, { ...DEFAULT_STAGES, wordnet: false }) },
  { name: 'default but coding thesaurus', make: (c) => directRanker(c, { ...DEFAULT_STAGES, coding: false }) },
  { name: 'default but neighbours', make: (c) => directRanker(c, { ...DEFAULT_STAGES, neighbours: false }) },
  { name: 'default but replies and split messages', make: (c) => directRanker(c, { ...DEFAULT_STAGES, replies: false }) },
  { name: 'default but session evidence', make: (c) => directRanker(c, { ...DEFAULT_STAGES, session: false }) },
  { name: 'default but temporal cues', make: (c) => directRanker(c, { ...DEFAULT_STAGES, temporal: false }) },
  { name: 'default but speakers (the check stays)', make: (c) => directRanker(c, { ...DEFAULT_STAGES, speakers: false }) },
  { name: 'default but the attribution check', make: (c) => directRanker(c, { ...DEFAULT_STAGES, attribution: false }) },
  { name: 'default but answer types', make: (c) => directRanker(c, { ...DEFAULT_STAGES, answerTypes: false }) },
  { name: 'default but word vectors', make: (c) => directRanker(c, { ...DEFAULT_STAGES, vectors: false }) },
];

/** A recall request's options: the bench's old one (world facts only) or the extension's own. */
interface RequestShape {
  readonly name: string;
  readonly body: Record<string, unknown>;
}
/** What every figure before 2026-11-27 was taken with. */
const WORLD_REQUEST: RequestShape = { name: 'world facts only, 4096 tokens', body: { types: ['world'], budget: 'mid', max_tokens: 4096 } };
/** The extension's default request (src/config/fields.ts defaults, src/effects/session/recall.ts). */
const defaults = defaultConfigTemplate();
const EXTENSION_REQUEST: RequestShape = {
  name: `extension default (${defaults.recallTypes.join(', ')}; ${defaults.recallBudget}; ${defaults.recallMaxTokens} tokens${defaults.recallPreferObservations ? '; prefer_observations' : ''})`,
  body: { types: [...defaults.recallTypes], budget: defaults.recallBudget, max_tokens: defaults.recallMaxTokens, ...(defaults.recallPreferObservations ? { prefer_observations: true } : {}) },
};

interface RecallHit {
  readonly id: string;
  readonly text: string;
  readonly type?: string;
  readonly document_id: string | null;
  readonly tags?: string[];
  readonly mentioned_at?: string | null;
  readonly occurred_start?: string | null;
  readonly source_fact_ids?: string[];
  readonly scores?: { final: number };
}

/** What the injected blocks of one run showed: lines, JSON syntax, repeated lines. */
interface BlockTally {
  blocks: number;
  lines: number;
  jsonLines: number;
  duplicateLines: number;
  chars: number;
}
const blockTally = (): BlockTally => ({ blocks: 0, lines: 0, jsonLines: 0, duplicateLines: 0, chars: 0 });
// JSON syntax as a reader meets it in a memory: a quoted key, an object or array opening.
const JSON_SYNTAX = /"[A-Za-z_]+"\s*:|^\s*[[{]\s*$|\{\s*"|\[\s*\{/;
const countBlock = (b: BlockTally, text: string): void => {
  b.blocks += 1;
  b.chars += text.length;
  const seen = new Set<string>();
  for (const raw of text.split('\n')) {
    // Memory lines only: the fence, the preamble and the bank heading are the block's own.
    const m = /^\s*(?:\d+\.|-)\s+(.*)$/.exec(raw);
    if (m === null) continue;
    const line = (m[1] ?? '').trim();
    b.lines += 1;
    if (JSON_SYNTAX.test(line)) b.jsonLines += 1;
    const key = line.toLowerCase().replace(/\s*\([^)]*\)\s*(\[[^\]]*\])?$/, '');
    if (seen.has(key)) b.duplicateLines += 1;
    seen.add(key);
  }
};

interface ServerRun {
  tallies: Tally[];
  flooredTallies: Tally[];
  finals: Map<string, number[][]>;
  unanswered: Map<string, number[]>;
  blocks: Map<string, BlockTally>;
  /** Share of the top-10 results that were observations. */
  observationShare: number;
}

/**
 * The embedded server end to end: HTTP retain of every doc, HTTP recall of every probe with the
 * given request. A result counts as the documents it stands for: a fact its own, an observation
 * those of the facts it names (`source_fact_ids`), so a summary is credited only through turns.
 */
const serverRun = async (corpora: readonly Corpus[], prompts: readonly string[], shape: RequestShape): Promise<ServerRun> => {
  const server = await startEmbeddedServer({ port: 0 });
  const http = jsonPoster();
  const tallies: Tally[] = [];
  const flooredTallies: Tally[] = [];
  // Per corpus: the `final` scores of each probe's results, and the best final of each unanswerable prompt.
  const finals = new Map<string, number[][]>();
  const unanswered = new Map<string, number[]>();
  const blocks = new Map<string, BlockTally>();
  let top10 = 0;
  let top10Observations = 0;
  try {
    for (const c of corpora) {
      const bank = `${server.url}/v1/default/banks/${encodeURIComponent(c.name)}/memories`;
      for (let i = 0; i < c.docs.length; i += 100) {
        const items = c.docs.slice(i, i + 100).map((d) => ({ content: d.content, context: d.context, timestamp: d.timestamp, document_id: d.id }));
        const res = await http.post(bank, { items });
        if (res.status !== 200) throw new Error(`retain into ${c.name} failed: ${res.status} ${JSON.stringify(res.body)}`);
      }
      const documentOf = new Map<string, string>();
      for (let offset = 0; ; offset += 1000) {
        const res = await fetch(`${bank}/list?type=world&limit=1000&offset=${offset}`);
        const page = ((await res.json()) as { items: { id: string; document_id: string | null }[] }).items;
        for (const f of page) if (f.document_id !== null) documentOf.set(f.id, f.document_id);
        if (page.length < 1000) break;
      }
      const recall = async (query: string): Promise<{ ids: string[]; finals: number[]; hits: RecallHit[] }> => {
        const res = await http.post(`${bank}/recall`, { query, ...shape.body });
        if (res.status !== 200) throw new Error(`recall in ${c.name} failed: ${res.status} ${JSON.stringify(res.body)}`);
        const hits = (res.body as { results: RecallHit[] }).results;
        const ids: string[] = [];
        const f: number[] = [];
        for (const h of hits) {
          const docs = h.type === 'observation' ? (h.source_fact_ids ?? []).map((id) => documentOf.get(id) ?? '') : [h.document_id ?? ''];
          for (const d of docs) {
            ids.push(d);
            f.push(h.scores?.final ?? 0);
          }
        }
        return { ids, finals: f, hits };
      };
      const t = tally();
      const floored = tally();
      const bt = blockTally();
      const fs: number[][] = [];
      for (const p of c.probes) {
        const r = await recall(p.query);
        score(t, r.ids, p.relevant);
        const clears = (r.hits[0]?.scores?.final ?? 0) >= RECALL_FLOOR;
        // What automatic recall would inject: nothing when the best result is under the floor.
        score(floored, clears ? r.ids : [], p.relevant);
        fs.push(r.hits.map((h) => h.scores?.final ?? 0));
        for (const h of r.hits.slice(0, 10)) {
          top10 += 1;
          if (h.type === 'observation') top10Observations += 1;
        }
        if (clears) {
          const block = renderRecallBlock([{ bankId: c.name, items: r.hits.map((h) => ({ text: h.text, tags: h.tags ?? null, type: h.type ?? null, when: h.occurred_start ?? h.mentioned_at ?? null })) }]);
          if (block !== undefined) countBlock(bt, block.text);
        }
      }
      tallies.push(t);
      flooredTallies.push(floored);
      finals.set(c.name, fs);
      blocks.set(c.name, bt);
      const u: number[] = [];
      for (const q of [...c.unanswerable, ...prompts]) u.push((await recall(q)).hits[0]?.scores?.final ?? 0);
      unanswered.set(c.name, u);
    }
  } finally {
    http.close();
    await server.close();
  }
  return { tallies, flooredTallies, finals, unanswered, blocks, observationShare: top10Observations / Math.max(1, top10) };
};

interface Row {
  corpus: string;
  variant: string;
  r1: number;
  r3: number;
  r5: number;
  r10: number;
  n: number;
  /** NaN where the ranker gives no scores (Okapi) or the set has no such prompts. */
  injected3: number;
  injected10: number;
  cat5Quiet: number;
}

const rowOf = (corpus: string, variant: string, t: Tally): Row => {
  const scored = t.cat5 + t.offTopic > 0;
  return {
    corpus,
    variant,
    r1: pct(t.at1, t.n),
    r3: pct(t.at3, t.n),
    r5: pct(t.at5, t.n),
    r10: pct(t.at10, t.n),
    n: t.n,
    injected3: scored ? pct(t.injected3, t.n) : Number.NaN,
    injected10: scored ? pct(t.injected10, t.n) : Number.NaN,
    cat5Quiet: t.cat5 > 0 ? pct(t.cat5Quiet, t.cat5) : Number.NaN,
  };
};

/** `--quick`: the baselines and the server only, no ablation (for iterating on a change). */
const quick = process.argv.includes('--quick');
const BASELINE = 'Okapi BM25 + Porter stemmer';

const main = async (): Promise<void> => {
  const figures: Figure[] = [];
  const notes: string[] = [];
  const rows: Row[] = [];
  const prompts = offTopic();

  const coding = codingCorpus('coding.json', 'coding');
  const extra = [
    { corpus: codingCorpus('coding-holdout-1.json', 'coding-holdout-1'), label: 'coding set 2 (banking project; written blind, then guided changes)' },
    { corpus: codingCorpus('coding-holdout-2.json', 'coding-holdout-2'), label: 'coding set 3 (game studio; written blind, then guided changes)' },
    { corpus: codingCorpus('coding-holdout-3.json', 'coding-holdout-3'), label: 'coding set 4 (irrigation IoT; written blind, then guided changes)' },
    { corpus: codingCorpus('coding-holdout-4.json', 'coding-holdout-4'), label: 'coding set 5 (freight logistics; written blind, never tuned on)' },
    { corpus: codingCorpus('coding-holdout-5.json', 'coding-holdout-5'), label: 'coding set 6 (clinic scheduling; written blind, never tuned on)' },
    { corpus: codingCorpus('coding-holdout-6.json', 'coding-holdout-6'), label: 'coding set 7 (data platform; written blind, then guided changes)' },
  ];
  // Messy language (issue 31): chat sets scored by a gold turn in the top 10, coding-session sets
  // (stored as pi stores a run) by the fact in the top 3. Held out: chat sets 2, 7 to 10, 13 to 16
  // and coding-session sets 2, 4 and 6. Chat sets 3 to 8 are larger, written 2026-11-27 closer to
  // messaging-app logs; 3 and 4 were measured once held out, then tuned on from the eleventh round,
  // 5 and 6 from the thirteenth (docs/recall.md); 9 to 12 were written 2026-11-28 blind to the
  // ranking, to be measured once; 11 is tuned on from the tenth session, 12 from the eleventh.
  // A quick run leaves the held-out sets out, so iterating never reads them.
  const withHeldOut = !quick || process.argv.includes('--held-out');
  const chats = [
    { corpus: chatCorpus('chat-1.json'), label: 'chat set 1 (friends texting; tuned on)', heldOut: false },
    { corpus: chatCorpus('chat-2.json'), label: 'chat set 2 (flatmates texting; held out)', heldOut: true },
    { corpus: chatCorpus('chat-3.json'), label: 'chat set 3 (three friends: a trip and a house move; measured once, then tuned on)', heldOut: false },
    { corpus: chatCorpus('chat-4.json'), label: 'chat set 4 (long-distance couple: a new job, a father in hospital; measured once, then tuned on)', heldOut: false },
    { corpus: chatCorpus('chat-5.json'), label: 'chat set 5 (siblings and a cousin: a grandmother turning 80, a kitchen refit; measured once, then tuned on)', heldOut: false },
    { corpus: chatCorpus('chat-6.json'), label: 'chat set 6 (student flat: a broken boiler, a deposit, exams; measured once, then tuned on)', heldOut: false },
    { corpus: chatCorpus('chat-7.json'), label: 'chat set 7 (parents and a grandmother: a nursery start, a sick dog, a failed MOT; held out)', heldOut: true },
    { corpus: chatCorpus('chat-8.json'), label: 'chat set 8 (a band: a festival in Ghent, a hired van, a visa; held out)', heldOut: true },
    { corpus: chatCorpus('chat-9.json'), label: 'chat set 9 (a coach and two parents: an under-9s team, a sponsored kit, a cup day; held out)', heldOut: true },
    { corpus: chatCorpus('chat-10.json'), label: 'chat set 10 (two flower-shop owners: Mothering Sunday, a broken cold room, a rent rise; held out)', heldOut: true },
    { corpus: chatCorpus('chat-11.json'), label: 'chat set 11 (a couple planning a wedding: a lost venue, a caterer, uncle Des; measured once, then tuned on)', heldOut: false },
    { corpus: chatCorpus('chat-12.json'), label: 'chat set 12 (two housemates training for a half marathon: a charity page, shin splints, Tomasz; measured once, then tuned on)', heldOut: false },
    { corpus: chatCorpus('chat-13.json'), label: 'chat set 13 (a daughter and her dad: his car sold, an allotment, a knee appointment; written blind, held out)', heldOut: true },
    { corpus: chatCorpus('chat-14.json'), label: 'chat set 14 (three friends in a group chat: a candle stall, a flat move, a Lisbon trip; written blind, held out)', heldOut: true },
    { corpus: chatCorpus('chat-15.json'), label: 'chat set 15 (two cousins clearing and selling the house of their late grandfather: an auction, a piano, an offer accepted; written blind, held out)', heldOut: true },
    { corpus: chatCorpus('chat-16.json'), label: 'chat set 16 (two friends co-owning a narrowboat: a dry dock, a stove, a renaming; written blind, held out)', heldOut: true },
  ].filter((e) => withHeldOut || !e.heldOut);
  const sessions = [
    { corpus: codingCorpus('coding-session-1.json', 'coding-session-1', true), label: 'coding-session set 1 (TypeScript SaaS; tuned on)', heldOut: false },
    { corpus: codingCorpus('coding-session-2.json', 'coding-session-2', true), label: 'coding-session set 2 (Python shop; held out)', heldOut: true },
    { corpus: codingCorpus('coding-session-3.json', 'coding-session-3', true), label: 'coding-session set 3 (Go platform, asked in other words; tuned on)', heldOut: false },
    { corpus: codingCorpus('coding-session-4.json', 'coding-session-4', true), label: 'coding-session set 4 (Rust toolkit, asked in other words; held out)', heldOut: true },
    { corpus: codingCorpus('coding-session-5.json', 'coding-session-5', true), label: 'coding-session set 5 (Rails invoicing, asked as people type; tuned on)', heldOut: false },
    { corpus: codingCorpus('coding-session-6.json', 'coding-session-6', true), label: 'coding-session set 6 (Spring Boot + Android, asked as people type; held out)', heldOut: true },
  ].filter((e) => withHeldOut || !e.heldOut);
  const extraCorpora = extra.map((e) => e.corpus);
  const messy = [...chats, ...sessions].map((e) => e.corpus);
  let locomo: Corpus[] = [];
  if (dataPath === undefined) {
    console.log('recall-quality: no LoCoMo data given (--data PATH or RECALL_QUALITY_DATA); measuring the written sets only.');
    notes.push('LoCoMo skipped: no --data PATH / RECALL_QUALITY_DATA');
  } else {
    locomo = locomoCorpora(readLocomo(dataPath));
    notes.push(`LoCoMo: ${locomo.length} conversations from the given file, ${locomo.reduce((a, c) => a + c.probes.length, 0)} questions of categories 1-4 with evidence`);
  }

  const halves = (cs: readonly Corpus[]): { name: string; members: Corpus[] }[] => [
    { name: 'LoCoMo all', members: [...cs] },
    { name: 'LoCoMo conv 0-1 (tuned on)', members: cs.slice(0, 2) },
    { name: 'LoCoMo conv 2-4 (not tuned on)', members: cs.slice(2) },
  ];

  // Ablations, straight over the ranking (with --quick: the baselines and the default only).
  const byVariant = new Map<string, Map<string, Tally>>();
  const chosen = quick ? variants.filter((v) => v.name.startsWith('Okapi') || v.name.includes('= server default')) : variants;
  for (const v of chosen) {
    const per = new Map<string, Tally>();
    for (const c of [coding, ...extraCorpora, ...messy, ...locomo]) per.set(c.name, evaluate(c, v.make(c), prompts));
    byVariant.set(v.name, per);
    rows.push(rowOf('coding', v.name, per.get('coding') ?? tally()));
    for (const c of [...extraCorpora, ...messy]) rows.push(rowOf(c.name, v.name, per.get(c.name) ?? tally()));
    if (locomo.length > 0) {
      for (const h of halves(locomo)) rows.push(rowOf(h.name, v.name, h.members.map((c) => per.get(c.name) ?? tally()).reduce(add, tally())));
      // Off-topic prompts over all six banks, as the server figure.
      const six = [coding, ...locomo].map((c) => per.get(c.name) ?? tally()).reduce(add, tally());
      if (six.offTopic > 0) notes.push(`off-topic quiet over all banks | ${v.name} | ${pct(six.offTopicQuiet, six.offTopic).toFixed(1)}`);
    }
    console.log(
      `recall-quality: ${v.name}: ${rows
        .filter((r) => r.variant === v.name)
        .map((r) => `${r.corpus} R@3 ${r.r3.toFixed(1)} R@5 ${r.r5.toFixed(1)} R@10 ${r.r10.toFixed(1)}${Number.isNaN(r.cat5Quiet) ? '' : ` injected R@10 ${r.injected10.toFixed(1)} cat5 quiet ${r.cat5Quiet.toFixed(1)}`}`)
        .join('; ')}`,
    );
  }
  const base = (name: string): Tally => byVariant.get(BASELINE)?.get(name) ?? tally();

  // The embedded server end to end: the extension's own request (the headline) and the old one.
  const everyBank = [coding, ...locomo, ...extraCorpora, ...messy];
  const run = await serverRun(everyBank, prompts, EXTENSION_REQUEST);
  const worldRun = await serverRun(everyBank, prompts, WORLD_REQUEST);
  notes.push(`headline request: ${EXTENSION_REQUEST.name}; beside it: ${WORLD_REQUEST.name}`);
  notes.push(`observations among the top-10 results: ${(100 * run.observationShare).toFixed(1)}% (extension request), ${(100 * worldRun.observationShare).toFixed(1)}% (world only)`);
  // The off-topic figure is over the coding set and LoCoMo banks, as it was before the other coding sets.
  const all = [coding, ...locomo];
  const talliesOf = (r: ServerRun): Map<string, Tally> => new Map(everyBank.map((c, i) => [c.name, r.tallies[i] ?? tally()]));
  const serverTally = talliesOf(run);
  const worldTally = talliesOf(worldRun);
  const share = (x: number, t: Tally): number => x / Math.max(1, t.n);
  const ratioOf = (x: number, b: number): number => (b === 0 ? Number.POSITIVE_INFINITY : x / b);

  for (const { corpus, label } of chats) {
    const t = serverTally.get(corpus.name) ?? tally();
    const b = base(corpus.name);
    const value = share(t.at10, t);
    const ratio = ratioOf(t.at10, b.at10);
    figures.push({ name: `${label}: gold turn in the top 10`, unit: 'ratio', value, baseline: { name: 'Okapi BM25 + Porter, top 10', value: share(b.at10, b) }, target: '>= 0.80 and >= 1.20x', pass: value >= 0.8 && ratio >= 1.2 });
    notes.push(`${corpus.name}: top 10 ${(100 * value).toFixed(1)}% (${ratio.toFixed(2)}x Okapi + Porter); world-only request ${(100 * share((worldTally.get(corpus.name) ?? tally()).at10, t)).toFixed(1)}%`);
  }
  for (const { corpus, label } of sessions) {
    const t = serverTally.get(corpus.name) ?? tally();
    const b = base(corpus.name);
    const value = share(t.at3, t);
    const ratio = ratioOf(t.at3, b.at3);
    figures.push({ name: `${label}: fact in the top 3`, unit: 'ratio', value, baseline: { name: 'Okapi BM25 + Porter, top 3', value: share(b.at3, b) }, target: '>= 0.85 and >= 1.5x', pass: value >= 0.85 && ratio >= 1.5 });
    notes.push(`${corpus.name}: top 3 ${(100 * value).toFixed(1)}% (${ratio.toFixed(2)}x Okapi + Porter); world-only request ${(100 * share((worldTally.get(corpus.name) ?? tally()).at3, t)).toFixed(1)}%`);
  }

  const codingServer = serverTally.get('coding') ?? tally();
  const codingBase = base('coding');
  figures.push({
    name: 'coding set: facts in top 3',
    unit: 'ratio',
    value: share(codingServer.at3, codingServer),
    baseline: { name: 'Okapi BM25 + Porter, top 3', value: share(codingBase.at3, codingBase) },
    target: '>= 0.90',
    pass: share(codingServer.at3, codingServer) >= 0.9,
  });
  for (const { corpus, label } of extra) {
    const server = serverTally.get(corpus.name) ?? tally();
    const b = base(corpus.name);
    figures.push({ name: `${label}: facts in top 3`, unit: 'ratio', value: share(server.at3, server), baseline: { name: 'Okapi BM25 + Porter, top 3', value: share(b.at3, b) } });
    notes.push(`${corpus.name}: top 3 ${(100 * share(server.at3, server)).toFixed(1)}%; world-only request ${(100 * share((worldTally.get(corpus.name) ?? tally()).at3, server)).toFixed(1)}%`);
  }

  // Precision: off-topic prompts against every bank, category 5 against its conversation.
  const quiet = (finals: readonly number[]): number => finals.filter((f) => f < RECALL_FLOOR).length;
  const offTopicFinals = all.flatMap((c) => (run.unanswered.get(c.name) ?? []).slice(c.unanswerable.length));
  const cat5Finals = locomo.flatMap((c) => (run.unanswered.get(c.name) ?? []).slice(0, c.unanswerable.length));
  figures.push({
    name: `off-topic prompts: share with nothing injected (floor ${RECALL_FLOOR})`,
    unit: 'ratio',
    value: quiet(offTopicFinals) / Math.max(1, offTopicFinals.length),
    target: '>= 0.80',
    pass: quiet(offTopicFinals) / Math.max(1, offTopicFinals.length) >= 0.8,
  });
  const flooredOf = new Map(everyBank.map((c, i) => [c.name, run.flooredTallies[i] ?? tally()]));
  for (const c of [coding, ...extraCorpora, ...messy]) {
    const floored = flooredOf.get(c.name) ?? tally();
    notes.push(`${c.name} set with the floor: ${floored.at3}/${floored.n} in the top 3, ${floored.at10}/${floored.n} in the top 10 of what automatic recall would inject`);
  }
  for (const c of [...extraCorpora, ...messy]) {
    const offTopicHere = (run.unanswered.get(c.name) ?? []).slice(c.unanswerable.length);
    notes.push(`off-topic prompts against the ${c.name} bank: ${quiet(offTopicHere)}/${offTopicHere.length} with nothing injected`);
  }

  // What the model sees: the injected blocks of every set.
  const blocks = everyBank.map((c) => run.blocks.get(c.name) ?? blockTally()).reduce((a, b) => ({ blocks: a.blocks + b.blocks, lines: a.lines + b.lines, jsonLines: a.jsonLines + b.jsonLines, duplicateLines: a.duplicateLines + b.duplicateLines, chars: a.chars + b.chars }), blockTally());
  figures.push({ name: 'recall blocks: memory lines with JSON syntax', unit: 'lines', value: blocks.jsonLines, target: '0', pass: blocks.jsonLines === 0 });
  figures.push({ name: 'recall blocks: repeated memory lines', unit: 'lines', value: blocks.duplicateLines, target: '0', pass: blocks.duplicateLines === 0 });
  notes.push(`recall blocks: ${blocks.blocks} injected over every set, ${blocks.lines} memory lines, ${blocks.jsonLines} with JSON syntax, ${blocks.duplicateLines} repeated, ${Math.round(blocks.chars / Math.max(1, blocks.blocks))} characters each on average`);
  for (const c of everyBank) {
    const b = run.blocks.get(c.name) ?? blockTally();
    // Every chat and coding-session set is reported, clean or not; the others only when they are not.
    if (messy.includes(c) || b.jsonLines + b.duplicateLines > 0) notes.push(`recall blocks of ${c.name}: ${b.jsonLines} JSON lines, ${b.duplicateLines} repeated of ${b.lines}`);
  }

  if (locomo.length > 0) {
    const sum = (m: Map<string, Tally>): Tally => locomo.map((c) => m.get(c.name) ?? tally()).reduce(add, tally());
    const serverAll = sum(serverTally);
    const worldAll = sum(worldTally);
    const porterAll = locomo.map((c) => base(c.name)).reduce(add, tally());
    const plainAll = locomo.map((c) => byVariant.get('Okapi BM25 (plain)')?.get(c.name) ?? tally()).reduce(add, tally());
    for (const h of halves(locomo)) {
      for (const [label, r, m] of [['embedded server (HTTP, extension request)', run, serverTally], ['embedded server (HTTP, world only)', worldRun, worldTally]] as const) {
        const floored = new Map(everyBank.map((c, i) => [c.name, r.flooredTallies[i] ?? tally()]));
        const t = h.members.map((c) => m.get(c.name) ?? tally()).reduce(add, tally());
        const f = h.members.map((c) => floored.get(c.name) ?? tally()).reduce(add, tally());
        const cat5 = h.members.flatMap((c) => (r.unanswered.get(c.name) ?? []).slice(0, c.unanswerable.length));
        rows.push(rowOf(h.name, label, { ...t, injected3: f.at3, injected10: f.at10, cat5: cat5.length, cat5Quiet: quiet(cat5) }));
      }
    }
    const r5 = share(serverAll.at5, serverAll);
    const r10 = share(serverAll.at10, serverAll);
    figures.push({ name: 'LoCoMo R@5', unit: 'ratio', value: r5, baseline: { name: 'Okapi BM25 + Porter R@5', value: share(porterAll.at5, porterAll) }, target: '>= 0.70', pass: r5 >= 0.7 });
    figures.push({
      name: 'LoCoMo R@10 (extension request)',
      unit: 'ratio',
      value: r10,
      baseline: { name: 'Okapi BM25 + Porter R@10', value: share(porterAll.at10, porterAll) },
      target: '>= 0.83 and >= 1.15x baseline',
      pass: r10 >= 0.83 && r10 >= 1.15 * share(porterAll.at10, porterAll),
    });
    figures.push({ name: 'LoCoMo R@10, world facts only', unit: 'ratio', value: share(worldAll.at10, worldAll), target: '<= the extension request', pass: share(worldAll.at10, worldAll) <= r10 });
    figures.push({ name: 'LoCoMo R@10, plain Okapi BM25', unit: 'ratio', value: share(plainAll.at10, plainAll) });
    figures.push({ name: 'LoCoMo evidence turns in top 10', unit: 'ratio', value: serverAll.evidenceFound / serverAll.evidence, baseline: { name: 'Okapi BM25 + Porter', value: porterAll.evidenceFound / porterAll.evidence } });
    figures.push({ name: `LoCoMo category 5: share with nothing injected (floor ${RECALL_FLOOR})`, unit: 'ratio', value: quiet(cat5Finals) / Math.max(1, cat5Finals.length) });
    const flooredAll = locomo.map((c) => flooredOf.get(c.name) ?? tally()).reduce(add, tally());
    figures.push({
      name: `LoCoMo R@10 of what automatic recall injects (floor ${RECALL_FLOOR})`,
      unit: 'ratio',
      value: flooredAll.at10 / flooredAll.n,
      baseline: { name: 'Okapi BM25 + Porter R@10', value: share(porterAll.at10, porterAll) },
      target: '>= 0.80',
      pass: flooredAll.at10 / flooredAll.n >= 0.8,
    });
  }

  const opt = (label: string, x: number): string => (Number.isNaN(x) ? '' : ` | ${label} ${x.toFixed(1)}`);
  notes.push(
    ...rows.map(
      (r) =>
        `${r.corpus} | ${r.variant} | R@1 ${r.r1.toFixed(1)} | R@3 ${r.r3.toFixed(1)} | R@5 ${r.r5.toFixed(1)} | R@10 ${r.r10.toFixed(1)} | n ${r.n}` +
        `${opt('injected R@3', r.injected3)}${opt('injected R@10', r.injected10)}${opt('cat 5 quiet', r.cat5Quiet)}`,
    ),
  );
  for (const f of figures) console.log(`recall-quality: ${f.name}: ${f.value.toFixed(3)}${f.baseline === undefined ? '' : ` (baseline ${f.baseline.value.toFixed(3)})`}${f.pass === undefined ? '' : f.pass ? ' PASS' : ' FAIL'}`);
  for (const n of notes.filter((x) => !x.includes(' | '))) console.log(`recall-quality: ${n}`);
  writeResult(quick ? 'recall-quality-quick' : 'recall-quality', figures, notes);
};

await main();
