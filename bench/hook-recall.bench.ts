/**
 * Recall hook cost: what automatic recall adds to a model call beyond the server's own time.
 *
 * 1. A loopback server answers recall after a fixed latency. The figure is the hook
 *    (`runtime.recallFor`: gate dispatch, query, request, decode, render, inject) minus a raw
 *    keep-alive `http.request` of the same recall in the same run (p50 and p99 of each).
 * 2. The cache-hit path (same prompt again: no server call), against the same baseline.
 * 3. The server dead (accepts, never answers): the first turn's cost beside the deadline,
 *    and later turns once the circuit breaker is open.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createMemoryRuntime, type MemoryRuntime } from '../src/hosts/memoryRuntime.js';
import type { HostMessage } from '../src/effects/session/messages.js';
import { percentiles, sample, writeResult } from './lib/harness.js';

const LATENCY_MS = 2;
const ITERATIONS = 300;
const DEADLINE_MS = 400;
/** Target: the hook adds at most this fraction of the raw keep-alive recall request (p50). */
const HOOK_OVERHEAD_RATIO = 0.5;

const RECALL_BODY = JSON.stringify({
  results: Array.from({ length: 8 }, (_, i) => ({
    id: `f${i}`,
    text: `Decision ${i}: deploys go through scripts/ship.sh with a blue-green switch and a smoke test.`,
    type: 'world',
    tags: ['project:bench', 'source:pi'],
    mentioned_at: '2026-11-23T09:00:00+00:00',
  })),
});

const json = (res: ServerResponse, body: string): void => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** Just enough of the Hindsight API for setup and recall; recall waits LATENCY_MS. */
const handler = (req: IncomingMessage, res: ServerResponse): void => {
  req.resume();
  req.on('end', () => {
    const url = req.url ?? '';
    if (url.startsWith('/version')) return json(res, JSON.stringify({ api_version: '0.9.1', features: { observations: true } }));
    if (url.startsWith('/v1/default/banks?') || url === '/v1/default/banks') return json(res, JSON.stringify({ banks: [{ bank_id: 'bench' }] }));
    if (url.endsWith('/memories/recall')) {
      setTimeout(() => json(res, RECALL_BODY), LATENCY_MS);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ detail: 'not found' }));
  });
};

const listen = async (onRequest: ((req: IncomingMessage, res: ServerResponse) => void) | undefined): Promise<{ url: string; close: () => Promise<void> }> => {
  const sockets = new Set<Socket>();
  const server = onRequest === undefined ? createServer() : createServer(onRequest);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
};

const project = async (baseUrl: string): Promise<{ cwd: string; home: string }> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-bench-'));
  const cwd = path.join(root, 'p');
  const home = path.join(root, 'h');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(home, { recursive: true });
  const config = {
    memory: { baseUrl, timeoutMs: 30_000 },
    banks: { project: { bankId: 'bench' } },
    scope: { projectId: 'bench' },
    mentalModels: { inject: false },
    recall: { timeoutMs: DEADLINE_MS },
    status: { style: 'off' },
  };
  await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify(config));
  // The user trusts the bench server: a project file may only point memory at a trusted origin.
  await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
  await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [baseUrl] } }));
  return { cwd, home };
};

const runtimeFor = async (baseUrl: string): Promise<MemoryRuntime> => {
  const dirs = await project(baseUrl);
  const runtime = await createMemoryRuntime({ cwd: dirs.cwd, home: dirs.home, env: { HOME: dirs.home }, shutdownFlushMs: 200 });
  await runtime.send({ type: 'session.started', sessionId: 'bench', reason: 'startup' });
  return runtime;
};

const conversation = (question: string): HostMessage[] => [
  { role: 'user', content: [{ type: 'text', text: 'How do we run the test suite?' }], timestamp: 1 },
  { role: 'assistant', content: [{ type: 'text', text: 'npm test runs lint, types and vitest.' }], timestamp: 2 },
  { role: 'user', content: [{ type: 'text', text: question }], timestamp: 3 },
];

const live = await listen(handler);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const rawRecall = (): Promise<void> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: 'how do we deploy', budget: 'mid', max_tokens: 800 });
    const req = request(`${live.url}/v1/default/banks/bench/memories/recall`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end(body);
  });

