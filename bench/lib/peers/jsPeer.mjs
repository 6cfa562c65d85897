// The in-process JavaScript search libraries a person might pick for a local text memory, each
// persisted to one file: `build LIB ITEMS FILE` indexes every item and writes the index;
// `serve LIB FILE QUERIES` loads it, answers the first query, then times every query.
// None is durable per write (the whole index is one file written at the end), so their
// ingest rate is an index build, not a durable ingest.
import { readFileSync, writeFileSync } from 'node:fs';
import { ms, readItems, readQueries, report, serve } from './protocol.mjs';

const [mode, lib, ...rest] = process.argv.slice(2);

const libraries = {
  minisearch: async () => {
    const { default: MiniSearch } = await import('minisearch');
    const options = { fields: ['content'], idField: 'id' };
    return {
      build: (items) => {
        const index = new MiniSearch(options);
        index.addAll(items.map((item, id) => ({ id, content: item.content })));
        return JSON.stringify(index);
      },
      load: (text) => {
        const index = MiniSearch.loadJSON(text, options);
        return (q) => index.search(q).slice(0, 10);
      },
    };
  },
  orama: async () => {
    const { create, insertMultiple, load, save, search } = await import('@orama/orama');
    const schema = { content: 'string' };
    return {
      build: async (items) => {
        const db = create({ schema });
        await insertMultiple(db, items.map((item) => ({ content: item.content })), 5000);
        return JSON.stringify(save(db));
      },
      load: (text) => {
        const db = create({ schema });
        load(db, JSON.parse(text));
        return (q) => search(db, { term: q, limit: 10 }).hits;
      },
    };
  },
  flexsearch: async () => {
    const { Index } = await import('flexsearch');
    const options = { tokenize: 'strict' };
    return {
      build: async (items) => {
        const index = new Index(options);
        items.forEach((item, id) => index.add(id, item.content));
        const parts = {};
        await index.export((key, data) => {
          parts[key] = data;
        });
        return JSON.stringify(parts);
      },
      load: (text) => {
        const index = new Index(options);
        for (const [key, data] of Object.entries(JSON.parse(text))) index.import(key, data);
        // suggest: any of the words may match (the others are an OR too).
        return (q) => index.search(q, { limit: 10, suggest: true });
      },
    };
  },
};

const library = await libraries[lib]?.();
if (library === undefined) throw new Error(`jsPeer: unknown library ${lib}`);

if (mode === 'build') {
  const [itemsPath, file] = rest;
  const items = readItems(itemsPath);
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  writeFileSync(file, await library.build(items));
  const used = process.cpuUsage(cpu);
  report({ step: 'ingested', items: items.length, ms: ms(start), cpuMs: (used.user + used.system) / 1000 });
} else if (mode === 'serve') {
  const [file, queriesPath] = rest;
  const query = library.load(readFileSync(file, 'utf8'));
  await serve(readQueries(queriesPath), query);
} else {
  throw new Error(`jsPeer: unknown mode ${mode}`);
}
