/**
 * A tool's error is not a fact. The fifth pass had memory_retain_global's own error ("User memory
 * bank ID is not configured…") retained with the turn and recalled later as
 * `Tool (memory_retain_global): …`, beside the person's own decisions. Through the real
 * runtime, its queue and the embedded server, then back through automatic recall and
 * memory_recall: the person's statement and decision come back; memory's own tools' results
 * are not kept; a failed command's output (a tool error, a `!` command that exited non-zero)
 * comes back said to be a tool error, never as a plain statement.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import type { HostMessage } from '../../../src/effects/session/messages.js';
import { MEMORY_TOOL_NAMES } from '../../../src/effects/session/messages.js';
import { spokenText } from '../../../src/codecs/conversationText.js';
import { createMemoryRuntime, type MemoryRuntime } from '../../../src/hosts/memoryRuntime.js';
import { findTool, toolCatalogue } from '../../../src/tools/catalogue.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { waitUntil } from '../../helpers/waitUntil.js';

const user = (text: string, timestamp: number): HostMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp });
const assistant = (content: NonNullable<HostMessage['content']>, timestamp: number): HostMessage => ({ role: 'assistant', content, timestamp, model: 'm', stopReason: 'stop' });
const toolResult = (toolName: string, text: string, isError: boolean, timestamp: number): HostMessage => ({
  role: 'toolResult',
  toolName,
  toolCallId: `call-${timestamp}`,
  content: [{ type: 'text', text }],
  isError,
  timestamp,
});

describe("memory's own tools", () => {
  it('MEMORY_TOOL_NAMES is the catalogue of the 12 tools', () => {
    expect([...MEMORY_TOOL_NAMES].sort()).toEqual(toolCatalogue.map((t) => t.name).sort());
  });

  it("an observation's text (spokenText) quotes what was said, not a tool's error, whole or in a chunk", () => {
    const stored = JSON.stringify([
      { role: 'user', content: 'We deploy from the release branch.' },
      { role: 'toolResult', toolName: 'bash', isError: true, content: 'fatal: not a git repository' },
    ], null, 2);
    expect(spokenText(stored)).toBe('We deploy from the release branch.');
    expect(spokenText(stored.slice(20))).not.toContain('fatal');
  });
});

describe('a tool error retained with a turn, then recalled', () => {
  let server: TestServer;
  let root: string;
  let runtime: MemoryRuntime;
  beforeAll(async () => {
    server = await startTestServer();
    root = await mkdtemp(path.join(tmpdir(), 'am-tool-errors-'));
    const cwd = path.join(root, 'project');
    const home = path.join(root, 'home');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url }, banks: { project: { bankId: 'tool-errors' } }, scope: { projectId: 'toolerrors' } }));
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { trustedOrigins: [server.url] } }));
    runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home }, notify: () => undefined, shutdownFlushMs: 500 });
    await waitUntil(() => runtime.status().setup.state === 'ready');
    await runtime.send({ type: 'session.started', sessionId: 'one', sessionFile: '/tmp/one.jsonl', reason: 'startup' });
    const turn = runtime.retainTurn([
      user('Remember for every project: I review pull requests in the morning. We decided the staging bank is called ledger.', 10),
      assistant([{ type: 'toolCall', name: 'memory_retain_global', id: 'c1', arguments: { content: 'reviews pull requests in the morning' } }], 11),
      toolResult('memory_retain_global', 'User memory bank ID is not configured; set banks.user.bankId to a personal bank.', true, 12),
      assistant([{ type: 'toolCall', name: 'bash', id: 'c2', arguments: { command: 'ledgerctl migrate' } }], 13),
      toolResult('bash', 'bash: ledgerctl: command not found (exit code 127)', true, 14),
      { role: 'bashExecution', command: 'ledgerctl status', output: 'ledgerctl: no staging ledger configured', exitCode: 1, timestamp: 15 },
      assistant([{ type: 'text', text: 'Noted that the staging bank is called ledger; the ledgerctl tool is not installed here.' }], 16),
    ]);
    expect((await turn.settled).outcome).toBe('queued');
    await runtime.queue!.flush({ deadline: Date.now() + 5_000 });
    const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 2_000 });
    await waitUntil(async () => {
      const r = await client.recall('tool-errors', { query: 'staging bank ledger' })();
      return E.isRight(r) && r.right.results.length > 0;
    });
  }, 60_000);
  afterAll(async () => {
    await runtime.close();
    await server.dispose();
    await rm(root, { recursive: true, force: true });
  });

  it("automatic recall: the person's decision comes back; memory's own error does not; a failed command is said to be a tool error", async () => {
    const result = await runtime.recallFor([user('What is the staging bank called, and is the memory bank ID configured? Does ledgerctl work?', 100)]);
    expect(result.outcome).toBe('injected');
    const block = JSON.stringify(result.messages);
    expect(block).toContain('the staging bank is called ledger');
    expect(block).not.toContain('User memory bank ID is not configured');
    expect(block).not.toContain('memory_retain_global');
    expect(block).toContain('Tool error (bash): bash: ledgerctl: command not found');
    expect(block).toContain('Tool error: $ ledgerctl status');
    // Never stated plainly ("Tool (bash): …" before).
    expect(block).not.toMatch(/Tool \(bash\)/);
  });

  it('memory_recall says the same', async () => {
    const tool = findTool('memory_recall');
    const outcome = await tool!.run({ query: 'ledgerctl command not found staging ledger' }, await runtime.toolContext());
    expect(outcome.ok).toBe(true);
    const text = outcome.ok ? outcome.result.text : '';
    expect(text).not.toContain('User memory bank ID is not configured');
    expect(text).toContain('Tool error (bash): bash: ledgerctl: command not found');
    expect(text).not.toMatch(/Tool \(bash\)/);
  });
});
