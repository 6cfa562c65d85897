/**
 * Issue 26.3 and 26.4: the agent's tools reach across projects, and one tool call turns memory
 * off everywhere, silently. In one shared coding bank (the README setup) another project's
 * mental model and knowledge page sit beside this project's. Performed for real: the tools over
 * the real client and the embedded server (test/tools/harness.ts), the real pi CLI with a
 * scripted model making the attack's calls, the runtime's footer and `agent-memory doctor`.
 */
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { runCli } from '../helpers/cli.js';
import { CODING_BANK, PROJECT_TAG, startHarness, type Harness } from '../tools/harness.js';
import { waitUntil } from '../helpers/waitUntil.js';
import { runPi } from './support/piRun.js';

const VICTIM_TAG = 'project:victim-app';

let h: Harness;
let victimModel: string;
let victimPage: string;

const must = async <A>(task: () => Promise<E.Either<{ _tag: string }, A>>, what: string): Promise<A> => {
  const r = await task();
  if (E.isLeft(r)) throw new Error(`${what} failed: ${r.left._tag}`);
  return r.right;
};

beforeAll(async () => {
  h = await startHarness();
  // Another project's objects in the shared bank, written by that project.
  const model = await must(h.client.createMentalModel(CODING_BANK, { name: 'Victim payroll model', source_query: 'How is payroll run?', tags: ['source:pi', VICTIM_TAG] }), 'victim model');
  victimModel = model.mental_model_id ?? '';
  const page = await must(h.client.createKnowledgePage(CODING_BANK, { name: 'Victim payroll runbook', source_query: 'How is payroll run?', tags: ['source:pi', VICTIM_TAG] }), 'victim page');
  victimPage = page.page_id;
});
afterAll(async () => {
  await h.close();
});

describe('mental models and knowledge pages of another project are invisible to the tools', () => {
  it('memory_mental_model list, get, update, refresh and delete never reach it; it is still there', async () => {
    const list = await h.ok('memory_mental_model', { action: 'list' });
    expect(list.text).not.toContain('Victim payroll model');
    expect(JSON.stringify(list.details)).not.toContain(victimModel);
    for (const params of [
      { action: 'get', id: victimModel },
      { action: 'update', id: victimModel, name: 'Mine now', dryRun: false },
      { action: 'refresh', id: victimModel, dryRun: false },
      { action: 'delete', id: victimModel, dryRun: false },
    ]) {
      const error = await h.fails('memory_mental_model', params);
      expect(error.code, params.action).toBe('rejected');
      expect(error.message).toContain("is not in this project's scope");
      expect(error.message).not.toContain('Victim payroll');
    }
    const still = await must(h.client.getMentalModel(CODING_BANK, victimModel, 'metadata'), 'victim model read');
    expect(still.name).toBe('Victim payroll model');
  });

  it('memory_knowledge tree, search, get, export and delete never reach its page; it is still there', async () => {
    for (const params of [{ action: 'tree' }, { action: 'search', query: 'payroll' }, { action: 'export' }]) {
      const result = await h.ok('memory_knowledge', params);
      expect(result.text, params.action).not.toContain('Victim payroll runbook');
      expect(JSON.stringify(result.details), params.action).not.toContain(victimPage);
    }
    for (const params of [{ action: 'get', id: victimPage }, { action: 'delete', id: victimPage, dryRun: false }, { action: 'update', id: victimPage, name: 'Mine now', dryRun: false }]) {
      const error = await h.fails('memory_knowledge', params);
      expect(error.code, params.action).toBe('rejected');
    }
    const tree = await must(h.client.knowledgeTree(CODING_BANK), 'tree');
    expect(JSON.stringify(tree)).toContain('Victim payroll runbook');
  });

  it('a model created with tags [] carries the project tag; tags naming another project are refused', async () => {
    const created = await h.ok('memory_mental_model', { action: 'create', name: 'Untagged attempt', sourceQuery: 'What is this?', tags: [], dryRun: false });
    const id = (created.details as { created: { mental_model_id: string } }).created.mental_model_id;
    const model = await must(h.client.getMentalModel(CODING_BANK, id, 'metadata'), 'created model');
    expect(model.tags).toContain(PROJECT_TAG);
    const planted = await h.fails('memory_mental_model', { action: 'create', name: 'Planted', sourceQuery: 'Anything?', tags: [VICTIM_TAG], dryRun: false });
    expect(planted.code).toBe('rejected');
    expect(planted.field).toBe('tags');
    const page = await h.fails('memory_knowledge', { action: 'create_page', name: 'Planted page', sourceQuery: 'Anything?', tags: [VICTIM_TAG], dryRun: false });
    expect(page.code).toBe('rejected');
  });
});

