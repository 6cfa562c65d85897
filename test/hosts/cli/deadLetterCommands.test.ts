/**
 * `agent-memory dead-letters` names the whole command line that requeues each dead letter, the
 * one that drops it and the one that delivers: this CLI's own (`selfCommand.ts`; `agent-memory`
 * is on no PATH from a clone), pasted as printed into a shell elsewhere. A retain the embedded
 * server refuses (422) is the dead letter.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BankId, DocumentId } from '../../../src/codecs/codecs.js';
import { createMemoryRuntime } from '../../../src/hosts/memoryRuntime.js';
import { runCli, runShell } from '../../helpers/cli.js';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';

const root = mkdtempSync(path.join(tmpdir(), 'am-cli-dead-'));
const project = path.join(root, 'project');
const home = path.join(root, 'home');
const BANK = 'dead-bank';
let server: TestServer;

/** A job the server refuses once (422), left as a dead letter by a runtime opened as a session opens it. */
const deadLetter = async (n: number): Promise<void> => {
  server.setFaults([{ kind: 'status', status: 422, detail: 'item rejected by the test server', method: 'POST', path: '/v1/default/banks/*/memories', times: 1 }]);
  const runtime = await createMemoryRuntime({ cwd: project, home, env: { HOME: home } });
  try {
    await runtime.queue!.enqueue([{ bankId: BANK as BankId, documentId: `dead-${n}` as DocumentId, updateMode: 'replace', item: { content: `The release checklist has ${n} steps.` } }]);
    await runtime.queue!.flush({ deadline: Date.now() + 5_000, force: true });
    expect(runtime.queue!.status().deadLetters).toBe(1);
  } finally {
    await runtime.close();
    server.setFaults([]);
  }
};

/** A printed command line, pasted into a shell in another directory with nothing but PATH and HOME. */
const paste = (line: string) => runShell(line, { cwd: tmpdir(), env: { PATH: process.env['PATH'] ?? '', HOME: home } });

beforeAll(async () => {
  server = await startTestServer({ persist: false });
  mkdirSync(path.join(project, '.pi'), { recursive: true });
  mkdirSync(path.join(home, '.pi', 'agent'), { recursive: true });
  writeFileSync(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
  writeFileSync(path.join(project, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: BANK } }, scope: { projectId: BANK }, setupComplete: true }));
});
afterAll(async () => {
  await server.dispose();
  rmSync(root, { recursive: true, force: true });
});

describe('agent-memory dead-letters prints command lines that run', () => {
  it('requeue and flush as printed deliver the letter; drop as printed removes the next one', async () => {
    await deadLetter(7);
    // The doctor and status name the listing where the person is, as a line that runs.
    for (const command of ['doctor', 'status']) {
      const shown = await runCli([command], { cwd: project, env: { HOME: home } });
      const named = /^Queue: 1 dead letter\(s\).*: (node .+)$/m.exec(shown.stdout)?.[1] ?? '';
      expect(named, shown.stdout).toMatch(/^node .* dead-letters --cwd /);
      const pasted = await paste(named);
      expect(pasted.stdout, command).toContain('1 dead letter(s) (the server refused them for good)');
    }
    const listed = await runCli(['dead-letters'], { cwd: project, env: { HOME: home } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('1 dead letter(s)');
    const requeue = /^ +requeue: (.+)$/m.exec(listed.stdout)?.[1] ?? '';
    const flush = /^and deliver now with\n +(.+)$/m.exec(listed.stdout)?.[1] ?? '';
    expect(requeue).toMatch(/^node .* dead-letters requeue [0-9a-f-]{36} --cwd /);
    expect(flush).toMatch(/^node .* flush --cwd /);

    const requeued = await paste(requeue);
    expect(requeued.code, requeued.stderr).toBe(0);
    expect(requeued.stdout).toContain('Requeued 1 dead letter(s)');
    // The requeue's own message names the flush as printed in the list.
    expect(requeued.stdout).toContain(`to send them now: ${flush}`);
    const flushed = await paste(flush);
    expect(flushed.code, flushed.stderr).toBe(0);
    const held = await call(server, 'GET', `/v1/default/banks/${BANK}/documents?limit=10`);
    expect(JSON.stringify(held.body)).toContain('dead-7');

    await deadLetter(8);
    const again = await runCli(['dead-letters', '--cwd', project], { cwd: root, env: { HOME: home } });
    const drop = /^ +drop: +(.+)$/m.exec(again.stdout)?.[1] ?? '';
    expect(drop).toMatch(/^node .* dead-letters drop [0-9a-f-]{36} --cwd /);
    const dropped = await paste(drop);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toContain('Dropped 1 dead letter(s)');
    expect((await runCli(['dead-letters'], { cwd: project, env: { HOME: home } })).stdout).toContain('No dead letters.');
    // Every requeue shown for all at once runs too (nothing left to requeue: 0).
    const all = /^Fix the cause, then requeue \(every one at once:\n +(.+)$/m.exec(listed.stdout)?.[1] ?? '';
    expect(all).toMatch(/ dead-letters requeue all --cwd /);
    const none = await paste(all);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('Requeued 0 dead letter(s)');
  }, 120_000);
});
