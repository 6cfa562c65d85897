/**
 * A real import's plan builds the documents it will queue and queues them as it goes, so each
 * session is read once and the server works while the plan reads on; documents it keeps for
 * the import (a resume's skips) are used only while their file is unchanged, else read again.
 * A server that stops answering pauses the import with the documents safe in the queue. Over
 * the real session reader (with reads counted), retain queue, checkpoint files and the
 * embedded server.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJsonlJournal } from '../../../src/adapters/queue/jsonlJournal.js';
import { readJsonFile, writeJsonFile } from '../../../src/adapters/fs/stateFiles.js';
import { piSessionFiles } from '../../../src/adapters/sessions/piSessionFiles.js';
import { startImportGate } from '../../../src/effects/import/importGate.js';
import { systemClock } from '../../../src/effects/ports/clock.js';
import type { SessionFilesPort } from '../../../src/effects/ports/sessionFiles.js';
import type { RetainQueue } from '../../../src/effects/retainDelivery/queue.js';
import { importView, type ImportView } from '../../../src/machines/import/selectors.js';
import { importOptionsFrom } from '../../../src/hosts/importer.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../../src/hosts/memoryRuntime.js';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { sessionText } from '../../../bench/lib/sessionData.js';

const FIXTURES = path.resolve(__dirname, '../../../fixtures/pi/sessions');
const B = '/v1/default/banks';

describe('import: the plan builds what the import queues', () => {
  let server: TestServer;
  const runtimes: MemoryRuntime[] = [];
  let counter = 0;

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    for (const runtime of runtimes) await runtime.close();
    await server.dispose();
  });

  interface Project {
    readonly cwd: string;
    readonly home: string;
    readonly sessions: string;
    readonly bank: string;
  }

  /** A project with two of pi's recorded sessions, and `copies` more of the linear one under other session ids. */
  const makeProject = async (copies = 0): Promise<Project> => {
    counter += 1;
    const root = await mkdtemp(path.join(tmpdir(), 'am-import-plan-'));
    const cwd = path.join(root, 'project');
    const home = path.join(root, 'home');
    const sessions = path.join(root, 'sessions');
    for (const d of [path.join(cwd, '.pi'), path.join(home, '.pi', 'agent'), sessions]) mkdirSync(d, { recursive: true });
    const bank = `plan-bank-${counter}`;
    writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
    writeFileSync(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, timeoutMs: 5000 }, banks: { project: { bankId: bank } }, scope: { projectId: `plan-${counter}` }, setupComplete: true }));
    const record = (fixture: string, as: string, id?: string): void => {
      const lines = readFileSync(path.join(FIXTURES, fixture), 'utf8').split('\n');
      const head = { ...(JSON.parse(lines[0] ?? '{}') as Record<string, unknown>), cwd, ...(id === undefined ? {} : { id }) };
      writeFileSync(path.join(sessions, as), [JSON.stringify(head), ...lines.slice(1)].join('\n'));
    };
    record('pi073-linear.jsonl', 'pi073-linear.jsonl');
    record('pi073-branched.jsonl', 'pi073-branched.jsonl');
    for (let i = 0; i < copies; i += 1) record('pi073-linear.jsonl', `copy-${String(i).padStart(2, '0')}.jsonl`, `copy-session-${i}`);
    return { cwd, home, sessions, bank };
  };

  /** One run over `project`; `wrap` wraps the real reader (and sees the run's queue). */
  const importInto = async (project: Project, wrap: (files: SessionFilesPort, queue: RetainQueue) => SessionFilesPort, dryRun = false, watch?: (view: ImportView) => void) => {
    const { cwd, home, sessions, bank } = project;
    const runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home } });
    runtimes.push(runtime);
    const queue = runtime.queue;
    if (queue === undefined) throw new Error('the retain queue did not open');
    const { config } = runtime.loaded;
    const journal = await openJsonlJournal({ path: config.importCheckpoint });
    const gate = await startImportGate({
      files: wrap(piSessionFiles, queue),
      queue,
      journal,
      clock: systemClock,
      project: { cwd, bankId: bank, tags: runtime.scope.projectRetainTags },
      manifest: { path: config.importManifest, read: () => readJsonFile(config.importManifest), write: (data) => writeJsonFile(config.importManifest, data) },
    });
    const unsubscribe = gate.subscribe((snapshot) => watch?.(importView(snapshot)));
    try {
      const view = await gate.run({ sources: [sessions], options: importOptionsFrom(config, bank, { dryRun }) });
      const plan = (dryRun ? gate.lastDryRun() : gate.gate.getSnapshot())?.context.run?.plan;
      return { view, plan, bank, sessions, queue, checkpoint: config.importCheckpoint };
    } finally {
      unsubscribe();
      await gate.stop();
      await journal.close();
    }
  };

  const importWith = async (wrap: (files: SessionFilesPort, queue: RetainQueue) => SessionFilesPort, dryRun = false) => importInto(await makeProject(), wrap, dryRun);

  /**
   * The documents the server holds once it has applied every retain it acknowledged: async
   * retains are applied in the background, and since the seventeenth session a sender's rhythm
   * keeps that work out of its gaps, so the last batches may still be waiting when an import ends.
   */
  const texts = async (bank: string): Promise<Map<string, string>> => {
    await waitUntil(async () => (await call(server, 'GET', `${B}/${bank}/stats`)).body.pending_operations === 0, 30_000, `bank ${bank}'s operations finished`);
    const list = await call(server, 'GET', `${B}/${bank}/documents?limit=1000`);
    const ids = (list.body.items as { id: string }[]).map((d) => d.id);
    const out = new Map<string, string>();
    for (const id of ids) out.set(id, (await call(server, 'GET', `${B}/${bank}/documents/${encodeURIComponent(id)}`)).body.original_text as string);
    return out;
  };

  /** The real reader, counting reads per file name. */
  const counting = (reads: Map<string, number>) => (files: SessionFilesPort): SessionFilesPort => ({
    ...files,
    read: (file, options) => {
      reads.set(path.basename(file), (reads.get(path.basename(file)) ?? 0) + 1);
      return files.read(file, options);
    },
  });

  it('reads each unchanged session once, and the server holds exactly the planned documents', async () => {
    const reads = new Map<string, number>();
    const { view, plan, bank } = await importWith(counting(reads));
    expect(view).toMatchObject({ state: 'done', documents: 2, queued: 2 });
    expect(Object.fromEntries(reads)).toEqual({ 'pi073-linear.jsonl': 1, 'pi073-branched.jsonl': 1 });
    const held = await texts(bank);
    expect([...held.keys()].sort()).toEqual(plan?.documents.map((d) => d.documentId).sort());
    // Secrets in the recorded sessions were redacted in the documents the plan kept.
    expect([...held.values()].join('\n')).not.toContain('sk-live-abcdefghijklmnop1234');
  });

  it('a dry run still reads each session once and keeps nothing', async () => {
    const reads = new Map<string, number>();
    const { view } = await importWith(counting(reads), true);
    expect(view).toMatchObject({ state: 'planned', documents: 2 });
    expect(Object.fromEntries(reads)).toEqual({ 'pi073-linear.jsonl': 1, 'pi073-branched.jsonl': 1 });
  });

  it('a rerun keeps what its plan skips; a session that grew before the import looks at it is read again and its new text imported', async () => {
    const project = await makeProject();
    await importInto(project, (files) => files);
    const reads = new Map<string, number>();
    const grown = 'PLAN-REUSE-MARKER the answer written after the plan';
    let appended = false;
    const { view } = await importInto(project, (files) => {
      const counted = counting(reads)(files);
      return {
        ...counted,
        // The import looks at the file's stamp before using the plan's documents: grow it first.
        stamp: async (file) => {
          if (!appended && path.basename(file) === 'pi073-linear.jsonl') {
            appended = true;
            const last = readFileSync(file, 'utf8').trim().split('\n').pop() ?? '{}';
            const parentId = (JSON.parse(last) as { id: string }).id;
            appendFileSync(file, `${JSON.stringify({ type: 'message', id: 'grown001', parentId, timestamp: '2026-11-24T01:00:00.000Z', message: { role: 'assistant', content: [{ type: 'text', text: grown }], timestamp: 1795481943000 } })}\n`);
          }
          return counted.stamp(file);
        },
      };
    });
    expect(appended).toBe(true);
    expect(view).toMatchObject({ state: 'done', queued: 1, skippedBy: { 'already-imported': 1 } });
    expect(Object.fromEntries(reads)).toEqual({ 'pi073-linear.jsonl': 2, 'pi073-branched.jsonl': 1 });
    expect([...(await texts(project.bank)).values()].join('\n')).toContain(grown);
  });

  it('queues the documents of the sessions it has planned while it reads the rest', async () => {
    const project = await makeProject(9);
    let seenBeforeLast: { depth: number; delivered: number } | undefined;
    const planning: number[] = [];
    const watch = (v: ImportView): void => {
      if (v.state === 'planning') planning.push(v.filesPlanned);
    };
    const { view, plan, checkpoint } = await importInto(project, (files, queue) => ({
      ...files,
      read: (file, options) => {
        // The last file in the plan's (sorted) order: eight sessions were planned before it.
        if (path.basename(file) === 'pi073-linear.jsonl') {
          const status = queue.status();
          seenBeforeLast = { depth: status.depth, delivered: status.sinceOpen?.delivered ?? 0 };
        }
        return files.read(file, options);
      },
    }), false, watch);
    expect(view).toMatchObject({ state: 'done', sessions: 11, queued: 11 });
    // The progress shown while it planned: 8 files read at the first queue write, all 11 at the last.
    expect(planning.filter((n) => n > 0)).toEqual([8, 11]);
    // One checkpoint record per queue write, made by the plan with its progress; the import
    // phase writes none for them (each record is an fsync).
    const records = readFileSync(checkpoint, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; payload: { planned?: unknown } });
    const types = records.map((r) => r.type);
    expect(types.filter((t) => t === 'import.documents.queued')).toHaveLength(2);
    expect(types.indexOf('import.plan.ready')).toBeGreaterThan(types.lastIndexOf('import.documents.queued'));
    expect(records.filter((r) => r.type === 'import.documents.queued').map((r) => r.payload.planned)).toEqual([{ files: 8, bytes: expect.any(Number) }, { files: 11, bytes: expect.any(Number) }]);
    expect(types).not.toContain('import.plan.progressed');
    expect((seenBeforeLast?.depth ?? 0) + (seenBeforeLast?.delivered ?? 0)).toBeGreaterThanOrEqual(8);
    expect([...(await texts(project.bank)).keys()].sort()).toEqual(plan?.documents.map((d) => d.documentId).sort());
  });

  it('builds on while requests are in flight: it never waits for the queue to empty, and never queues everything ahead of the server', async () => {
    const project = await makeProject();
    // About 16 MB of sessions, 6-7 MB of documents: well past the 4 MB at which the plan used
    // to wait until the queue was empty, with every request held 200 ms by the server.
    for (let i = 0; i < 40; i += 1) writeFileSync(path.join(project.sessions, `big-${String(i).padStart(2, '0')}.jsonl`), sessionText(i, project.cwd, 400_000));
    server.setFaults([{ method: 'POST', path: `${B}/${project.bank}/memories`, kind: 'latency', ms: 200 }]);
    // The queue's depth at each session read once the plan has queued something.
    const depths: number[] = [];
    let result;
    try {
      result = await importInto(project, (files, queue) => ({
        ...files,
        read: (file, options) => {
          const status = queue.status();
          if (status.depth + (status.sinceOpen?.delivered ?? 0) > 0) depths.push(status.depth);
          return files.read(file, options);
        },
      }));
    } finally {
      server.setFaults([]);
    }
    expect(result.view).toMatchObject({ state: 'done', sessions: 42 });
    expect(result.view.queued).toBe(result.view.documents);
    expect(depths.length).toBeGreaterThan(30);
    // A drain would have let a read find the queue empty; the plan only waited for the backlog.
    expect(Math.min(...depths)).toBeGreaterThan(0);
    // It did wait: never were all the documents queued ahead of the server.
    expect(Math.max(...depths)).toBeLessThan(result.view.documents);
    expect((await texts(project.bank)).size).toBe(result.view.documents);
  }, 60_000);

  it('a server that stops answering pauses the import with its documents queued; once it answers, the next run finishes, each document once', async () => {
    const project = await makeProject(3);
    server.setFaults([{ method: 'POST', path: `${B}/${project.bank}/memories`, kind: 'status', status: 503 }]);
    let first;
    try {
      first = await importInto(project, (files) => files);
    } finally {
      server.setFaults([]);
    }
    expect(first.view).toMatchObject({ state: 'paused', pause: { cause: 'serverDown' }, queued: 5 });
    expect(first.queue.status().depth).toBe(5);
    expect(await texts(project.bank)).toHaveProperty('size', 0);
    const second = await importInto(project, (files) => files);
    expect(second.view).toMatchObject({ state: 'done', queued: 0, skippedBy: { 'already-imported': 5 } });
    expect([...(await texts(project.bank)).keys()].sort()).toEqual(first.plan?.documents.map((d) => d.documentId).sort());
  });
});