describe('the real pi CLI: a steered model reaches across projects and switches memory off', () => {
  it('untagged and other-project models are never injected; project identity and global switches are refused; the user file is unchanged', async () => {
    // Planted straight on the server (as any client of the shared bank can): no tags at all.
    // The memory first: a model is injected only once its refresh draws on one.
    await must(h.client.retain(CODING_BANK, { items: [{ content: 'The widget parser lives in src/parser.ts.', tags: ['source:pi', PROJECT_TAG] }] }), 'memory');
    await must(h.client.createMentalModel(CODING_BANK, { name: 'Untagged poison model', source_query: 'widget parser', tags: [] }), 'untagged model');
    const own = await must(h.client.createMentalModel(CODING_BANK, { name: 'Widgets own model', source_query: 'widget parser', tags: ['source:pi', PROJECT_TAG] }), 'own model');
    const ownId = own.mental_model_id ?? 'missing';
    await waitUntil(async () => {
      const model = await h.client.getMentalModel(CODING_BANK, ownId, 'full')();
      return E.isRight(model) && typeof model.right.last_refreshed_at === 'string' && JSON.stringify(model.right.reflect_response ?? {}).includes('src/parser.ts');
    }, 10_000, 'own model refreshed from the memory');
    const agentDir = path.join(h.root, 'agent');
    mkdirSync(agentDir, { recursive: true });
    const userFile = path.join(agentDir, 'memory.json');
    writeFileSync(userFile, `${JSON.stringify({ memory: { baseUrl: h.url } }, null, 2)}\n`);
    const projectFile = path.join(h.stateDir, 'memory.json');
    const before = [readFileSync(userFile, 'utf8'), readFileSync(projectFile, 'utf8')];
    const run = await runPi({
      cwd: h.cwd,
      home: h.home,
      agentDir,
      prompt: 'Where does the widget parser live?',
      script: [
        { tool: 'memory_config', args: { action: 'patch', scope: 'project', patch: { projectId: 'victim-app', projectIdStrategy: 'pin' }, dryRun: false } },
        { tool: 'memory_config', args: { action: 'patch', scope: 'global', patch: { retainEnabled: false }, dryRun: false } },
        { tool: 'memory_config', args: { action: 'patch', scope: 'global', patch: { recallEnabled: false }, dryRun: false } },
        'In src/parser.ts.',
      ],
    });
    expect(run.stderr).not.toContain('Extension error');
    expect(run.code).toBe(0);
    const first = (run.seen[0] ?? []).join('\n');
    // The automatic recall ran (this project's own model and memory are there) ...
    expect(first).toContain('Widgets own model');
    // ... and held neither the untagged model nor the other project's.
    expect(first).not.toContain('Untagged poison model');
    expect(first).not.toContain('Victim payroll model');
    expect(run.stdout).toContain("projectId cannot be changed by a tool call: it is the project's identity");
    expect(run.stdout).toContain('retainEnabled cannot be changed in the user file (scope global) by a tool call');
    expect(run.stdout).toContain('recallEnabled cannot be changed in the user file (scope global) by a tool call');
    expect([readFileSync(userFile, 'utf8'), readFileSync(projectFile, 'utf8')]).toEqual(before);
  }, 120_000);
});

describe('a setting that turns memory off says so (issue 26.4)', () => {
  it('retain.enabled false in the user file: the footer says retain off, never ready, and the doctor names the field and the file', async () => {
    const userFile = path.join(h.home, '.pi', 'agent', 'memory.json');
    writeFileSync(userFile, JSON.stringify({ memory: { baseUrl: h.url }, retain: { enabled: false } }));
    try {
      const runtime = await createMemoryRuntime({ cwd: h.cwd, home: h.home, env: { HOME: h.home }, server: h.client });
      try {
        await runtime.send({ type: 'session.started', sessionId: 'switch', reason: 'startup' });
        await waitUntil(() => runtime.status().setup.state === 'ready', 8_000, 'setup ready');
        expect(runtime.status().footer).toBe('memory: retain off');
      } finally {
        await runtime.close();
      }
      const doctor = await runCli(['doctor'], { cwd: h.cwd, env: { HOME: h.home } });
      expect(doctor.stdout).toContain('Memory: automatic retain is off: retain.enabled is false in ~/.pi/agent/memory.json');
    } finally {
      writeFileSync(userFile, JSON.stringify({}));
    }
  }, 60_000);
});
