/**
 * What `agent-memory import` says happened to each document: since the eighteenth session a
 * run sends documents straight to the server while it answers (never queued), and the table and
 * the summary said "queued" for them. The real CLI against the real embedded server: with the
 * server up the documents are reported sent and are on the server; with it away, queued.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';

const FIXTURES = path.resolve(__dirname, '../../../fixtures/pi/sessions');
const root = mkdtempSync(path.join(tmpdir(), 'am-cli-import-sent-'));
let server: TestServer;

/** A project of `bank` whose memory is at `baseUrl`, with three pi sessions of it to import. */
const workspace = (name: string, baseUrl: string, bank: string): { project: string; home: string; sessions: string } => {
  const project = path.join(root, name, 'project');
  const home = path.join(root, name, 'home');
  const sessions = path.join(root, name, 'sessions');
  for (const d of [path.join(project, '.pi'), path.join(home, '.pi', 'agent'), sessions]) mkdirSync(d, { recursive: true });
  writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl, trustedOrigins: [baseUrl] } }));
  writeFileSync(path.join(project, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: bank } }, scope: { projectId: bank }, setupComplete: true }));
  const lines = readFileSync(path.join(FIXTURES, 'pi073-linear.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  const head = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
  for (let i = 0; i < 3; i += 1) {
    const id = `01a20b10-0000-7000-8000-${String(i).padStart(12, '0')}`;
    writeFileSync(path.join(sessions, `s${i}.jsonl`), `${[JSON.stringify({ ...head, id, cwd: project }), ...lines.slice(1)].join('\n')}\n`);
  }
  return { project, home, sessions };
};

/** The value of the table's row `name`. */
const row = (stdout: string, name: string): string => new RegExp(`^${name}\\s+(.*)$`, 'm').exec(stdout)?.[1] ?? '';

beforeAll(async () => {
  server = await startTestServer({ persist: false });
});
afterAll(async () => {
  await server.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('agent-memory import says whether documents were sent or queued', () => {
  it('server up: sent to the server, none queued, and the server holds them; status says the same', async () => {
    const { project, home, sessions } = workspace('up', server.url, 'import-sent');
    const run = await runCli(['import', sessions], { cwd: project, env: { HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    const documents = Number(row(run.stdout, 'Documents'));
    expect(documents).toBeGreaterThan(0);
    expect(row(run.stdout, 'Sent to server')).toBe(String(documents));
    expect(row(run.stdout, 'Queued')).toBe('0');
    expect(row(run.stdout, 'State')).toBe(`done: ${documents} sent to the server, 0 queued, 0 skipped of ${documents} document(s); ${documents}/${documents} delivered`);
    const held = await call(server, 'GET', '/v1/default/banks/import-sent/documents?limit=100');
    expect((held.body.items as unknown[]).length).toBe(documents);
    const status = await runCli(['status'], { cwd: project, env: { HOME: home } });
    expect(status.stdout).toContain(`done: ${documents} sent to the server, 0 queued`);
  }, 120_000);

  it('server away: nothing sent, the documents queued, and the run paused', async () => {
    // Nothing listens on port 9.
    const { project, home, sessions } = workspace('down', 'http://127.0.0.1:9', 'import-queued');
    const run = await runCli(['import', sessions], { cwd: project, env: { HOME: home } });
    expect(run.code).toBe(1);
    expect(row(run.stdout, 'Sent to server')).toBe('0');
    expect(Number(row(run.stdout, 'Queued'))).toBeGreaterThan(0);
    expect(row(run.stdout, 'State')).toMatch(/^paused at /);
  }, 120_000);
});
