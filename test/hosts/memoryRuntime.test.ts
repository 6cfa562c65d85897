/**
 * createMemoryRuntime as any host uses it, against the embedded server on loopback, with
 * real files in a temp project: a run durable in the queue journal before retainTurn returns, opt-out, modes, double start,
 * late runs after shutdown, Esc, the last-recall sidecar, and unfinished setup.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { doctorCommand } from '../../src/tools/commands/doctor.js';
import { readJournalFile } from '../../src/adapters/journal/traceJournal.js';
import { vizGates } from '../../src/viz/gates.js';
import { replayJournal } from '../../src/viz/journalReplay.js';
import type { HostMessage } from '../../src/effects/session/messages.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { waitUntil } from '../helpers/waitUntil.js';

const user = (text: string, timestamp: number): HostMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp });
const assistant = (text: string, timestamp: number): HostMessage => ({ role: 'assistant', content: [{ type: 'text', text }], timestamp, model: 'm', stopReason: 'stop' });

const project = async (config: Record<string, unknown>): Promise<{ cwd: string; home: string }> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-rt-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  await mkdir(path.join(cwd, '.pi'), { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify(config));
  // The user trusts the test server: a project file may only point memory at a trusted origin.
  const baseUrl = (config['memory'] as { baseUrl?: string } | undefined)?.baseUrl;
  if (baseUrl !== undefined) {
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [baseUrl] } }));
  }
  return { cwd, home };
};

describe('createMemoryRuntime', () => {
  let server: TestServer;
  const open: MemoryRuntime[] = [];
  const start = async (dirs: { cwd: string; home: string }, notes: string[] = []): Promise<MemoryRuntime> => {
    const runtime = await createMemoryRuntime({ cwd: dirs.cwd, home: dirs.home, env: { HOME: dirs.home }, notify: (_l, t) => notes.push(t), shutdownFlushMs: 500 });
    open.push(runtime);
    return runtime;
  };
  const configured = () => ({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'rt-bank' } }, scope: { projectId: 'rt' } });

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    for (const runtime of open) await runtime.close();
    await server.dispose();
  });

  it('queues a run in the journal (fsync\'d) before retainTurn returns, then delivers it', async () => {
    const dirs = await project(configured());
    const runtime = await start(dirs);
    await waitUntil(() => runtime.status().setup.state === 'ready');
    await runtime.send({ type: 'session.started', sessionId: 'sess-1', sessionFile: '/tmp/sess-1.jsonl', reason: 'startup' });
    const turn = runtime.retainTurn([user('The CI cache key includes the lockfile hash.', 10), assistant('Understood.', 11)]);
    // Synchronously, before any await: the run is a job in the queue's journal, its one record.
    expect(turn.durable).toBe(true);
    expect(readFileSync(path.join(dirs.cwd, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8')).toContain('lockfile hash');
    expect(runtime.queue?.status().depth).toBe(1);
    expect((await turn.settled).outcome).toBe('queued');
    await runtime.queue!.flush({ deadline: Date.now() + 5_000 });
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 2_000 });
    await waitUntil(async () => {
      const r = await client.recall('rt-bank', { query: 'CI cache key lockfile' })();
      return E.isRight(r) && r.right.results.some((h) => h.text.includes('lockfile hash') && (h.tags ?? []).includes('session:sess-1'));
    });
    // The same messages again: nothing new (the cursor never goes backwards).
    expect((await runtime.retainTurn([user('The CI cache key includes the lockfile hash.', 10), assistant('Understood.', 11)]).settled).outcome).toBe('nothing');
  });

  it('the doctor\'s activity line says a retain was delivered once the queue sent it (it said "queued" still)', async () => {
    const dirs = await project({ ...configured(), banks: { project: { bankId: 'rt-doctor' } } });
    const runtime = await start(dirs);
    await waitUntil(() => runtime.status().setup.state === 'ready');
    await runtime.send({ type: 'session.started', sessionId: 'sess-doc', sessionFile: '/tmp/sess-doc.jsonl', reason: 'startup' });
    expect((await runtime.retainTurn([user('The staging database is in eu-west-2.', 10), assistant('Noted.', 11)]).settled).outcome).toBe('queued');
    await runtime.queue!.flush({ deadline: Date.now() + 5_000 });
    expect(runtime.queue!.status().depth).toBe(0);
    const report = await doctorCommand({ tools: await runtime.toolContext() });
    expect(report.text).toMatch(/last retain \d+s ago: delivered, 2 message\(s\)/);
    expect(report.text).not.toMatch(/last retain [^;]*: queued/);
  });

  it('retains a turn that holds an Authorization header whole: the header redacted, every message after it kept', async () => {
    const dirs = await project({ ...configured(), banks: { project: { bankId: 'rt-header' } } });
    const runtime = await start(dirs);
    await waitUntil(() => runtime.status().setup.state === 'ready');
    await runtime.send({ type: 'session.started', sessionId: 'sess-h', reason: 'startup' });
    const turn = runtime.retainTurn([
      user('why does this 401?\ncurl -H "Authorization: Bearer abc123def456ghi" https://api.example/v1/items', 10),
      assistant('The token expired; the deploy window for the new one is Friday 16:00.', 11),
    ]);
    expect((await turn.settled).outcome).toBe('queued');
    await runtime.queue!.flush({ deadline: Date.now() + 5_000 });
    const listed = await call(server, 'GET', '/v1/default/banks/rt-header/documents');
    const ids = (listed.body.items as { id: string }[]).map((d) => d.id);
    expect(ids.length).toBe(1);
    const text = JSON.stringify((await call(server, 'GET', `/v1/default/banks/rt-header/documents/${encodeURIComponent(ids[0] ?? '')}`)).body);
    expect(text).not.toContain('abc123def456ghi');
    expect(text).toContain('Authorization: [REDACTED]');
    // The queue redacts the turn's JSON again: a header rule took the rest of it with the header.
    expect(text).toContain('Friday 16:00');
  });

  it('treats a second start of the same session as one session', async () => {
    const runtime = await start(await project(configured()));
    await runtime.send({ type: 'session.started', sessionId: 'dup', reason: 'startup' });
    await runtime.send({ type: 'session.optOut.requested' });
    await runtime.send({ type: 'session.started', sessionId: 'dup', reason: 'startup' });
    const context = runtime.session.view().context;
    expect(context.starts).toBe(2);
    expect(context.nextOptOut).toBe(true);
  });

  it('next-opt-out skips exactly the next run, tells the user, and never retains it later', async () => {
    const notes: string[] = [];
    const runtime = await start(await project(configured()), notes);
    await runtime.send({ type: 'session.started', sessionId: 'opt', reason: 'startup' });
    await runtime.send({ type: 'session.optOut.requested' });
    const skipped = [user('private musings', 1), assistant('ok', 2)];
    expect((await runtime.retainTurn(skipped).settled).outcome).toBe('optedOut');
    expect(notes.some((n) => n.includes('next-opt-out'))).toBe(true);
    const next = await runtime.retainTurn([...skipped, user('keep this one', 3), assistant('kept', 4)]).settled;
    expect(next).toMatchObject({ outcome: 'queued', messages: 2 });
  });

  it('read-only sessions recall but never retain', async () => {
    const runtime = await start(await project(configured()));
    await runtime.send({ type: 'session.started', sessionId: 'ro', mode: 'read-only', reason: 'startup' });
    expect((await runtime.retainTurn([user('x', 1)]).settled).outcome).toBe('skipped');
    const recall = await runtime.recallFor([user('anything about deploys?', 1)]);
    expect(recall.outcome).not.toBe('skipped');
  });

  it('a run that ends after shutdown still reaches the queue journal before retainTurn returns, and the server once', async () => {
    const dirs = await project(configured());
    const first = await start(dirs);
    await first.send({ type: 'session.started', sessionId: 'late', reason: 'startup' });
    await first.send({ type: 'session.shutdown', reason: 'quit' });
    const late = first.retainTurn([user('The late run mentions zebra-migrations.', 1), assistant('noted', 2)]);
    expect(late.durable).toBe(true);
    expect(readFileSync(path.join(dirs.cwd, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8')).toContain('zebra-migrations');
    expect((await late.settled).outcome).toBe('deferred');
    await first.close();
    // Delivered by this runtime's closing flush or by the next one: once either way.
    const second = await start(dirs);
    await second.queue!.flush({ deadline: Date.now() + 5_000 });
    expect(second.queue!.status().depth).toBe(0);
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 2_000 });
    const found = await client.recall('rt-bank', { query: 'late run zebra migrations' })();
    expect(E.isRight(found) && found.right.results.filter((h) => h.text.includes('zebra-migrations')).length).toBe(1);
  });

  it('Esc aborts recall: no injection, outcome aborted', async () => {
    const runtime = await start(await project(configured()));
    await runtime.send({ type: 'session.started', sessionId: 'esc', reason: 'startup' });
    const controller = new AbortController();
    controller.abort();
    const result = await runtime.recallFor([user('what about deploys?', 1)], { signal: controller.signal });
    expect(result.outcome).toBe('aborted');
    expect(result.messages).toBeUndefined();
    await runtime.session.idle();
    expect(runtime.session.view().context.lastRecall?.outcome).toBe('aborted');
  });

  it('writes a redacted last-recall.json when recallStoreLast is on', async () => {
    const dirs = await project({ ...configured(), recall: { storeLastRecall: true } });
    const runtime = await start(dirs);
    await runtime.send({ type: 'session.started', sessionId: 'side', reason: 'startup' });
    await runtime.recallFor([user('why does api_key=sk-live-abcdefghijklmnopqrstuvwx fail?', 1)]);
    const file = path.join(dirs.cwd, '.pi', 'memory', 'last-recall.json');
    await waitUntil(() => existsSync(file));
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain('sk-live-abcdefghijklmnopqrstuvwx');
  });

  it('unfinished setup degrades to a readable status and sends nothing', async () => {
    const runtime = await start(await project({ memory: { baseUrl: server.url } }));
    await runtime.send({ type: 'session.started', sessionId: 'unset', reason: 'startup' });
    const status = runtime.status();
    expect(status.setup.state).toBe('unconfigured');
    expect(status.setup.detail).toContain('banks.project.bankId');
    expect(status.footer).toBe('memory: setup needed');
    expect((await runtime.recallFor([user('q', 1)])).outcome).toBe('skipped');
    // Nothing is sent: the turn is held until setup completes (issue 27), not dropped.
    const held = await runtime.retainTurn([user('q', 1)]).settled;
    expect(held).toMatchObject({ outcome: 'held', messages: 1, reason: 'memory is not set up in this project' });
  });

  it('a config change (memory_config wrote the file) re-decides setup and automation', async () => {
    const dirs = await project({ memory: { baseUrl: server.url } });
    const runtime = await start(dirs);
    await runtime.send({ type: 'session.started', sessionId: 'reload', reason: 'startup' });
    expect(runtime.status().setup.state).toBe('unconfigured');
    await writeFile(path.join(dirs.cwd, '.pi', 'memory.json'), JSON.stringify(configured()));
    await runtime.reloadConfig();
    await waitUntil(() => runtime.status().setup.state === 'ready');
    expect(runtime.session.view().context.automation).toEqual({ recall: true, retain: true });
    expect((await runtime.retainTurn([user('after reload', 1)]).settled).outcome).toBe('queued');
  });

  it('enabled: false disables everything and opens no queue', async () => {
    const dirs = await project({ ...configured(), enabled: false });
    const runtime = await start(dirs);
    expect(runtime.status().setup.state).toBe('disabled');
    expect(runtime.queue).toBeUndefined();
    expect(existsSync(path.join(dirs.cwd, '.pi', 'memory', 'trace'))).toBe(false);
  });

  it('journals the session and setup gates, and each journal replays to the state the gate reached', async () => {
    const dirs = await project(configured());
    const runtime = await createMemoryRuntime({ cwd: dirs.cwd, home: dirs.home, env: { HOME: dirs.home }, shutdownFlushMs: 500 });
    await waitUntil(() => runtime.status().setup.state === 'ready');
    await runtime.send({ type: 'session.started', sessionId: 'sess-j', sessionFile: '/tmp/sess-j.jsonl', reason: 'startup' });
    await runtime.send({ type: 'session.optOut.requested' });
    await runtime.send({ type: 'session.mode.set', mode: 'read-only' });
    const live = { setup: runtime.setup.getSnapshot().value, session: runtime.session.gate.getSnapshot().value };
    await runtime.close();
    const dir = path.join(dirs.cwd, '.pi', 'memory', 'trace');
    for (const gate of ['setup', 'session'] as const) {
      const [name] = readdirSync(dir).filter((f) => f.startsWith(`${gate}.journal.`));
      expect(name, `${gate} journal`).toBeDefined();
      const journal = await readJournalFile(path.join(dir, name!));
      expect(journal.damage).toEqual([]);
      const replay = replayJournal(vizGates.find((g) => g.name === gate)!, journal.records);
      expect(replay.problems).toEqual([]);
      const last = replay.trace.filter((r) => r.kind === 'transition').at(-1);
      expect((last?.data as { value: unknown }).value).toEqual(live[gate]);
    }
  });
});