const runtime = await runtimeFor(live.url);
let n = 0;
// A new prompt each call: no cache hit, every call goes to the server.
const hookMiss = async (): Promise<void> => {
  n += 1;
  const result = await runtime.recallFor(conversation(`How do we deploy service ${n}?`));
  if (result.outcome !== 'injected') throw new Error(`recall did not inject: ${result.outcome} ${result.reason ?? ''}`);
};
const hit = conversation('How do we deploy the gateway?');
await runtime.recallFor(hit);
const hookHit = async (): Promise<void> => {
  const result = await runtime.recallFor(hit);
  if (result.outcome !== 'injected') throw new Error('cache hit did not inject');
};

// Paired samples: each round times a raw request, then the hook, back to back, so drift on
// a loaded machine hits both sides alike; the figure is the distribution of the differences.
const raw: number[] = [];
const miss: number[] = [];
const overhead: number[] = [];
const time = async (fn: () => Promise<void>): Promise<number> => {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
};
for (let i = 0; i < 20; i += 1) {
  await rawRecall();
  await hookMiss();
}
for (let i = 0; i < ITERATIONS; i += 1) {
  const r = await time(rawRecall);
  const h = await time(hookMiss);
  raw.push(r);
  miss.push(h);
  overhead.push(h - r);
}
const hits = await sample(hookHit, ITERATIONS, 20);
const rawP = percentiles(raw);
const missP = percentiles(miss);
const overheadP = percentiles(overhead);
const hitP = percentiles(hits);
await runtime.close();
await live.close();
agent.destroy();

// --- server dead: accepts connections, never answers ------------------------------------------
const hung = await listen(undefined);
const deadRuntime = await runtimeFor(hung.url);
const deadTurns: number[] = [];
for (let i = 0; i < 30; i += 1) {
  const start = process.hrtime.bigint();
  await deadRuntime.recallFor(conversation(`Question ${i} while the server hangs?`));
  deadTurns.push(Number(process.hrtime.bigint() - start) / 1e6);
}
const breaker = deadRuntime.server.breaker();
await deadRuntime.close();
await hung.close();
const firstTurn = deadTurns[0] ?? Number.NaN;
const opened = deadTurns.findIndex((t) => t < 1);
const afterOpen = percentiles(deadTurns.slice(Math.max(opened, 0)));

writeResult(
  'hook-recall',
  [
    {
      name: `recall hook overhead p50 (hook minus raw request, ${LATENCY_MS} ms server latency)`,
      unit: 'ms',
      value: overheadP.p50,
      baseline: { name: 'raw keep-alive recall request p50', value: rawP.p50 },
      // Issue 10: a ratio to the same-run raw request, since absolute times differ between machines.
      target: `<= ${HOOK_OVERHEAD_RATIO}x the raw request`,
      pass: overheadP.p50 <= HOOK_OVERHEAD_RATIO * rawP.p50,
    },
    {
      name: 'recall hook overhead p99 (hook minus raw request)',
      unit: 'ms',
      value: overheadP.p99,
      baseline: { name: 'raw keep-alive recall request p99', value: rawP.p99 },
    },
    { name: 'recall hook p50, cache hit (same prompt, no server call)', unit: 'ms', value: hitP.p50, baseline: { name: 'raw keep-alive recall request p50', value: rawP.p50 }, target: '< 1', pass: hitP.p50 < 1 },
    { name: 'server hung: first turn', unit: 'ms', value: firstTurn, baseline: { name: 'recall deadline', value: DEADLINE_MS }, target: `<= ${DEADLINE_MS} + 50`, pass: firstTurn <= DEADLINE_MS + 50 },
    {
      name: 'server hung: later turns p50 once the breaker is open',
      unit: 'ms',
      value: afterOpen.p50,
      baseline: { name: 'recall deadline', value: DEADLINE_MS },
      target: '< 1',
      pass: opened >= 0 && afterOpen.p50 < 1,
    },
  ],
  [
    `hook p50/p99 ${missP.p50.toFixed(3)}/${missP.p99.toFixed(3)} ms, raw request p50/p99 ${rawP.p50.toFixed(3)}/${rawP.p99.toFixed(3)} ms, ${miss.length} paired samples; load average ${(await import('node:os')).loadavg()[0]?.toFixed(1)}`,
    `server hung: turns 1-5 ${deadTurns.slice(0, 5).map((t) => t.toFixed(1)).join(', ')} ms; breaker ${breaker.state} after ${opened} slow turn(s)`,
  ],
);
