/**
 * Recall latency of the embedded server at 10k and 100k memories in one bank, over loopback
 * HTTP with keep-alive, beside a raw node:http server answering a fixed body (same client,
 * same run). Target: p50 < 10 ms at 100k. A second figure at 100k asks questions that name an
 * answer type ("how long ..."), which make the ranking read the text of its 200 best matches.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { percentiles, sample, writeResult, type Figure } from './lib/harness.js';
import { startEmbeddedServer } from '../src/server/index.js';
import { syntheticCorpus } from '../src/server/syntheticCorpus.js';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const post = (url: string, body: string): Promise<{ status: number; text: string }> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });

/** A p50 at 100k memories, held to the target (< 10 ms) beside the raw request's p50. */
const p50Under10 = (name: string, value: number, baseline: number): Figure => ({
  name,
  unit: 'ms',
  value,
  baseline: { name: 'raw loopback request p50', value: baseline },
  target: '< 10',
  pass: value < 10,
});

const main = async (): Promise<void> => {
  const corpus = syntheticCorpus(42);
  const server = await startEmbeddedServer({ port: 0 });
  const retainUrl = `${server.url}/v1/default/banks/bench/memories`;
  const recallUrl = `${server.url}/v1/default/banks/bench/memories/recall`;
  const ingest = async (from: number, to: number): Promise<void> => {
    for (let offset = from; offset < to; offset += 100) {
      const res = await post(retainUrl, JSON.stringify({ items: corpus.items(100, offset) }));
      if (res.status !== 200) throw new Error(`retain failed: ${res.status} ${res.text}`);
    }
  };
  // A recall with every type waits for the server's background observation consolidation to
  // catch up, so the measured recalls see a settled bank rather than competing with it.
  const settle = async (): Promise<void> => {
    const res = await post(recallUrl, JSON.stringify({ query: corpus.query() }));
    if (res.status !== 200) throw new Error(`recall failed: ${res.status} ${res.text}`);
  };
  const recallOf = (query: () => string) => async (): Promise<void> => {
    const res = await post(recallUrl, JSON.stringify({ query: query(), types: ['world'], budget: 'mid', max_tokens: 4096 }));
    if (res.status !== 200) throw new Error(`recall failed: ${res.status} ${res.text}`);
  };
  const recallOnce = recallOf(corpus.query);
  const typedRecallOnce = recallOf(() => `how long ${corpus.query()}`);

  const baselineServer = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = '{"results":[]}';
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => baselineServer.listen(0, '127.0.0.1', resolve));
  const baselineUrl = `http://127.0.0.1:${(baselineServer.address() as AddressInfo).port}/`;
  const baselineOnce = async (): Promise<void> => {
    await post(baselineUrl, JSON.stringify({ query: corpus.query() }));
  };

  try {
    await ingest(0, 10_000);
    await settle();
    const at10k = percentiles(await sample(recallOnce, 300, 20));
    const base10k = percentiles(await sample(baselineOnce, 300, 20));
    await ingest(10_000, 100_000);
    await settle();
    const at100k = percentiles(await sample(recallOnce, 300, 20));
    const typed100k = percentiles(await sample(typedRecallOnce, 300, 20));
    const base100k = percentiles(await sample(baselineOnce, 300, 20));
    writeResult(
      'server-recall',
      [
        { name: 'recall p50 at 10k memories', unit: 'ms', value: at10k.p50, baseline: { name: 'raw loopback request p50', value: base10k.p50 } },
        { name: 'recall p99 at 10k memories', unit: 'ms', value: at10k.p99, baseline: { name: 'raw loopback request p99', value: base10k.p99 } },
        p50Under10('recall p50 at 100k memories', at100k.p50, base100k.p50),
        { name: 'recall p99 at 100k memories', unit: 'ms', value: at100k.p99, baseline: { name: 'raw loopback request p99', value: base100k.p99 } },
        p50Under10('recall p50 at 100k memories, questions with an answer type ("how long ...")', typed100k.p50, base100k.p50),
      ],
      [
        'one bank, synthetic seeded corpus (20k pseudo-words, Zipf-like, 12-30 words a fact), 3-word queries, budget mid, types world',
        'client: node:http keep-alive, one socket; the server runs in the same process',
      ],
    );
  } finally {
    agent.destroy();
    await new Promise<void>((resolve) => baselineServer.close(() => resolve()));
    await server.close();
  }
};

await main();
