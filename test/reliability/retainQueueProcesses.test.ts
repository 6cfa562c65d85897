/**
 * The retain queue across real processes: children enqueue and deliver to the embedded
 * server (persistent data dir) and are SIGKILLed at random points; two children share one
 * queue. Afterwards every acknowledged job is on the server exactly once.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { bundleChild, bundleQueueChild, startQueueChild, type RunningChild } from './support/childRunner.js';
import { markerCounts } from './support/markers.js';
import { clientFor, tempQueueDir } from './support/queueFixtures.js';

let server: TestServer;
let script: string;
let hostScript: string;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  [server, script, hostScript] = await Promise.all([startTestServer({ persist: true }), bundleQueueChild(), bundleChild('runtimeChild')]);
  for (const bank of ['kill', 'pair']) {
    const made = await clientFor(server.url).ensureBank(bank, { name: bank })();
    if (made._tag === 'Left') throw new Error(`could not create bank ${bank}: ${JSON.stringify(made.left)}`);
  }
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await server.dispose();
});

/** Every `<mk:N>` in the bank's documents, with how often it occurs, in document order. */
const markersOnServer = async (bank: string): Promise<{ counts: Map<number, number>; orderByDoc: Map<string, number[]> }> => {
  await server.idle();
  const counts = new Map<number, number>();
  const orderByDoc = new Map<string, number[]>();
  const list = await call(server, 'GET', `/v1/default/banks/${bank}/documents?limit=1000`);
  expect(list.status).toBe(200);
  for (const item of list.body.items as { id: string }[]) {
    const doc = await call(server, 'GET', `/v1/default/banks/${bank}/documents/${encodeURIComponent(item.id)}`);
    const text = String(doc.body.original_text ?? '');
    const found = [...text.matchAll(/<mk:(\d+)>/g)].map((m) => Number(m[1]));
    orderByDoc.set(item.id, found);
    for (const n of found) counts.set(n, (counts.get(n) ?? 0) + 1);
  }
  return { counts, orderByDoc };
};

const drain = async (queuePath: string, bank: string): Promise<string[]> => {
  const child = startQueueChild(script, { QUEUE_PATH: queuePath, SERVER_URL: server.url, BANK: bank, DRAIN: '1' });
  cleanups.push(() => child.kill());
  await child.exited;
  return child.lines;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('retain queue under SIGKILL and concurrency (embedded server)', () => {
  it('loses no acknowledged job and delivers none twice across 100 SIGKILLs of four concurrent writers', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    const acked: number[] = [];
    let kills = 0;
    // Four children at a time on one queue: each start costs ~0.5-1.5 s on a loaded two-core
    // machine, so this is what fits 100 kills in about a minute.
    const ROUNDS = Number(process.env.KILL_ROUNDS ?? 25);
    const SLOTS = 4;
    const runSlot = async (round: number, slot: number): Promise<void> => {
      const child: RunningChild = startQueueChild(script, {
        QUEUE_PATH: tmp.queuePath,
        SERVER_URL: server.url,
        BANK: 'kill',
        START: String(round * 10_000 + slot * 2_000),
        MODE: slot === 1 ? 'coalesced' : 'immediate',
        PAUSE_MS: '5',
      });
      cleanups.push(() => child.kill());
      const t0 = Date.now();
      await child.waitFor(/^open$/);
      if (process.env.KILL_DEBUG) {
        await child.waitFor(/^timing/);
        console.log(`round ${round} slot ${slot} open after ${Date.now() - t0} ms ${child.lines.find((l) => l.startsWith('timing'))}`);
      }
      // Kill at a random point: during enqueue, delivery, compaction or lock hand-over.
      await sleep(Math.floor(Math.random() * 250));
      await child.kill();
      kills += 1;
      acked.push(...child.acked);
      const errors = child.lines.filter((l) => l.startsWith('error') || l.startsWith('stderr'));
      expect(errors, errors.join('\n')).toEqual([]);
    };
    for (let round = 0; round < ROUNDS; round += 1) await Promise.all(Array.from({ length: SLOTS }, (_, slot) => runSlot(round, slot)));
    expect(kills).toBeGreaterThanOrEqual(Math.min(100, ROUNDS * SLOTS));
    expect(acked.length).toBeGreaterThan(100);

    const drained = await drain(tmp.queuePath, 'kill');
    expect(drained.find((l) => l.startsWith('drained')), drained.join('\n')).toBe('drained 0 0');

    const { counts, orderByDoc } = await markersOnServer('kill');
    const missing = acked.filter((n) => (counts.get(n) ?? 0) === 0);
    const twice = [...counts].filter(([, c]) => c > 1).map(([n]) => n);
    expect(missing, `acknowledged but not on the server`).toEqual([]);
    expect(twice, `delivered more than once`).toEqual([]);
    // Per document, each child's jobs arrive in the order it queued them.
    for (const markers of orderByDoc.values()) {
      const byChild = new Map<number, number[]>();
      for (const n of markers) byChild.set(Math.floor(n / 2_000), [...(byChild.get(Math.floor(n / 2_000)) ?? []), n]);
      for (const seq of byChild.values()) expect(seq).toEqual([...seq].sort((a, b) => a - b));
    }
  }, 180_000);

  it('two processes enqueue and flush one queue at the same time: nothing lost, nothing twice', async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    const children = [0, 1].map((slot) =>
      startQueueChild(script, { QUEUE_PATH: tmp.queuePath, SERVER_URL: server.url, BANK: 'pair', START: String(slot * 5_000), COUNT: '150', MODE: 'immediate' }),
    );
    for (const child of children) cleanups.push(() => child.kill());
    const exits = await Promise.all(children.map((c) => c.exited));
    expect(exits.map((e) => e.code), children.flatMap((c) => c.lines.filter((l) => !l.startsWith('acked'))).join('\n')).toEqual([0, 0]);
    const acked = children.flatMap((c) => c.acked);
    expect(acked).toHaveLength(300);
    const drained = await drain(tmp.queuePath, 'pair');
    expect(drained.find((l) => l.startsWith('drained')), drained.join('\n')).toBe('drained 0 0');
    const { counts } = await markersOnServer('pair');
    const wrong = acked.filter((n) => counts.get(n) !== 1).map((n) => `${n}x${counts.get(n) ?? 0}`);
    expect(wrong, wrong.join(' ')).toEqual([]);
    expect(counts.size).toBe(300);
  }, 60_000);
});

