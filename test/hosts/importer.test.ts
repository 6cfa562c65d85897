/**
 * The import gate end to end, with the real runtime, retain queue and checkpoint files, on the
 * embedded server (documents counted there): a dry run writes nothing; an import lands every
 * planned document once; a rerun skips them; a grown session replaces its document; kill -9 in
 * the middle then resume loses and doubles nothing; an import and a live session retain into
 * the same bank together.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { openImporter } from '../../src/hosts/importer.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';

const FIXTURES = path.resolve(__dirname, '../../fixtures/pi/sessions');
const B = '/v1/default/banks';

interface Project {
  readonly cwd: string;
  readonly home: string;
  readonly sessions: string;
  readonly bank: string;
}

let counter = 0;
const makeProject = async (server: TestServer): Promise<Project> => {
  const root = await mkdtemp(path.join(tmpdir(), 'am-import-'));
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  const sessions = path.join(root, 'sessions');
  for (const d of [path.join(cwd, '.pi'), home, sessions]) mkdirSync(d, { recursive: true });
  counter += 1;
  const bank = `import-bank-${counter}`;
  // The user file names the server: a project file alone may not pick where memory goes.
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
  writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, timeoutMs: 5000 }, banks: { project: { bankId: bank } }, scope: { projectId: `imp-${counter}` }, setupComplete: true }));
  return { cwd, home, sessions, bank };
};

/** A real pi fixture, recorded as this project's session (pi writes the cwd in the header). */
const copySession = (project: Project, fixture: string, as = fixture): string => {
  const lines = readFileSync(path.join(FIXTURES, fixture), 'utf8').split('\n');
  const head = JSON.parse(lines[0]!) as Record<string, unknown>;
  const file = path.join(project.sessions, as);
  writeFileSync(file, [JSON.stringify({ ...head, cwd: project.cwd }), ...lines.slice(1)].join('\n'));
  return file;
};

const documents = async (server: TestServer, bank: string): Promise<{ id: string }[]> => {
  const res = await call(server, 'GET', `${B}/${bank}/documents?limit=1000`);
  return res.status === 404 ? [] : (res.body.items as { id: string }[]);
};
const documentText = async (server: TestServer, bank: string, id: string): Promise<string> => (await call(server, 'GET', `${B}/${bank}/documents/${encodeURIComponent(id)}`)).body.original_text as string;

