/**
 * Acknowledged writes survive SIGKILL of the embedded server, whatever moment the kill lands
 * on: right after a 2xx, while an async retain is pending or running, while a snapshot is
 * written. Retains are sent as the extension's queue sends them (a session document appended
 * to, async with an `operation_id`; sync appends; replaces of their own documents), by several
 * concurrent writers over keep-alive sockets, and a request that got no answer is sent again
 * after the restart with the same body and key, as the queue re-sends a batch. After the last
 * restart, every acknowledged marker is in the documents list and recallable, and no keyed
 * retain was applied twice. Then the same through the extension's own path: the retain queue
 * over the real HTTP client, the server SIGKILLed and restarted under it on one port.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryServer } from '../../src/adapters/server/client.js';
import { openRetainQueue } from '../../src/effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../../src/hosts/retainQueueStore.js';
import { seededRandom } from '../../src/server/syntheticCorpus.js';
import { call, spawnServerProcess, type ServerProcess } from '../helpers/embeddedServer.js';
import { waitUntil } from '../helpers/waitUntil.js';
import { bundleServeChild, freePort, superviseServer } from './chaos/serverSupervisor.js';

const BANK = 'durable';
const B = `/v1/default/banks/${BANK}`;
const MARKER = /<dm:(\d+)>/g;

type Kind = 'asyncAppend' | 'asyncBatch' | 'syncAppend' | 'asyncReplace' | 'syncReplace';

interface Write {
  /** One marker per item. */
  readonly markers: readonly number[];
  readonly kind: Kind;
  readonly body: unknown;
}

/** Items a batch carries: the queue sends several sessions' turns in one keyed request. */
const BATCH = 3;

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** The item the extension's session projection sends, around one marker. */
const itemOf = (marker: number, documentId: string, updateMode: 'append' | 'replace') => ({
  content: `turn <dm:${marker}> the user asked about durabletoken${marker} and the assistant answered`,
  context: 'pi coding session for project "durable", session s.jsonl',
  timestamp: new Date(Date.UTC(2026, 10, 27, 8, 0, marker % 60)).toISOString(),
  tags: ['project:durable', `session:${documentId}`],
  metadata: { cwd: '/tmp/durable', source: 'pi', retainSource: 'auto' },
  document_id: documentId,
  update_mode: updateMode,
});

const writeOf = (first: number, kind: Kind, writer: number): Write => {
  if (kind === 'asyncBatch') {
    // Several sessions' documents in one async, keyed request.
    const markers = Array.from({ length: BATCH }, (_, k) => first + k);
    const items = markers.map((m, k) => itemOf(m, `pi-session:batch-${writer}-${k}`, 'append'));
    return { markers, kind, body: { items, async: true, operation_id: randomUUID() } };
  }
  const append = kind === 'asyncAppend' || kind === 'syncAppend';
  // Appends share a writer's session document; a replace owns its document, so every marker stays checkable.
  const documentId = append ? `pi-session:writer-${writer}` : `replaced-${first}`;
  const item = itemOf(first, documentId, append ? 'append' : 'replace');
  const body = kind === 'asyncAppend' || kind === 'asyncReplace' ? { items: [item], async: true, operation_id: randomUUID() } : { items: [item], async: false };
  return { markers: [first], kind, body };
};

