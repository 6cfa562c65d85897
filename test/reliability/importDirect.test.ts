/**
 * An import sends its documents straight to the server while it answers, recording each request
 * in the checkpoint once acknowledged, without the retain queue's journal (docs/import.md,
 * "Sent straight to the server"). The real importer, runtime and embedded server:
 * - kill -9 after the server acknowledged a request and before the importer could record it
 *   (a proxy holds the answer back and kills the importer): the server holds documents the
 *   checkpoint does not; the resumed run ends with every document once, none missing;
 * - a server answering 503: the documents go to the durable queue, the import pauses
 *   (`serverDown`), and once the server is back the next run delivers each document once; a
 *   document that changed meanwhile ends in its newer version (the queue is emptied before the
 *   import sends anything itself);
 * - a server answering: nothing is written to the retain queue's journal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openImporter, readImportStatus } from '../../src/hosts/importer.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';

const FIXTURES = path.resolve(__dirname, '../../fixtures/pi/sessions');
const SESSIONS = 120;

interface Project {
  readonly cwd: string;
  readonly home: string;
  readonly sessions: string;
  readonly bank: string;
  readonly queueFile: string;
  readonly checkpoint: string;
}

let counter = 0;
const makeProject = async (url: string): Promise<Project> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-import-direct-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  const sessions = path.join(root, 'sessions');
  for (const d of [path.join(cwd, '.pi'), path.join(home, '.pi', 'agent'), sessions]) mkdirSync(d, { recursive: true });
  counter += 1;
  const bank = `import-direct-${counter}`;
  writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: url } }));
  writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl: url, timeoutMs: 5000 }, banks: { project: { bankId: bank } }, scope: { projectId: bank }, setupComplete: true }));
  const template = readFileSync(path.join(FIXTURES, 'pi073-linear.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  const head = JSON.parse(template[0]!) as Record<string, unknown>;
  for (let i = 0; i < SESSIONS; i += 1) {
    const id = `01a20b10-0000-7000-8000-${String(i).padStart(12, '0')}`;
    writeFileSync(path.join(sessions, `s${String(i).padStart(4, '0')}.jsonl`), [JSON.stringify({ ...head, id, cwd }), ...template.slice(1)].join('\n') + '\n');
  }
  const memory = path.join(cwd, '.pi', 'memory');
  return { cwd, home, sessions, bank, queueFile: path.join(memory, 'retain-queue.jsonl'), checkpoint: path.join(memory, 'import-checkpoint.json') };
};

const documentIds = async (server: TestServer, bank: string): Promise<string[]> => {
  const res = await call(server, 'GET', `/v1/default/banks/${bank}/documents?limit=1000`);
  return res.status === 404 ? [] : (res.body.items as { id: string }[]).map((d) => d.id);
};

/**
 * A proxy to the server that, on the `killOn`-th retain request, lets the server answer, then
 * kills the importer before the answer reaches it; every other request passes through.
 */