describe('import gate (runtime, queue, checkpoint, embedded server)', () => {
  let server: TestServer;
  const open: MemoryRuntime[] = [];
  const runtimeFor = async (project: Project): Promise<MemoryRuntime> => {
    const runtime = await createMemoryRuntime({ cwd: project.cwd, home: project.home, env: { HOME: project.home } });
    open.push(runtime);
    return runtime;
  };
  const importOnce = async (project: Project, dryRun = false) => {
    const runtime = await runtimeFor(project);
    const importer = await openImporter(runtime, { home: project.home, env: { HOME: project.home } });
    try {
      const view = await importer.gate.run({ sources: [project.sessions], options: importer.options({ dryRun }) });
      return { view, snapshot: dryRun ? importer.gate.lastDryRun() : importer.gate.gate.getSnapshot(), importer, runtime };
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

  it('a dry run plans and explains skips, and writes no checkpoint, manifest or document', async () => {
    const project = await makeProject(server);
    copySession(project, 'pi073-branched.jsonl');
    copySession(project, 'pi073-damaged.jsonl');
    writeFileSync(path.join(project.sessions, 'junk.jsonl'), Buffer.from([0, 1, 2, 3, 10, 0]));
    writeFileSync(path.join(project.sessions, 'elsewhere.jsonl'), readFileSync(path.join(FIXTURES, 'pi073-linear.jsonl')));
    const { view, snapshot, importer } = await importOnce(project, true);
    expect(view).toMatchObject({ state: 'planned', dryRun: true, sessions: 2, documents: 2 });
    expect(view.bytes).toBeGreaterThan(0);
    expect(view.tokens).toBeGreaterThan(0);
    const skipped = snapshot?.context.run?.plan?.skipped.map((s) => [path.basename(s.path), s.reason]);
    expect(skipped).toEqual(expect.arrayContaining([['junk.jsonl', 'not-a-session'], ['elsewhere.jsonl', 'other-project']]));
    expect(snapshot?.context.run?.plan?.malformed.map((m) => [path.basename(m.path), m.line])).toEqual([['pi073-damaged.jsonl', 4]]);
    expect(existsSync(importer.checkpointPath)).toBe(false);
    expect(existsSync(importer.manifestPath)).toBe(false);
    expect(await documents(server, project.bank)).toHaveLength(0);
  });

  it('imports every planned document once, redacted; a rerun skips them all; status reports it', async () => {
    const project = await makeProject(server);
    copySession(project, 'pi073-branched.jsonl');
    copySession(project, 'pi073-damaged.jsonl');
    const first = await importOnce(project);
    expect(first.view).toMatchObject({ state: 'done', documents: 2, skipped: 0, imported: { total: 2, completed: 2 } });
    // Sent straight while the server answers, else queued: each document one way.
    expect(first.view.sent + first.view.queued).toBe(2);
    const docs = await documents(server, project.bank);
    expect(docs.map((d) => d.id).sort()).toEqual(first.snapshot?.context.run?.plan?.documents.map((d) => d.documentId).sort());
    const text = (await Promise.all(docs.map((d) => documentText(server, project.bank, d.id)))).join('\n');
    expect(text).not.toContain('sk-live-abcdefghijklmnop1234');
    expect(text).toContain('permission denied');
    const manifest = JSON.parse(readFileSync(first.importer.manifestPath, 'utf8')) as { sessions: Record<string, { documents: Record<string, unknown> }> };
    expect(Object.keys(manifest.sessions)).toHaveLength(2);

    const second = await importOnce(project);
    expect(second.view).toMatchObject({ state: 'done', queued: 0, sent: 0, skipped: 2, skippedBy: { 'already-imported': 2 } });
    expect(await documents(server, project.bank)).toHaveLength(2);

    const tools = await second.runtime.toolContext();
    expect(tools.status?.().import).toMatchObject({ state: 'done', counts: { imported: 2, delivered: 2 } });
  });

  it('replaces a document after its session grew, never appending a duplicate', async () => {
    const project = await makeProject(server);
    const file = copySession(project, 'pi073-linear.jsonl');
    await importOnce(project);
    const [doc] = await documents(server, project.bank);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const last = JSON.parse(lines[lines.length - 1]!) as { id: string };
    appendFileSync(file, `${JSON.stringify({ type: 'message', id: 'feed0001', parentId: last.id, timestamp: '2026-11-24T02:00:00.000Z', message: { role: 'user', content: 'Lint with pnpm lint.', timestamp: 5 } })}\n`);
    const again = await importOnce(project);
    expect(again.view).toMatchObject({ documents: 1 });
    expect(again.view.sent + again.view.queued).toBe(1);
    const after = await documents(server, project.bank);
    expect(after.map((d) => d.id)).toEqual([doc!.id]);
    const text = await documentText(server, project.bank, doc!.id);
    expect(text).toContain('Lint with pnpm lint.');
    expect(text.split('How do we build this monorepo?').length - 1).toBe(1);
  });

  it('imports while a live session retains into the same bank: both arrive', async () => {
    const project = await makeProject(server);
    copySession(project, 'pi073-branched.jsonl');
    const live = await runtimeFor(project);
    const end = Date.now() + 5000;
    while (live.status().setup.state !== 'ready' && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await live.send({ type: 'session.started', sessionId: 'live-1', sessionFile: path.join(project.sessions, 'live.jsonl'), reason: 'startup' });
    const importing = importOnce(project);
    const turns = [0, 1, 2].map((i) =>
      live.retainTurn([
        { role: 'user', content: [{ type: 'text', text: `live question ${i}` }], timestamp: 10 + i },
        { role: 'assistant', content: [{ type: 'text', text: `live answer ${i}` }], timestamp: 11 + i, model: 'm', stopReason: 'stop' },
      ]),
    );
    const { view, runtime: importRuntime } = await importing;
    expect((await Promise.all(turns.map((t) => t.settled))).map((r) => r.outcome)).toContain('queued');
    expect(view.state).toBe('done');
    // Either runtime may hold the delivery lease: flush both until both documents are there.
    const deliveredBy = Date.now() + 15_000;
    let ids: string[] = [];
    while (Date.now() < deliveredBy) {
      await Promise.all([live.queue?.flush({ deadline: Date.now() + 2000, force: true }), importRuntime.queue?.flush({ deadline: Date.now() + 2000, force: true })]);
      ids = (await documents(server, project.bank)).map((d) => d.id);
      // Both documents, whichever runtime delivers which: stopping at the first raced the other.
      if (ids.some((id) => id.startsWith('pi-session:')) && ids.some((id) => id.startsWith('pi-import:'))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(ids.filter((id) => id.startsWith('pi-import:'))).toHaveLength(1);
    expect(ids.filter((id) => id.startsWith('pi-session:'))).toHaveLength(1);
  }, 60_000);

  it('kill -9 in the middle of an import, then resume: every document once, none missing', async () => {
    const project = await makeProject(server);
    const template = readFileSync(path.join(FIXTURES, 'pi073-linear.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
    const head = JSON.parse(template[0]!) as Record<string, unknown>;
    const SESSIONS = 150;
    for (let i = 0; i < SESSIONS; i += 1) {
      const id = `01a20b10-0000-7000-8000-${String(i).padStart(12, '0')}`;
      writeFileSync(path.join(project.sessions, `s${String(i).padStart(4, '0')}.jsonl`), [JSON.stringify({ ...head, id, cwd: project.cwd }), ...template.slice(1)].join('\n') + '\n');
    }
    const child = spawn(process.execPath, ['--import', pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href, path.resolve('test/helpers/importChild.ts')], {
      env: { PATH: process.env['PATH'] ?? '', HOME: project.home, CWD: project.cwd, SOURCES: project.sessions },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killedAt = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const counts = [...out.matchAll(/queued (\d+)/g)].map((m) => Number(m[1]));
        const queued = counts[counts.length - 1] ?? 0;
        if (queued >= 20 && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve(queued);
        }
      });
      child.on('exit', (code) => (code === 0 ? reject(new Error(`child finished before it could be killed\n${out}`)) : undefined));
      child.on('error', reject);
      setTimeout(() => reject(new Error(`child never queued 20 documents: ${stderr}`)), 60_000);
    });
    await new Promise((resolve) => child.on('close', resolve));
    expect(killedAt).toBeLessThan(SESSIONS);

    const resumed = await importOnce(project);
    expect(resumed.view.state).toBe('done');
    expect(resumed.view.documents).toBe(SESSIONS);
    expect(resumed.view.skippedBy['already-imported'] ?? 0).toBeGreaterThanOrEqual(killedAt);
    expect(resumed.view.sent + resumed.view.queued + (resumed.view.skippedBy['already-imported'] ?? 0)).toBe(SESSIONS);
    await resumed.runtime.queue?.flush({ deadline: Date.now() + 10_000, force: true });
    const docs = await documents(server, project.bank);
    expect(docs).toHaveLength(SESSIONS);
    expect(new Set(docs.map((d) => d.id)).size).toBe(SESSIONS);
    const sample = await documentText(server, project.bank, docs[0]!.id);
    expect(sample.split('How do we build this monorepo?').length - 1).toBe(1);
  }, 120_000);
});
