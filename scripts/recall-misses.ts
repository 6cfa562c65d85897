/**
 * Lists the questions whose gold turn is not in the direct ranking's top 10, with the gold turn,
 * its rank (top 50) and what ranked above it: the miss analysis of docs/recall.md (issue 31).
 * Reads only the tuned chat sets named here (never a held-out one) and, given `--data PATH`,
 * LoCoMo dev (`--locomo N` questions missed per conversation, default 6).
 * Run: npx tsx scripts/recall-misses.ts [--data PATH] [--locomo N] [--sets chat-1,chat-3]
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readLocomo, type Conversation } from '../bench/lib/locomo.js';
import { extractEntities } from '../src/server/retain/entities.js';
import { attributionOf } from '../src/server/search/attribution.js';
import { DEFAULT_FIELDS, FieldIndex } from '../src/server/search/fieldIndex.js';
import { DEFAULT_STAGES, rank } from '../src/server/search/ranker.js';

const TUNED = ['chat-1', 'chat-3', 'chat-4', 'chat-5', 'chat-6', 'chat-11', 'chat-12'];
const here = dirname(fileURLToPath(import.meta.url));
const argValue = (flag: string): string | undefined => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const sets = (argValue('--sets') ?? TUNED.join(',')).split(',').filter((s) => TUNED.includes(s));
const dataPath = argValue('--data');
const locomoPer = Number(argValue('--locomo') ?? 6);

const show = (c: Conversation, maxMisses: number, categories: (n: number) => boolean): void => {
  const index = new FieldIndex(DEFAULT_FIELDS);
  const text = new Map<string, string>();
  const content = new Map<string, string>();
  for (const t of c.turns) {
    const entities = extractEntities(t.content).map((e) => e.text);
    index.add({ id: t.diaId, text: t.content, context: t.context, entities, thread: t.context, order: Date.parse(t.timestamp), ...attributionOf(t.content) });
    text.set(t.diaId, [t.content, t.context, ...entities].join('\n'));
    content.set(t.diaId, `${t.diaId} ${t.context.replace(/.*session /, 's')} ${t.timestamp.slice(0, 10)} | ${t.content}`);
  }
  let misses = 0;
  let n = 0;
  for (const q of c.questions) {
    if (!categories(q.category) || q.evidence.length === 0) continue;
    n += 1;
    const r = rank({ index, query: q.question, accept: () => true, limit: 50, textOf: (id) => text.get(id) ?? '', stages: DEFAULT_STAGES });
    const ids = r.hits.map((h) => h.id);
    const best = Math.min(...q.evidence.map((e) => (ids.includes(e) ? ids.indexOf(e) : 99)));
    if (best < 10) continue;
    misses += 1;
    if (misses > maxMisses) continue;
    console.log(`\n### ${c.id} MISS: ${q.question}`);
    for (const e of q.evidence) console.log(`  gold (${ids.includes(e) ? ids.indexOf(e) + 1 : '>50'}): ${content.get(e) ?? e}`);
    // The gold's previous two lines: a reply's topic is often there.
    for (const e of q.evidence) {
      const i = c.turns.findIndex((t) => t.diaId === e);
      for (const j of [i - 2, i - 1]) {
        const t = c.turns[j];
        if (t !== undefined) console.log(`    before gold (${ids.includes(t.diaId) ? ids.indexOf(t.diaId) + 1 : '>50'}): ${content.get(t.diaId) ?? ''}`);
      }
    }
    ids.slice(0, 5).forEach((id, k) => console.log(`  ${k + 1}. ${content.get(id) ?? id}`));
  }
  console.log(`\n== ${c.id}: ${n - misses}/${n} in the top 10, ${misses} misses`);
};

for (const s of sets) {
  const [c] = readLocomo(join(here, '..', 'fixtures', 'recall-quality', `${s}.json`));
  if (c !== undefined) show(c, 1000, () => true);
}
if (dataPath !== undefined) for (const c of readLocomo(dataPath)) show(c, locomoPer, (n) => n >= 1 && n <= 4);
