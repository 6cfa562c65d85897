/**
 * Claude Code and Codex sessions read as pi-shaped entries and imported like pi's: the
 * readers on the fixtures written from the formats' public descriptions, then
 * `agent-memory import --all` finding them under HOME and landing them on the embedded server.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { piSessionFiles } from '../../../src/adapters/sessions/piSessionFiles.js';
import { claudeCodeSessionDirs, codexSessionDir } from '../../../src/adapters/sessions/agentSessionDirs.js';
import { buildSessionDocuments, type ModeOptions } from '../../../src/effects/import/documents.js';
import type { SessionRead } from '../../../src/effects/ports/sessionFiles.js';
import { runCli } from '../../helpers/cli.js';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';

const FIXTURES = path.resolve(__dirname, '../../../fixtures/import');
const root = mkdtempSync(path.join(tmpdir(), 'am-other-agents-'));
const project = path.join(root, 'my.project');
const home = path.join(root, 'home');
const claudeFile = path.join(claudeCodeSessionDirs(project, {}, home)[1]!, 'cc-0001.jsonl');
const codexDir = path.join(codexSessionDir({}, home), '2026', '05', '03');

const placed = (fixture: string, to: string): string => {
  mkdirSync(path.dirname(to), { recursive: true });
  writeFileSync(to, readFileSync(path.join(FIXTURES, fixture), 'utf8').replaceAll('__CWD__', project));
  return to;
};

const read = async (file: string): Promise<SessionRead> => {
  const result = await piSessionFiles.read(file, { cwd: project, maxBytes: 1e8 });
  if (E.isLeft(result)) throw new Error(`skipped: ${result.left.reason} ${result.left.detail}`);
  return result.right;
};

const curated: ModeOptions = { mode: 'curated', qualityProfile: 'compatible', branches: 'current-only', toolResults: 'errors-only', toolSummaryMaxChars: 500 } as ModeOptions;

beforeAll(() => {
  mkdirSync(project, { recursive: true });
  placed('claude-code/session.jsonl', claudeFile);
  placed('codex/rollout-2026-05-03T10-00-00-cx-0001.jsonl', path.join(codexDir, 'rollout-2026-05-03T10-00-00-cx-0001.jsonl'));
  placed('codex/rollout-2026-05-04T10-00-00-cx-0002.jsonl', path.join(codexDir, 'rollout-2026-05-04T10-00-00-cx-0002.jsonl'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('Claude Code sessions', () => {
  it('become one pi-shaped branch: tool results after their call, sub-agent and meta lines left out, a bad line reported', async () => {
    const session = await read(claudeFile);
    expect(session).toMatchObject({ host: 'claude-code', sessionId: 'cc-0001', cwd: project, timestamp: '2026-05-02T09:00:00.000Z' });
    expect(session.damaged).toEqual([{ line: 11, reason: expect.stringContaining('not JSON') }]);
    const roles = session.entries.map((e) => (e.message as { role: string }).role);
    expect(roles).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'toolResult', 'assistant', 'user', 'assistant']);
    const results = session.entries.filter((e) => (e.message as { role: string }).role === 'toolResult').map((e) => e.message);
    expect(results).toEqual([
      expect.objectContaining({ toolName: 'read', toolCallId: 'toolu_1', isError: false }),
      expect.objectContaining({ toolName: 'bash', toolCallId: 'toolu_2', isError: true }),
    ]);
    // The compaction boundary and the meta line sit in the parent chain: the walk from the
    // last entry still reaches the first.
    const byId = new Map(session.entries.map((e) => [e.id, e]));
    let steps = 0;
    for (let e = session.entries.at(-1); e !== undefined; e = e.parentId === null ? undefined : byId.get(e.parentId)) steps += 1;
    expect(steps).toBe(session.entries.length);
    const text = JSON.stringify(session.entries);
    expect(text).not.toContain('SUBAGENT PROMPT');
    expect(text).not.toContain('META NOTE');
    // Image data is never held, only its type and size.
    expect(text).not.toContain('iVBORw0KGgo');
    expect(text).toContain('"mimeType":"image/png"');
  });

  it('curated documents keep the decisions and the failing command, drop file contents and thinking', async () => {
    const { documents } = buildSessionDocuments(await read(claudeFile), curated);
    expect(documents.map((d) => d.documentId)).toEqual(['claude-code-import:cc-0001:u1']);
    const content = documents[0]!.content;
    expect(content).toContain('Which bundler should this library use?');
    expect(content).toContain('keep rollup as the bundler');
    expect(content).toContain('we test with vitest, never jest');
    expect(content).toContain("Cannot find module 'rollup-plugin-esbuild'");
    expect(content).not.toContain('devDependencies');
    expect(content).not.toContain('Look at the package first');
  });
});

describe('Codex rollouts', () => {
  it('become a linear pi-shaped session without boilerplate, reasoning or repeated event lines', async () => {
    const session = await read(path.join(codexDir, 'rollout-2026-05-03T10-00-00-cx-0001.jsonl'));
    expect(session).toMatchObject({ host: 'codex', sessionId: 'cx-0001', cwd: project });
    expect(session.damaged).toEqual([]);
    const messages = session.entries.map((e) => e.message as { role: string; toolName?: string; isError?: boolean });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'toolResult', 'assistant']);
    expect(messages.filter((m) => m.role === 'toolResult').map((m) => [m.toolName, m.isError])).toEqual([
      ['bash', false],
      ['bash', true],
    ]);
    const text = JSON.stringify(session.entries);
    expect(text).not.toContain('environment_context');
    expect(text).not.toContain('permissions instructions');
    expect(session.entries.map((e) => e.parentId)).toEqual([null, 'codex-0', 'codex-1', 'codex-2', 'codex-3', 'codex-4']);
  });

  it("another project's rollout is skipped at its first line, naming where it was recorded", async () => {
    const result = await piSessionFiles.read(path.join(codexDir, 'rollout-2026-05-04T10-00-00-cx-0002.jsonl'), { cwd: project, maxBytes: 1e8 });
    expect(result).toEqual(E.left(expect.objectContaining({ reason: 'other-project', detail: 'recorded in /somewhere/else/entirely' })));
  });

  it('a file no agent wrote is not a session', async () => {
    const junk = path.join(root, 'junk.jsonl');
    writeFileSync(junk, '{"hello":"world"}\n');
    expect(await piSessionFiles.read(junk, { cwd: project, maxBytes: 1e8 })).toEqual(E.left(expect.objectContaining({ reason: 'not-a-session' })));
  });
});

describe('agent-memory import --all with Claude Code and Codex history', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    mkdirSync(path.join(project, '.pi'), { recursive: true });
    mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
    writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
    writeFileSync(path.join(project, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'other-agents' } }, scope: { projectId: 'other-agents' }, setupComplete: true }));
  });
  afterAll(async () => server.dispose());

  it("imports this project's sessions of both agents once, and a rerun adds nothing", async () => {
    const first = await runCli(['import', '--all', '--json'], { cwd: project, env: { HOME: home } });
    expect(first.code, first.stderr).toBe(0);
    const view = JSON.parse(first.stdout) as { state: string; sessions: number; documents: number; scanSkipped: unknown[]; skippedSources: { reason: string }[] };
    expect(view).toMatchObject({ state: 'done', sessions: 2, documents: 2 });
    const docs = (await call(server, 'GET', '/v1/default/banks/other-agents/documents?limit=100')).body.items as { id: string }[];
    expect(docs.map((d) => d.id).sort()).toEqual(['claude-code-import:cc-0001:u1', 'codex-import:cx-0001:codex-0']);
    const codex = (await call(server, 'GET', `/v1/default/banks/other-agents/documents/${encodeURIComponent('codex-import:cx-0001:codex-0')}`)).body.original_text as string;
    expect(codex).toContain('Staging deploys to Fly.io');
    expect(codex).toContain('no access token available');
    const recalled = await call(server, 'POST', '/v1/default/banks/other-agents/memories/recall', { query: 'which test runner do we use', max_tokens: 2048 });
    expect(JSON.stringify(recalled.body)).toContain('vitest');

    const again = await runCli(['import', '--all', '--json'], { cwd: project, env: { HOME: home } });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ state: 'done', queued: 0 });
    const after = (await call(server, 'GET', '/v1/default/banks/other-agents/documents?limit=100')).body.items as unknown[];
    expect(after).toHaveLength(2);
  });
});