/** One POST over the shared keep-alive agent: the status, or undefined when no answer came. */
const post = (url: string, agent: Agent, path: string, body: unknown): Promise<number | undefined> =>
  new Promise((resolve) => {
    const text = JSON.stringify(body);
    const req = httpRequest(`${url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(undefined));
      res.on('close', () => resolve(res.complete ? res.statusCode : undefined));
    });
    req.on('error', () => resolve(undefined));
    req.end(text);
  });

/** Every marker in the bank's documents, with its count. */
const markersOf = async (server: { readonly url: string }): Promise<Map<number, number>> => {
  const counts = new Map<number, number>();
  const list = await call(server, 'GET', `${B}/documents?limit=1000`);
  expect(list.status).toBe(200);
  for (const { id } of list.body.items as { id: string }[]) {
    const doc = await call(server, 'GET', `${B}/documents/${encodeURIComponent(id)}`);
    for (const m of String(doc.body.original_text ?? '').matchAll(MARKER)) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1);
  }
  return counts;
};

const noPendingOperations = async (server: { readonly url: string }): Promise<void> => {
  await waitUntil(async () => (await call(server, 'GET', `${B}/operations?status=pending&exclude_parents=true&limit=1`)).body.total === 0, 60_000, 'no pending retain operation');
};

describe('crash durability of the embedded server (child process, SIGKILL at random moments)', () => {
  it('every acknowledged retain is in the documents list and recallable after SIGKILL restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'am-durable-'));
    dirs.push(dir);
    const random = seededRandom(20261127);
    const kinds: readonly Kind[] = ['asyncAppend', 'asyncBatch', 'syncAppend', 'asyncReplace', 'syncReplace'];
    const acknowledged = new Map<number, Write>();
    // Sent without an answer: re-sent after the restart, byte for byte, as the queue does.
    let unanswered: Write[] = [];
    let next = 1;
    const rounds = 14;
    const writers = 4;
    for (let round = 0; round < rounds; round += 1) {
      // Snapshots every few commits so kills land in them; a small operation delay so kills land
      // on pending and running operations alike.
      const server = await spawnServerProcess(['--data-dir', dir, '--snapshot-every', String(2 + (round % 4)), '--operation-delay-ms', String(Math.floor(random() * 40))]);
      servers.push(server);
      const agent = new Agent({ keepAlive: true, maxSockets: writers });
      const resend = unanswered;
      unanswered = [];
      let killed = false;
      const send = async (write: Write): Promise<boolean> => {
        const status = await post(server.url, agent, `${B}/memories`, write.body);
        if (status !== undefined && status >= 200 && status < 300) for (const m of write.markers) acknowledged.set(m, write);
        else if (status === undefined) unanswered.push(write);
        else throw new Error(`retain of markers ${write.markers.join(', ')} answered ${status}: ${server.output().slice(-2000)}`);
        return status !== undefined;
      };
      const writer = async (w: number): Promise<void> => {
        for (const write of resend.filter((_, i) => i % writers === w)) if (!(await send(write))) return;
        while (!killed) {
          const kind = kinds[Math.floor(random() * kinds.length)] ?? 'asyncAppend';
          const write = writeOf(next, kind, w);
          next += write.markers.length;
          if (!(await send(write))) return;
          // Some writes go out back to back, some after a pause.
          if (random() < 0.5) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 15)));
        }
      };
      const running = Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.floor(random() * 400)));
      killed = true;
      await server.kill();
      await running;
      agent.destroy();
    }

    const last = await spawnServerProcess(['--data-dir', dir]);
    servers.push(last);
    const agent = new Agent({ keepAlive: true });
    for (const write of unanswered) {
      const status = await post(last.url, agent, `${B}/memories`, write.body);
      expect(status, `re-send of markers ${write.markers.join(', ')}`).toBe(200);
      for (const m of write.markers) acknowledged.set(m, write);
    }
    agent.destroy();
    await noPendingOperations(last);
    expect(acknowledged.size).toBeGreaterThan(rounds * writers);

    const counts = await markersOf(last);
    const lost = [...acknowledged].filter(([m]) => (counts.get(m) ?? 0) === 0).map(([m, w]) => `${m} (${w.kind})`);
    expect(lost, 'acknowledged but not in the documents list').toEqual([]);
    // A keyed retain re-sent after a kill is the one operation: applied once.
    const twice = [...acknowledged].filter(([m, w]) => w.kind.startsWith('async') && (counts.get(m) ?? 0) > 1).map(([m]) => m);
    expect(twice, 'a keyed retain applied twice').toEqual([]);

    // Recallable: each document's memories hold its markers' words.
    const sample = [...acknowledged].filter((_, i) => i % 7 === 0);
    for (const [marker, write] of sample) {
      const recalled = await call(last, 'POST', `${B}/memories/recall`, { query: `durabletoken${marker}`, types: ['world', 'experience'], budget: 'high', max_tokens: 8192 });
      expect(recalled.status).toBe(200);
      const texts = (recalled.body.results as { text: string }[]).map((r) => r.text).join('\n');
      expect(texts, `recall of marker ${marker} (${write.kind})`).toContain(`durabletoken${marker}`);
    }
  }, 300_000);
});

describe('the retain queue over the real HTTP client, the server SIGKILLed under it', () => {
  it('every queued turn is on the server exactly once after the last restart', async () => {
    const root = await mkdtemp(join(tmpdir(), 'am-durable-queue-'));
    dirs.push(root);
    const key = 'hs_durable_queue_0123456789abcdef';
    const port = await freePort();
    const server = superviseServer(await bundleServeChild(root), { port, dataDir: join(root, 'data'), keyEnv: 'AM_DURABLE_KEY', key });
    const random = seededRandom(1368733968);
    const queue = await openRetainQueue({
      ...fileRetainQueuePorts({ queuePath: join(root, 'project', '.pi', 'memory', 'retain-queue.jsonl') }),
      server: createMemoryServer({ baseUrl: server.url, apiKey: key, timeoutMs: 5_000, retry: { attempts: 1, baseMs: 10, capMs: 50 }, breaker: { threshold: 1_000, coolDownMs: 50 } }),
      mode: 'immediate',
      flushIntervalMs: 0,
      backoff: { baseMs: 20, capMs: 200 },
      onWarning: () => undefined,
    });
    const kills = 20;
    let queued = 0;
    const going = (): boolean => server.kills() < kills;
    try {
      await server.start();
      const writer = async (): Promise<void> => {
        while (going()) {
          const marker = (queued += 1);
          const documentId = `pi-session:${marker % 3}`;
          await queue.enqueue([{ bankId: BANK, documentId, updateMode: 'append', item: itemOf(marker, documentId, 'append'), identity: `run-${marker}#0` }]);
          await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 60)));
        }
      };
      const flusher = async (): Promise<void> => {
        while (going()) {
          await queue.flush({ deadline: Date.now() + 500 });
          // A flush with nothing due resolves at once: yield to timers between them.
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      const flapper = async (): Promise<void> => {
        while (going()) {
          await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(random() * 500)));
          await server.kill();
          await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 200)));
          await server.start();
        }
      };
      await Promise.all([writer(), flusher(), flapper()]);
      await server.start();
      await waitUntil(async () => (await queue.flush({ deadline: Date.now() + 2_000, force: true })).remaining === 0, 60_000, 'the queue delivered everything');
      const reader = { url: server.url };
      const headers = { Authorization: `Bearer ${key}` };
      await waitUntil(async () => (await call(reader, 'GET', `${B}/operations?status=pending&exclude_parents=true&limit=1`, undefined, headers)).body.total === 0, 60_000, 'no pending retain operation');
      const counts = new Map<number, number>();
      const list = await call(reader, 'GET', `${B}/documents?limit=100`, undefined, headers);
      for (const { id } of list.body.items as { id: string }[]) {
        const doc = await call(reader, 'GET', `${B}/documents/${encodeURIComponent(id)}`, undefined, headers);
        for (const m of String(doc.body.original_text ?? '').matchAll(MARKER)) counts.set(Number(m[1]), (counts.get(Number(m[1])) ?? 0) + 1);
      }
      expect(queued).toBeGreaterThan(kills);
      const wrong = Array.from({ length: queued }, (_, i) => i + 1).filter((n) => counts.get(n) !== 1).map((n) => `${n} x${counts.get(n) ?? 0}`);
      expect(wrong, 'turns not on the server exactly once').toEqual([]);
    } finally {
      await queue.close({ flush: false });
      await server.stop();
    }
  }, 300_000);
});
