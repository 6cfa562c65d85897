/**
 * The precision floor of automatic recall and its telemetry, through createMemoryRuntime
 * against the embedded server: a question memory answers injects the memory, a prompt nothing
 * answers injects nothing, and last-recall.json and the trace say, per result, its score, the
 * server stage that found it and whether its bank cleared the floor.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import type { TraceRecord } from '../../../src/effects/ports/trace.js';
import type { HostMessage } from '../../../src/effects/session/messages.js';
import { clearsFloor, RECALL_FLOOR, resultReports } from '../../../src/effects/session/recallFloor.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../../src/hosts/memoryRuntime.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { waitUntil } from '../../helpers/waitUntil.js';

const user = (text: string, timestamp: number): HostMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp });
const assistant = (text: string, timestamp: number): HostMessage => ({ role: 'assistant', content: [{ type: 'text', text }], timestamp, model: 'm', stopReason: 'stop' });

describe('clearsFloor', () => {
  it('gates a bank on its best final score; a server without scores is not floored', () => {
    expect(clearsFloor([{ id: 'a', scores: { final: RECALL_FLOOR } }, { id: 'b', scores: { final: 0.01 } }])).toBe(true);
    expect(clearsFloor([{ id: 'a', scores: { final: RECALL_FLOOR - 0.01 } }])).toBe(false);
    expect(clearsFloor([{ id: 'a' }, { id: 'b', scores: null }])).toBe(true);
    expect(clearsFloor([])).toBe(true);
  });

  it('reports every result with its score, keyword score and stage', () => {
    expect(resultReports('bank', [{ id: 'a', scores: { final: 0.5, keyword: 3 }, stage: 'expansion' }, { id: 'b' }], false)).toEqual([
      { bankId: 'bank', id: 'a', score: 0.5, keyword: 3, stage: 'expansion', passedFloor: false },
      { bankId: 'bank', id: 'b', score: null, keyword: null, stage: null, passedFloor: false },
    ]);
  });
});

describe('automatic recall with the floor', () => {
  let server: TestServer;
  let root: string;
  let runtime: MemoryRuntime;
  const trace: TraceRecord[] = [];
  let memoryDir: string;

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    root = await mkdtemp(path.join(tmpdir(), 'am-floor-'));
    const cwd = path.join(root, 'project');
    const home = path.join(root, 'home');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await mkdir(home, { recursive: true });
    memoryDir = path.join(cwd, '.pi', 'memory');
    const config = { memory: { baseUrl: server.url }, banks: { project: { bankId: 'floor-bank' } }, scope: { projectId: 'floor' }, recall: { storeLastRecall: true } };
    await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify(config));
    // The user trusts the test server: a project file alone may not point memory at an origin.
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [server.url] } }));
    runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home }, notify: () => undefined, shutdownFlushMs: 500, trace: { write: (r) => trace.push(r) } });
    await waitUntil(() => runtime.status().setup.state === 'ready');
    await runtime.send({ type: 'session.started', sessionId: 'one', sessionFile: '/tmp/one.jsonl', reason: 'startup' });
    const turn = runtime.retainTurn([user('We decided to bundle with rollup and to test with vitest.', 10), assistant('Noted: rollup for bundling, vitest for tests.', 11)]);
    expect((await turn.settled).outcome).toBe('queued');
    await runtime.queue!.flush({ deadline: Date.now() + 5_000 });
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 2_000 });
    await waitUntil(async () => {
      const r = await client.recall('floor-bank', { query: 'rollup vitest' })();
      return E.isRight(r) && r.right.results.length > 0;
    });
  });
  afterAll(async () => {
    await runtime.close();
    await server.dispose();
    await rm(root, { recursive: true, force: true });
  });

  const lastRecall = (): { outcome: string; floor: number; results: { score: number | null; stage: string | null; passedFloor: boolean }[] } =>
    JSON.parse(readFileSync(path.join(memoryDir, 'last-recall.json'), 'utf8')) as never;

  it('a later session asking "Which bundler do we use?" gets the decision injected, and the sidecar says why', async () => {
    const result = await runtime.recallFor([user('Which bundler do we use?', 100)]);
    expect(result.outcome).toBe('injected');
    expect(JSON.stringify(result.messages)).toContain('rollup');
    await waitUntil(() => existsSync(path.join(memoryDir, 'last-recall.json')) && lastRecall().outcome === 'injected');
    const report = lastRecall();
    expect(report.floor).toBe(RECALL_FLOOR);
    expect(report.results[0]).toMatchObject({ stage: 'expansion', passedFloor: true });
    expect(report.results[0]?.score).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });

  it('a prompt nothing answers injects nothing; the sidecar and the trace show the scores under the floor', async () => {
    const result = await runtime.recallFor([user('Write a haiku about autumn.', 200)]);
    expect(result.outcome).toBe('empty');
    expect(result.messages).toBeUndefined();
    await runtime.session.idle();
    await waitUntil(() => lastRecall().outcome === 'empty');
    expect(lastRecall().results.every((r) => !r.passedFloor && (r.score ?? 0) < RECALL_FLOOR)).toBe(true);
    const events = trace.filter((r) => r.gate === 'session' && JSON.stringify(r.data).includes('session.recall.succeeded'));
    const last = JSON.stringify(events.at(-1)?.data);
    expect(last).toContain(`"floor":${RECALL_FLOOR}`);
    const injected = events.map((r) => JSON.stringify(r.data)).find((d) => d.includes('"passedFloor":true'));
    expect(injected).toContain('"stage":"expansion"');
  });
});