const startProxy = async (target: string, killOn: number, victim: () => ChildProcess | undefined): Promise<{ url: string; killed: Promise<void>; close(): Promise<void> }> => {
  let retains = 0;
  let onKilled: () => void = () => undefined;
  const killed = new Promise<void>((resolve) => (onKilled = resolve));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const isRetain = req.method === 'POST' && /\/memories$/.test(req.url ?? '');
      const nth = isRetain ? (retains += 1) : 0;
      const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          if (nth === killOn) {
            // The server has taken the request (its answer is here); the importer never sees it.
            victim()?.kill('SIGKILL');
            onKilled();
            res.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(body));
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    killed,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

describe('an import sends its documents straight to the server (real importer, runtime and server)', () => {
  let server: TestServer;
  const open: MemoryRuntime[] = [];
  const importOnce = async (project: Project) => {
    const runtime = await createMemoryRuntime({ cwd: project.cwd, home: project.home, env: { HOME: project.home } });
    open.push(runtime);
    const importer = await openImporter(runtime, { home: project.home, env: { HOME: project.home } });
    try {
      return { view: await importer.gate.run({ sources: [project.sessions], options: importer.options({ dryRun: false }) }), runtime };
    } finally {
      await importer.close();
    }
  };

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    for (const runtime of open) await runtime.close();
    await server.dispose();
  });

  it('kill -9 between the server acknowledging a request and its checkpoint record, then resume: every document once, none missing', async () => {
    let child: ChildProcess | undefined;
    const proxy = await startProxy(server.url, 3, () => child);
    try {
      const project = await makeProject(proxy.url);
      child = spawn(process.execPath, ['--import', pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href, path.resolve('test/helpers/importChild.ts')], {
        env: { PATH: process.env['PATH'] ?? '', HOME: project.home, CWD: project.cwd, SOURCES: project.sessions },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child?.on('close', resolve));
      const first = await Promise.race([proxy.killed.then(() => 'killed' as const), exited.then(() => 'exited' as const)]);
      expect(first, stderr).toBe('killed');
      await exited;

      // What the server holds against what the checkpoint says was delivered.
      await server.idle();
      const onServer = (await documentIds(server, project.bank)).filter((id) => id.startsWith('pi-import:'));
      const recorded = await readImportStatus(project.checkpoint);
      // Mid-run (its dead holder's run lock is not yet stale).
      expect(recorded?.state).toBe('planning');
      expect(onServer.length).toBeGreaterThan(recorded?.imported.total ?? 0);
      expect(recorded?.imported.total).toBeGreaterThan(0);
      expect(recorded?.imported.completed).toBe(recorded?.imported.total);
      // Sent straight: nothing of them went through the queue's journal.
      expect(existsSync(project.queueFile) ? readFileSync(project.queueFile, 'utf8') : '').not.toContain('retain.enqueued');

      const { view } = await importOnce(project);
      expect(view.state).toBe('done');
      expect(view.documents).toBe(SESSIONS);
      expect(view.imported).toEqual({ total: SESSIONS, completed: SESSIONS });
      await server.idle();
      const ids = await documentIds(server, project.bank);
      expect(ids).toHaveLength(SESSIONS);
      expect(new Set(ids).size).toBe(SESSIONS);
      const sample = (await call(server, 'GET', `/v1/default/banks/${project.bank}/documents/${encodeURIComponent(ids[0]!)}`)).body.original_text as string;
      expect(sample.split('How do we build this monorepo?').length - 1).toBe(1);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('a server answering 503: the documents go to the queue and the import pauses; the next run delivers each once', async () => {
    const project = await makeProject(server.url);
    server.setFaults([{ method: 'POST', path: `/v1/default/banks/${project.bank}/memories`, kind: 'status', status: 503 }]);
    const down = await importOnce(project);
    expect(down.view.state).toBe('paused');
    expect(down.view.pause?.cause).toBe('serverDown');
    expect(readFileSync(project.queueFile, 'utf8')).toContain('retain.enqueued');
    expect(await documentIds(server, project.bank)).toHaveLength(0);

    // One session grows meanwhile: its document's older version waits in the queue, and the
    // next run must not let it land after the newer one it sends itself.
    const grown = path.join(project.sessions, 's0000.jsonl');
    appendFileSync(
      grown,
      [
        { type: 'message', id: 'c0ffee01', parentId: '5b246e7f', timestamp: '2026-11-24T01:00:00.000Z', message: { role: 'user', content: [{ type: 'text', text: 'Where does the release checklist live?' }], timestamp: 1795482000000 } },
        { type: 'message', id: 'c0ffee02', parentId: 'c0ffee01', timestamp: '2026-11-24T01:00:01.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'In docs/RELEASING.md, kept beside the changelog.' }], timestamp: 1795482001000 } },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    // Back up, the queue's first request (the older version, re-sent as the queue opens) slow.
    server.setFaults([{ method: 'POST', path: `/v1/default/banks/${project.bank}/memories`, times: 1, kind: 'latency', ms: 1500 }]);
    const up = await importOnce(project);
    expect(up.view.state).toBe('done');
    await server.idle();
    const ids = await documentIds(server, project.bank);
    expect(ids).toHaveLength(SESSIONS);
    expect(new Set(ids).size).toBe(SESSIONS);
    expect(up.runtime.queue?.status().depth).toBe(0);
    const grownId = ids.find((id) => id.includes(':01a20b10-0000-7000-8000-000000000000:'));
    expect(grownId).toBeDefined();
    const text = (await call(server, 'GET', `/v1/default/banks/${project.bank}/documents/${encodeURIComponent(grownId ?? '')}`)).body.original_text as string;
    expect(text).toContain('docs/RELEASING.md');
  }, 120_000);

  it('a server answering: the documents reach it without a record in the retain queue', async () => {
    const project = await makeProject(server.url);
    const { view } = await importOnce(project);
    expect(view.state).toBe('done');
    expect(view.imported).toEqual({ total: SESSIONS, completed: SESSIONS });
    expect(existsSync(project.queueFile) ? readFileSync(project.queueFile, 'utf8') : '').not.toContain('retain.enqueued');
    await server.idle();
    expect(await documentIds(server, project.bank)).toHaveLength(SESSIONS);
  }, 120_000);
});
