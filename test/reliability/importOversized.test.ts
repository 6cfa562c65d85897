/**
 * Attack: an import with a document over the server's body limit (issue 26, item 9). The job was
 * dead-lettered while `status` reported the import done (every document "completed"). The real
 * importer, queue and embedded server answering the document with its 413: the import ends
 * `failed` (not paused: the server is up), naming the refused document, the server's 413 and
 * the command that lists dead letters; the refused document is not counted as imported.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRuntime, type MemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { openImporter } from '../../src/hosts/importer.js';
import { call, startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { runCli, runShell } from '../helpers/cli.js';
import { importWorkspace } from '../helpers/importWorkspace.js';

const session = (cwd: string, id: string, text: string): string =>
  [
    JSON.stringify({ type: 'session', version: 3, id, timestamp: '2026-01-01T00:00:00.000Z', cwd }),
    JSON.stringify({ type: 'message', id: 'e1', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1 } }),
    JSON.stringify({ type: 'message', id: 'e2', parentId: 'e1', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'text', text: `noted: ${id}` }], timestamp: 2 } }),
  ].join('\n') + '\n';

describe('a document over the server body limit is reported as not imported (real importer and server)', () => {
  let server: TestServer;
  let runtime: MemoryRuntime | undefined;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
  });
  afterAll(async () => {
    await runtime?.close();
    await server.dispose();
  });

  it('a document the server answers 413 for: the run fails naming the 413, the document is not counted as imported', async () => {
    const { cwd, home, sessions } = await importWorkspace('am-import-413-', { serverUrl: server.url, bankId: 'import-413', projectId: 'import-413' });
    writeFileSync(path.join(sessions, 'huge.jsonl'), session(cwd, 'huge', 'the huge session deploys with rollup'));
    // The server's own answer to a body over its limit, for every retain of this bank (the
    // import's own request, then the queue's, which it hands the document to).
    server.setFaults([{ method: 'POST', path: '/v1/default/banks/import-413/memories', kind: 'status', status: 413 }]);

    runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home } });
    const importer = await openImporter(runtime, { home, env: { HOME: home } });
    try {
      const view = await importer.gate.run({ sources: [sessions], options: importer.options({ dryRun: false }) });
      expect(view.state, JSON.stringify(view.pause)).toBe('failed');
      expect(view.pause).toBeNull();
      expect(view.error).toMatch(/refused 1 document\(s\), which were not imported \(first: pi-import:huge:e1: .*413/);
      // Names what lists them where the person is: opened as pi opens it, pi's command.
      expect(view.error).toContain("they are in the retain queue's dead letters (/memory dead-letters lists them)");
      expect(view.imported).toEqual({ total: 1, completed: 0 });
    } finally {
      await importer.close();
    }
    const docs = (await call(server, 'GET', '/v1/default/banks/import-413/documents?limit=100')).body;
    expect(JSON.stringify(docs)).not.toContain('pi-import:huge:e1');
  }, 120_000);

  it('the CLI names its own command line that lists them, and pasted as printed it does', async () => {
    const { cwd, home, sessions } = await importWorkspace('am-import-413-cli-', { serverUrl: server.url, bankId: 'import-413-cli', projectId: 'import-413-cli' });
    writeFileSync(path.join(sessions, 'huge.jsonl'), session(cwd, 'huge', 'the huge session deploys with rollup'));
    server.setFaults([{ method: 'POST', path: '/v1/default/banks/import-413-cli/memories', kind: 'status', status: 413 }]);
    const env = { HOME: home };
    const run = await runCli(['import', sessions], { cwd, env });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code, output).not.toBe(0);
    expect(output).not.toContain('from this command line');
    const line = /dead letters \((node .+ dead-letters --cwd \S+) lists them\)/.exec(output)?.[1];
    expect(line, output).toBeDefined();
    // From another directory, with nothing but PATH and HOME: the refused document's job and its 413.
    const listed = await runShell(line ?? '', { cwd: tmpdir(), env: { PATH: process.env['PATH'] ?? '', ...env } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('1 dead letter(s)');
    expect(listed.stdout).toContain('bank import-413-cli  HTTP 413');
  }, 120_000);
});
