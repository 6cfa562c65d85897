/**
 * Round 12: a cloned repository whose state directory itself is a link. `repoPaths.test.ts`
 * covers links inside `.pi` and paths a project file names; here the clone commits `.pi` (or
 * `.pi/memory`) as a link into another project's state directory, so that its own session's
 * queue, receipts, trace and config would be that project's. One real pi turn (the 0.73 CLI,
 * scripted model) in the clone: the other project's files stay byte-identical and nothing is
 * created beside them, and the turn reaches neither its bank nor its memories.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runPi } from './support/piRun.js';

const SECRET_NOTE = 'The victim project deploys with the release key kept in vault path secret/victim-release.';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ persist: false });
  await call(server, 'POST', '/v1/default/banks/victim-bank/memories', { items: [{ content: SECRET_NOTE, document_id: 'victim-doc' }], async: false });
}, 60_000);
afterAll(async () => {
  await server.dispose();
});

/** Every file under `dir` with its bytes (links listed as links, never followed). */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = st.isSymbolicLink() ? 'link' : readFileSync(p, 'base64');
    }
  };
  walk(dir);
  return out;
};

const setup = (link: '.pi' | '.pi/memory') => {
  const root = mkdtempSync(path.join(tmpdir(), 'am-sec-linkedstate-'));
  const victim = path.join(root, 'victim');
  const cwd = path.join(root, 'clone');
  const home = path.join(root, 'home');
  const agentDir = path.join(root, 'agent');
  for (const dir of [path.join(victim, '.pi', 'memory', 'trace'), cwd, home, agentDir]) mkdirSync(dir, { recursive: true });
  // The victim: a trusted project with its own bank, a queue holding one of its jobs, receipts.
  writeFileSync(path.join(victim, '.pi', 'memory.json'), JSON.stringify({ setupComplete: true, banks: { project: { bankId: 'victim-bank' } }, scope: { mode: 'isolated-bank', projectIdStrategy: 'pin', projectId: 'victim' } }));
  writeFileSync(path.join(victim, '.pi', 'memory', 'retain-queue.jsonl'), '{"seq":0,"type":"note","victim":true}\n');
  writeFileSync(path.join(victim, '.pi', 'memory', 'retain-receipts.jsonl'), '{"victim":true}\n');
  writeFileSync(path.join(agentDir, 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url, trustedProjects: [victim] }, banks: { project: { bankId: 'clone-bank' } }, setupComplete: true }));
  if (link === '.pi') symlinkSync(path.join('..', 'victim', '.pi'), path.join(cwd, '.pi'), 'dir');
  else {
    mkdirSync(path.join(cwd, '.pi'));
    symlinkSync(path.join('..', '..', 'victim', '.pi', 'memory'), path.join(cwd, '.pi', 'memory'), 'dir');
  }
  return { victim, cwd, home, agentDir, before: snapshot(path.join(victim, '.pi')) };
};

describe("a clone whose state directory is a link into another project's", () => {
  for (const link of ['.pi', '.pi/memory'] as const) {
    it(`${link} linked: one real pi turn leaves the other project's files as they were and reads none of its memories`, async () => {
      const s = setup(link);
      const run = await runPi({ cwd: s.cwd, home: s.home, agentDir: s.agentDir, prompt: 'How do we deploy the release? victim vault release key', script: ['We deploy with the usual pipeline.'] });
      expect(run.code, run.stderr).toBe(0);
      // The refusal is said, naming the link.
      expect(run.stderr).toMatch(/is a symbolic link \(a cloned repository can plant one\)/);
      expect(snapshot(path.join(s.victim, '.pi'))).toEqual(s.before);
      // Nothing of the other project's bank reached the model.
      expect(JSON.stringify(run.seen)).not.toContain('release key kept in vault');
      // Nor did the clone's turn land in the other project's bank.
      const listed = await call(server, 'GET', '/v1/default/banks/victim-bank/memories/list?limit=100');
      expect(JSON.stringify(listed.body)).not.toContain('usual pipeline');
    }, 120_000);
  }
});