/** A project for host processes, configured for the embedded server and `bank`. */
const hostProject = async (bank: string): Promise<{ project: string; home: string }> => {
  const tmp = await tempQueueDir();
  cleanups.push(tmp.dispose);
  const project = path.join(tmp.dir, 'project');
  const home = path.join(tmp.dir, 'home');
  await mkdir(path.join(project, '.pi'), { recursive: true });
  await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
  await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, trustedOrigins: [server.url] } }));
  await writeFile(path.join(project, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: bank } }, scope: { projectId: bank } }));
  return { project, home };
};

describe('five host processes on one project (queue journal, lease; embedded server)', () => {
  it('every acknowledged turn is on the server exactly once while processes start, queue turns and exit over each other', async () => {
    const { project, home } = await hostProject('multi');
    const SLOTS = 5;
    const ROUNDS = Number(process.env.HOST_ROUNDS ?? 3);
    const TURNS = 4;
    const acked: number[] = [];
    const host = async (slot: number, round: number): Promise<void> => {
      const child = startQueueChild(hostScript, {
        PROJECT: project,
        HOME: home,
        SESSION: `multi-${slot}-${round}`,
        START: String(slot * 1_000 + round * 100),
        TURNS: String(TURNS),
        PAUSE_MS: String(20 + slot * 15),
      });
      cleanups.push(() => child.kill());
      const exit = await child.exited;
      acked.push(...child.acked);
      const bad = child.lines.filter((l) => l.startsWith('error') || l.startsWith('stderr') || / failed/.test(l));
      expect(bad, child.lines.join('\n')).toEqual([]);
      expect(exit.code, child.lines.join('\n')).toBe(0);
    };
    // Staggered: a process starts (and folds the queue) while others are mid-turn.
    await Promise.all(
      Array.from({ length: SLOTS }, async (_, slot) => {
        await new Promise((r) => setTimeout(r, slot * 60));
        for (let round = 0; round < ROUNDS; round += 1) await host(slot, round);
      }),
    );
    expect(acked).toHaveLength(SLOTS * ROUNDS * TURNS);
    const drained = await drain(path.join(project, '.pi', 'memory', 'retain-queue.jsonl'), 'multi');
    expect(drained.find((l) => l.startsWith('drained')), drained.join('\n')).toBe('drained 0 0');

    // How many jobs a starting process offered again while their writer was still queuing them.
    const journal = (await readFile(path.join(project, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8')).split('\n').filter((l) => l.includes('"type":"retain.enqueued"'));
    const offers = new Map<string, number>();
    for (const line of journal) for (const m of line.matchAll(/"jobId":"([^"]+)"/g)) offers.set(m[1] ?? '', (offers.get(m[1] ?? '') ?? 0) + 1);
    const reoffered = [...offers.values()].filter((n) => n > 1).length;
    // One deliverer at a time (the lease): no batch starts while another owner's batch is out.
    const records = (await readFile(path.join(project, '.pi', 'memory', 'retain-queue.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { type: string; payload: { batch?: { owner: string; jobIds: string[] }; jobIds?: string[] } });
    let out: { owner: string; open: Set<string> } | undefined;
    let overlaps = 0;
    let batches = 0;
    for (const record of records) {
      if (record.type === 'retain.batchStarted' && record.payload.batch !== undefined) {
        batches += 1;
        if (out !== undefined && out.open.size > 0 && out.owner !== record.payload.batch.owner) overlaps += 1;
        out = { owner: record.payload.batch.owner, open: new Set(record.payload.batch.jobIds) };
      } else if (out !== undefined && ['retain.delivered', 'retain.deadLettered', 'retain.failed', 'retain.paused'].includes(record.type)) {
        for (const id of record.payload.jobIds ?? []) out.open.delete(id);
        if (record.type !== 'retain.delivered' && record.type !== 'retain.deadLettered') out.open.clear();
      }
    }
    expect(batches).toBeGreaterThan(5);
    expect(overlaps, 'a batch started while another process had one out').toBe(0);
    // The same by event time: a record's place in the file is when its writer got the lock, so a
    // batch started while another's was out can still land after that one's outcome.
    const timed = records as unknown as { type: string; payload: { at: number; batch?: { owner: string; jobIds: string[] }; jobIds?: string[] } }[];
    const spans: { owner: string; from: number; to: number }[] = [];
    timed.forEach((record, i) => {
      const batch = record.payload.batch;
      if (record.type !== 'retain.batchStarted' || batch === undefined) return;
      const open = new Set(batch.jobIds);
      let to = Number.POSITIVE_INFINITY;
      for (const later of timed.slice(i + 1)) {
        if (!['retain.delivered', 'retain.deadLettered', 'retain.failed', 'retain.paused'].includes(later.type)) continue;
        for (const id of later.payload.jobIds ?? []) open.delete(id);
        if (open.size === 0 || (later.type !== 'retain.delivered' && later.type !== 'retain.deadLettered')) {
          to = later.payload.at;
          break;
        }
      }
      spans.push({ owner: batch.owner, from: record.payload.at, to });
    });
    const crossed = spans.filter((a) => spans.some((b) => b.owner !== a.owner && b.from < a.from && a.from < b.to));
    expect(crossed, 'a batch started (by event time) while another process had one out').toEqual([]);
    const counts = await markerCounts(server, 'multi');
    const lost = acked.filter((n) => (counts.get(n) ?? 0) === 0);
    const twice = [...counts].filter(([, c]) => c > 1).map(([n, c]) => `MK${n} x${c}`);
    console.log(`five hosts: ${acked.length} acknowledged, ${[...counts.values()].reduce((a, b) => a + b, 0)} delivered, ${lost.length} lost, ${twice.length} duplicated; ${reoffered} job(s) offered twice and collapsed`);
    expect(lost, 'acknowledged but not on the server').toEqual([]);
    expect(twice, 'delivered more than once').toEqual([]);
  }, 180_000);

  it('hosts SIGKILLed mid-turn: every acknowledged turn reaches the server once, through the next start', async () => {
    const { project, home } = await hostProject('multikill');
    const SLOTS = 5;
    const ROUNDS = Number(process.env.HOST_ROUNDS ?? 3);
    const acked: number[] = [];
    let kills = 0;
    const host = async (slot: number, round: number, turns: number, killAfterMs?: number): Promise<void> => {
      const child = startQueueChild(hostScript, { PROJECT: project, HOME: home, SESSION: `kill-${slot}-${round}`, START: String(slot * 1_000 + round * 100), TURNS: String(turns), PAUSE_MS: '30' });
      cleanups.push(() => child.kill());
      if (killAfterMs !== undefined) {
        await child.waitFor(/^open$/);
        await new Promise((r) => setTimeout(r, killAfterMs));
        if (child.process.exitCode === null) kills += 1;
        await child.kill();
      } else {
        const exit = await child.exited;
        expect(exit.code, child.lines.join('\n')).toBe(0);
      }
      acked.push(...child.acked);
      expect(child.lines.filter((l) => l.startsWith('error') || l.startsWith('stderr')), child.lines.join('\n')).toEqual([]);
    };
    await Promise.all(
      Array.from({ length: SLOTS }, async (_, slot) => {
        await new Promise((r) => setTimeout(r, slot * 40));
        // Every other process is killed somewhere in its turns (each turn takes ~30-60 ms).
        for (let round = 0; round < ROUNDS; round += 1) await host(slot, round, 6, (slot + round) % 2 === 0 ? 50 + Math.floor(Math.random() * 300) : undefined);
      }),
    );
    expect(kills).toBeGreaterThan(0);
    // One more start re-offers what the killed ones handed off but never queued.
    await host(9, 0, 0);
    const drained = await drain(path.join(project, '.pi', 'memory', 'retain-queue.jsonl'), 'multikill');
    expect(drained.find((l) => l.startsWith('drained')), drained.join('\n')).toBe('drained 0 0');
    const counts = await markerCounts(server, 'multikill');
    const lost = acked.filter((n) => (counts.get(n) ?? 0) === 0);
    const twice = [...counts].filter(([, c]) => c > 1).map(([n, c]) => `MK${n} x${c}`);
    console.log(`five hosts, ${kills} killed: ${acked.length} acknowledged, ${[...counts.values()].reduce((a, b) => a + b, 0)} delivered, ${lost.length} lost, ${twice.length} duplicated`);
    expect(acked.length).toBeGreaterThan(20);
    expect(lost, 'acknowledged but not on the server').toEqual([]);
    expect(twice, 'delivered more than once').toEqual([]);
  }, 180_000);
});
