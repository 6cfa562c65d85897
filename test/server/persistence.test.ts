import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, spawnServerProcess, startTestServer } from '../helpers/embeddedServer.js';
import type { ServerProcess } from '../helpers/embeddedServer.js';
import { startEmbeddedServer } from '../../src/server/index.js';
import { encodeLineBytes } from '../../src/server/store/logFormat.js';
import { openStore } from '../../src/server/store/store.js';

const B = '/v1/default/banks';
const dirs: string[] = [];
const children: ServerProcess[] = [];

const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'am-persist-'));
  dirs.push(dir);
  return dir;
};

const spawnServer = async (args: readonly string[]): Promise<ServerProcess> => {
  const child = await spawnServerProcess(args);
  children.push(child);
  return child;
};

afterAll(async () => {
  for (const c of children) await c.kill();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const logSegments = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => n.startsWith('log-')).sort();

describe('persistence in-process', () => {
  it('everything written is back after close and restart (snapshot + log)', async () => {
    const dir = await tempDir();
    const first = await startTestServer({ dataDir: dir, snapshotEvery: 5 });
    for (let i = 0; i < 12; i += 1) await call(first, 'POST', `${B}/p/memories`, { items: [{ content: `fact number ${i}`, document_id: `d${i}`, tags: ['t'] }] });
    await call(first, 'PUT', `${B}/p2`, { name: 'Second' });
    await call(first, 'DELETE', `${B}/p/documents/d3`);
    await first.close();
    // Each snapshot appended a segment: the records written since the one before.
    expect((await readdir(dir)).filter((n) => /^segment-\d{12}-\d{4}\.seg$/.test(n)).length).toBeGreaterThan(1);
    const second = await startTestServer({ dataDir: dir });
    try {
      const docs = await call(second, 'GET', `${B}/p/documents?limit=100`);
      expect(docs.body.total).toBe(11);
      expect(docs.body.items.map((d: { id: string }) => d.id)).not.toContain('d3');
      expect((await call(second, 'GET', `${B}?q=p2`)).body.banks[0].name).toBe('Second');
      const recalled = await call(second, 'POST', `${B}/p/memories/recall`, { query: 'number', types: ['world'] });
      expect(recalled.body.results).toHaveLength(11);
    } finally {
      await second.close();
    }
  });

  it('a batch parent left open by a kill after its children finished is settled at start-up', async () => {
    const dir = await tempDir();
    const first = await startTestServer({ dataDir: dir });
    await call(first, 'PUT', `${B}/ops`, { name: 'ops' });
    await first.close();
    // What a SIGKILL between the child's completion and the parent's update leaves in the log.
    const at = '2026-11-25T10:00:00.000Z';
    const PARENT = '0b5c3a7e-1d2f-4a6b-9c8d-000000000001';
    const CHILD = '0b5c3a7e-1d2f-4a6b-9c8d-000000000002';
    const store = await openStore({ dataDir: dir });
    await store.commit([
      { type: 'operation.put', operation: { id: PARENT, bank_id: 'ops', task_type: 'batch_retain', status: 'processing', items_count: 2, created_at: at, updated_at: at, child_ids: [CHILD] } },
      { type: 'operation.put', operation: { id: CHILD, bank_id: 'ops', task_type: 'retain', status: 'completed', items_count: 2, created_at: at, updated_at: at, completed_at: at, parent_id: PARENT } },
    ]);
    await store.close();
    const second = await startTestServer({ dataDir: dir });
    try {
      await second.idle();
      const parent = await call(second, 'GET', `${B}/ops/operations/${PARENT}`);
      expect(parent.body.status).toBe('completed');
    } finally {
      await second.close();
    }
  });

  it('a second server on the same data dir is refused with a clear message', async () => {
    const dir = await tempDir();
    const first = await startEmbeddedServer({ port: 0, dataDir: dir });
    try {
      await expect(startEmbeddedServer({ port: 0, dataDir: dir })).rejects.toThrow(/in use by another server/);
    } finally {
      await first.close();
    }
  });
});

describe('crash safety (child process, SIGKILL)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
  });

  it('everything acknowledged before SIGKILL is there after restart, including a pending async retain', async () => {
    const server = await spawnServer(['--data-dir', dir, '--operation-delay-ms', '600000', '--snapshot-every', '7']);
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await call(server, 'POST', `${B}/crash/memories`, { items: [{ content: `acked turn ${i}`, document_id: 'session', update_mode: 'append' }] });
      expect(res.status).toBe(200);
      acknowledged.push(`acked turn ${i}`);
    }
    const opId = '1e2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b';
    const asyncRes = await call(server, 'POST', `${B}/crash/memories`, { items: [{ content: 'queued before the crash', document_id: 'later' }], async: true, operation_id: opId });
    expect(asyncRes.status).toBe(200);
    await server.kill();

    const restarted = await spawnServer(['--data-dir', dir]);
    try {
      const doc = await call(restarted, 'GET', `${B}/crash/documents/session`);
      expect(doc.body.original_text.split('\n')).toEqual(acknowledged);
      let status = '';
      for (let i = 0; i < 100 && status !== 'completed'; i += 1) {
        status = (await call(restarted, 'GET', `${B}/crash/operations/${opId}`)).body.status as string;
        if (status !== 'completed') await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe('completed');
      expect((await call(restarted, 'GET', `${B}/crash/documents/later`)).body.original_text).toBe('queued before the crash');
    } finally {
      await restarted.kill();
    }
  });

  it('async retains applied in batches: a SIGKILL mid-way loses none and applies none twice', async () => {
    // Runs of requests to distinct documents share one commit; appends to shared documents do
    // not (each reads the last): both kinds, killed while they are being applied, then right
    // after the last acknowledgement. The items carry several times the text a read of the bank
    // waits for (256 K characters), so the polling below does not hurry them all through.
    const batches = await tempDir();
    const shared = ['s0', 's1', 's2'];
    const appended = new Map<string, string[]>(shared.map((id) => [id, []]));
    const distinct = new Map<string, string>();
    const operationIds: string[] = [];
    const filler = 'the durable log keeps every acknowledged write '.repeat(60);
    const send = async (server: ServerProcess, round: number): Promise<void> => {
      for (let i = 0; i < 24; i += 1) {
        const appends = i >= 8 && i < 16;
        const items = appends
          ? shared.map((id) => ({ content: `round ${round} turn ${i} to ${id}`, document_id: id, update_mode: 'append' }))
          : Array.from({ length: 20 }, (_, k) => ({ content: `round ${round} item ${i}.${k} ${filler}`, document_id: `d-${round}-${i}-${k}` }));
        const res = await call(server, 'POST', `${B}/batched/memories`, { items, async: true });
        expect(res.status).toBe(200);
        operationIds.push(res.body.operation_id as string);
        for (const item of items) {
          if (appends) appended.get(item.document_id)?.push(item.content);
          else distinct.set(item.document_id, item.content);
        }
      }
    };
    const counts = async (server: ServerProcess): Promise<{ open: number; completed: number }> => {
      const total = async (status: string): Promise<number> => (await call(server, 'GET', `${B}/batched/operations?status=${status}&type=retain&limit=1`)).body.total as number;
      return { open: (await total('pending')) + (await total('processing')), completed: await total('completed') };
    };

    // Operations start 300 ms after their request, one after another as they were sent, so
    // they are applied in several batches; the server is killed at the first one it finishes.
    // Whether others were still open then is a race: a round that finished them all in between
    // is tried again (on the same data, which is checked whole at the end), up to five rounds.
    const waitFor = async (server: ServerProcess, done: (seen: { open: number; completed: number }) => boolean) => {
      let seen = await counts(server);
      for (const until = Date.now() + 20_000; !done(seen) && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 5));
        seen = await counts(server);
      }
      return seen;
    };
    let killedMidway = false;
    for (let round = 0; round < 5 && !killedMidway; round += 1) {
      const server = await spawnServer(['--data-dir', batches, '--operation-delay-ms', '300']);
      // What an earlier round left pending finishes first.
      const before = (await waitFor(server, (seen) => seen.open === 0)).completed;
      await send(server, round);
      const seen = await waitFor(server, (now) => now.completed > before);
      killedMidway = seen.completed > before && seen.open > 0;
      await server.kill();
    }
    expect(killedMidway).toBe(true);
    const second = await spawnServer(['--data-dir', batches]);
    await send(second, 5);
    await second.kill();

    const last = await spawnServer(['--data-dir', batches]);
    try {
      let now = await counts(last);
      for (let i = 0; i < 500 && now.open > 0; i += 1) {
        await new Promise((r) => setTimeout(r, 20));
        now = await counts(last);
      }
      expect(now.open).toBe(0);
      for (const id of operationIds) expect((await call(last, 'GET', `${B}/batched/operations/${id}`)).body.status).toBe('completed');
      for (const [id, lines] of appended) expect((await call(last, 'GET', `${B}/batched/documents/${id}`)).body.original_text.split('\n')).toEqual(lines);
      const listed = await call(last, 'GET', `${B}/batched/documents?limit=1000`);
      expect(listed.body.total).toBe(distinct.size + shared.length);
      for (const [id, text] of distinct) expect((await call(last, 'GET', `${B}/batched/documents/${id}`)).body.original_text).toBe(text);
    } finally {
      await last.kill();
    }
  });

  it('a torn last line is cut off on start and nothing acknowledged is lost', async () => {
    const server = await spawnServer(['--data-dir', dir]);
    await call(server, 'POST', `${B}/torn/memories`, { items: [{ content: 'survives the tear', document_id: 'keep' }] });
    await server.kill();
    const segments = await logSegments(dir);
    const newest = join(dir, segments[segments.length - 1] ?? '');
    const intact = (await stat(newest)).size;
    // Half of a real commit line (a new bank and its document): one line per commit, so the
    // torn commit must vanish whole.
    const now = '2024-01-01T00:00:00.000+00:00';
    const commit = encodeLineBytes([
      { type: 'bank.put', bank: { bank_id: 'half', name: 'half', disposition: { skepticism: 3, literalism: 3, empathy: 3 }, mission: '', created_at: now, updated_at: now } },
      {
        type: 'document.put',
        bank_id: 'half',
        document: { id: 'h', original_text: 'never acknowledged', content_hash: null, created_at: now, updated_at: now, tags: [], retain_params: {} },
        chunks: [],
        facts: [],
      },
    ]);
    await appendFile(newest, commit.subarray(0, Math.floor(commit.length * 0.7)));

    const restarted = await spawnServer(['--data-dir', dir]);
    try {
      expect((await call(restarted, 'GET', `${B}/torn/documents/keep`)).body.original_text).toBe('survives the tear');
      expect((await stat(newest)).size).toBe(intact);
      expect((await call(restarted, 'GET', `${B}?q=half`)).body.banks).toEqual([]);
      expect((await call(restarted, 'GET', `${B}/crash/documents/session`)).status).toBe(200);
    } finally {
      await restarted.kill();
    }
  });

  it('a damaged line in the middle of the log stops start-up with the file and line named', async () => {
    const broken = await tempDir();
    const server = await startEmbeddedServer({ port: 0, dataDir: broken });
    await call(server, 'POST', `${B}/m/memories`, { items: [{ content: 'one' }] });
    await call(server, 'POST', `${B}/m/memories`, { items: [{ content: 'two' }] });
    // Stop without close(): no snapshot, so the log is the only record.
    const segments = await logSegments(broken);
    const path = join(broken, segments[segments.length - 1] ?? '');
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[0] = (lines[0] ?? '').replace('"bank_id"', '"bank_iX"');
    await server.close();
    // close() wrote a snapshot segment; remove it and restore the damaged log so replay must read it.
    for (const name of (await readdir(broken)).filter((n) => n.startsWith('segment-'))) await rm(join(broken, name));
    const fresh = await logSegments(broken);
    for (const name of fresh) await rm(join(broken, name));
    await writeFile(path, lines.join('\n'));
    await expect(startEmbeddedServer({ port: 0, dataDir: broken })).rejects.toThrow(/line 1 is damaged \(checksum mismatch\)/);
  });
});
