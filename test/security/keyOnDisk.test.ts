/**
 * Attack: the API key itself reaches disk or the terminal (issue 12, item 1).
 *
 * A failed tool call prints the key (`printenv HINDSIGHT_API_KEY`, retained under the
 * errors-only policy), a user pastes it into a prompt, and a server's 500 detail echoes it
 * without "Bearer ". The key has no recognisable shape, so only redaction by value catches it.
 * Real parts: config loader, createMemoryRuntime with traces and the last-recall sidecar, the
 * retain queue and hand-off log on disk, the embedded server behind a loopback proxy that
 * echoes the key, and the `agent-memory` CLI in a child process.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { runCli } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/embeddedServer.js';
import { startFaultServer, type FaultServer } from '../helpers/faultServer.js';
import { waitUntil } from '../helpers/waitUntil.js';
import { assistant, failedTool, filesUnder, leaks, makeDirs, user } from './support.js';

// No provider prefix, no `key=`: nothing but its value identifies it.
const KEY = `Zq${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x')}`;

describe('the API key never reaches disk or output', () => {
  let upstream: TestServer;
  let proxy: FaultServer;
  beforeAll(async () => {
    upstream = await startTestServer({ persist: false });
    proxy = await startFaultServer({ target: upstream.url });
    // A careless server: retain and recall fail with a 500 whose detail carries the key.
    proxy.setFallback((req) =>
      req.method === 'POST' && (req.path.endsWith('/memories') || req.path.endsWith('/recall'))
        ? { kind: 'json', status: 500, body: { detail: `storage failed for credential ${KEY} (see logs)` } }
        : { kind: 'proxy' },
    );
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.dispose();
  });

  it('hides it in the hand-off log, queue journal, traces, last-recall.json, failure reasons, status and CLI output', async () => {
    const dirs = makeDirs(
      { memory: { baseUrl: proxy.url, apiKeyEnv: 'HINDSIGHT_API_KEY', timeoutMs: 3_000 }, recall: { storeLastRecall: true, storeLastRecallFailures: true } },
      { banks: { project: { bankId: 'sec-bank' } }, scope: { projectId: 'sec/key' } },
    );
    const env = { HOME: dirs.home, HINDSIGHT_API_KEY: KEY };
    const runtime = await createMemoryRuntime({ cwd: dirs.cwd, home: dirs.home, env, trace: true, shutdownFlushMs: 300 });
    try {
      await runtime.send({ type: 'session.started', sessionId: 'canary', reason: 'startup' });
      await waitUntil(() => runtime.status().setup.state === 'ready', 8_000, 'setup ready');
      // The key was sent as the bearer token: the server saw it, as it should.
      expect(proxy.requests.some((r) => r.headers['authorization'] === `Bearer ${KEY}`)).toBe(true);

      const recall = await runtime.recallFor([user(`why does the key ${KEY} not work?`, 1)]);
      expect(recall.outcome).not.toBe('recalled');
      const turn = runtime.retainTurn([
        user(`my key is ${KEY}, check it`, 1),
        failedTool(`$ printenv HINDSIGHT_API_KEY\n${KEY}\nerror: exit status 1`, 2),
        assistant(`The key ${KEY} is rejected.`, 3),
      ]);
      expect((await turn.settled).outcome).toBe('queued');
      await runtime.queue?.flush({ deadline: Date.now() + 3_000, force: true });
      await waitUntil(() => filesUnder(path.join(dirs.cwd, '.pi', 'memory')).some((f) => f.file.endsWith('last-recall.json')), 5_000, 'last-recall.json');
      const status = runtime.status();
      expect(JSON.stringify(status)).not.toContain(KEY);
      expect(runtime.queue?.status().lastError ?? '').toContain('[REDACTED]');
    } finally {
      await runtime.close();
    }
    const memoryDir = path.join(dirs.cwd, '.pi', 'memory');
    const written = filesUnder(memoryDir).map((f) => path.basename(f.file));
    // The writers all ran: cursor, journal (jobs and a retain.failed reason), traces, sidecar.
    expect(written).toEqual(expect.arrayContaining(['retain-cursors.json', 'retain-queue.jsonl', 'last-recall.json', 'session.jsonl', 'retain-delivery.jsonl']));
    const journal = filesUnder(memoryDir).find((f) => f.file.endsWith('retain-queue.jsonl'))?.text ?? '';
    expect(journal).toContain('storage failed for credential [REDACTED]');
    expect(journal).toContain('printenv HINDSIGHT_API_KEY');
    expect(leaks(memoryDir, KEY)).toEqual([]);

    // The CLI, in its own process, with the same environment: flush and doctor print no key.
    const outputs: string[] = [];
    for (const args of [['flush', '--timeout-ms', '3000'], ['doctor'], ['scope', '--all']]) {
      const out = await runCli(args, { cwd: dirs.cwd, env });
      outputs.push(`${out.stdout}\n${out.stderr}`);
    }
    for (const text of outputs) expect(text).not.toContain(KEY);
    // flush reports the server's reason, with the key taken out of it.
    expect(outputs[0]).toContain('storage failed for credential [REDACTED]');
    expect(leaks(dirs.root, KEY)).toEqual([]);
  }, 60_000);
});
