/**
 * Adapter overhead: `recall` through the adapter (got transport, decode, breaker, failure mapping)
 * against a loopback server answering a fixed body, beside a raw keep-alive `http.request`
 * to the same server in the same run; and a call while the breaker is open.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryServer } from '../src/adapters/server/client.js';
import { percentiles, sample, writeResult } from './lib/harness.js';

const BODY = JSON.stringify({
  results: Array.from({ length: 10 }, (_, i) => ({
    id: `fact-${i}`,
    text: `Decision ${i}: the retain queue is the journal, compacted to a snapshot of live jobs.`,
    type: 'world',
    document_id: `doc-${i}`,
    tags: ['project:agent-memory', 'source:host'],
    mentioned_at: '2026-11-23T09:00:00+00:00',
    scores: { final: 1 / (i + 1) },
  })),
});
const QUERY = { query: 'how is the retain queue stored' };
const ITERATIONS = 3_000;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
    res.end(BODY);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const url = `http://127.0.0.1:${port}`;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const payload = JSON.stringify(QUERY);
const raw = (): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/default/banks/bench/memories/recall`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });

const client = createMemoryServer({ baseUrl: url, apiKey: 'bench-key', timeoutMs: 5_000 });
const viaAdapter = async (): Promise<void> => {
  const result = await client.recall('bench', QUERY)();
  if (E.isLeft(result)) throw new Error(`adapter recall failed: ${result.left._tag}`);
};

// Interleaved rounds so drift in machine load hits both sides alike.
const rawSamples: number[] = [];
const adapterSamples: number[] = [];
for (let round = 0; round < 6; round += 1) {
  rawSamples.push(...(await sample(raw, ITERATIONS / 6, 100)));
  adapterSamples.push(...(await sample(viaAdapter, ITERATIONS / 6, 100)));
}
const rawP = percentiles(rawSamples);
const adapterP = percentiles(adapterSamples);
const overhead = adapterP.p50 - rawP.p50;

// Breaker open: a closed port, threshold 1, a cool-down longer than the run.
const closed = createServer();
await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
const closedPort = (closed.address() as AddressInfo).port;
await new Promise<void>((resolve) => closed.close(() => resolve()));
const down = createMemoryServer({ baseUrl: `http://127.0.0.1:${closedPort}`, timeoutMs: 1_000, breaker: { threshold: 1, coolDownMs: 3_600_000 } });
await down.recall('bench', QUERY)();
if (down.breaker().state !== 'open') throw new Error('breaker did not open');
const openSamples = await sample(async () => {
  const result = await down.recall('bench', QUERY)();
  if (E.isRight(result) || result.left._tag !== 'circuitOpen') throw new Error('expected circuitOpen');
}, 20_000, 500);
const noop = await sample(async () => E.left({ _tag: 'circuitOpen', retryAt: 0 }), 20_000, 500);
const openP = percentiles(openSamples);
const noopP = percentiles(noop);

agent.destroy();
await new Promise<void>((resolve) => server.close(() => resolve()));
server.closeAllConnections();

writeResult(
  'adapter-overhead',
  [
    { name: 'adapter recall p50', unit: 'ms', value: adapterP.p50, baseline: { name: 'raw keep-alive http.request p50', value: rawP.p50 } },
    { name: 'adapter overhead p50 (adapter - raw)', unit: 'ms', value: overhead, target: '< 0.5', pass: overhead < 0.5 },
    { name: 'adapter recall p99', unit: 'ms', value: adapterP.p99, baseline: { name: 'raw p99', value: rawP.p99 } },
    { name: 'call with breaker open p50', unit: 'ms', value: openP.p50, baseline: { name: 'resolved promise p50', value: noopP.p50 }, target: '< 0.1', pass: openP.p50 < 0.1 },
  ],
  [`${ITERATIONS} recalls each side, interleaved in 6 rounds; body ${BODY.length} bytes, 10 results`],
);
