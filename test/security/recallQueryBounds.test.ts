/**
 * Round 11: the automatic recall query's size had no bound. `recall.maxQueryChars` and
 * `recall.contextTurns` took any positive integer: a cloned repository's `.pi/memory.json`, or a
 * steered model through `memory_config` (`scope: "global"`: every project), could make every
 * prompt fold in the whole conversation, redact all of it and send it to the memory server
 * (which refuses a query over 500 tokens anyway). Now the query is at most 8,000 characters and
 * 20 earlier turns: a larger value in a file is refused by field with a warning (the default
 * applies), a patch naming one is refused and writes nothing. Real `memory_config` over real
 * files; a real runtime against a recording server.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_RECALL_CONTEXT_TURNS, MAX_RECALL_QUERY_CHARS } from '../../src/codecs/codecs.js';
import { loadConfig } from '../../src/config/load.js';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { startFaultServer } from '../helpers/faultServer.js';
import { startHarness } from '../tools/harness.js';

describe('the automatic recall query stays bounded', () => {
  it('memory_config refuses a longer query or more turns in both scopes, and writes nothing', async () => {
    const h = await startHarness({ user: { memory: { timeoutMs: 30_000 } } });
    try {
      const userFile = path.join(h.home, '.pi', 'agent', 'memory.json');
      const projectFile = path.join(h.stateDir, 'memory.json');
      const before = [await readFile(userFile, 'utf8'), await readFile(projectFile, 'utf8')];
      for (const scope of ['global', 'project'] as const) {
        for (const [key, value] of [
          ['recallMaxQueryChars', MAX_RECALL_QUERY_CHARS + 1],
          ['recallMaxQueryChars', 2_000_000_000],
          ['recallContextTurns', MAX_RECALL_CONTEXT_TURNS + 1],
          ['recallContextTurns', 1_000_000],
        ] as const) {
          const error = await h.fails('memory_config', { action: 'patch', scope, patch: { [key]: value }, dryRun: false });
          expect(error.code).toBe('invalidParams');
          expect(error.field).toBe(`patch.${key}`);
        }
      }
      expect([await readFile(userFile, 'utf8'), await readFile(projectFile, 'utf8')]).toEqual(before);
      // The bounds themselves are still the person's (or the model's) to choose.
      const set = await h.ok('memory_config', { action: 'patch', scope: 'project', patch: { recallMaxQueryChars: MAX_RECALL_QUERY_CHARS, recallContextTurns: MAX_RECALL_CONTEXT_TURNS }, dryRun: false });
      expect(set.text).toContain(String(MAX_RECALL_QUERY_CHARS));
    } finally {
      await h.close();
    }
  }, 60_000);

  it("a clone's project file asking for the whole conversation: the query sent is the default's size, and the refusal is said", async () => {
    const server = await startFaultServer();
    server.setFallback((req) =>
      req.path.includes('/recall')
        ? { kind: 'json', status: 200, body: { results: [] } }
        : req.path === '/version'
          ? { kind: 'json', status: 200, body: { api_version: '0.9.1', features: {} } }
          : req.path.startsWith('/v1/default/banks')
            ? { kind: 'json', status: 200, body: { banks: [{ bank_id: 'clone-bank' }] } }
            : { kind: 'json', status: 200, body: {} },
    );
    const root = await mkdtemp(path.join(tmpdir(), 'am-sec-query-'));
    const cwd = path.join(root, 'clone');
    const home = path.join(root, 'home');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
    await writeFile(
      path.join(cwd, '.pi', 'memory.json'),
      JSON.stringify({ setupComplete: true, banks: { project: { bankId: 'clone-bank' } }, recall: { maxQueryChars: 2_000_000_000, contextTurns: 1_000_000 } }),
    );
    const runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home }, notify: () => undefined, shutdownFlushMs: 100 });
    try {
      await runtime.send({ type: 'session.started', sessionId: 'query', reason: 'startup' });
      // A long session: 60 user turns of 2 KB each.
      const messages = Array.from({ length: 60 }, (_, i) => ({ role: 'user' as const, content: [{ type: 'text' as const, text: `turn ${i} ${'about the deploy pipeline '.repeat(80)}` }], timestamp: i + 1 }));
      await runtime.recallFor(messages);
      const recalls = server.requests.filter((r) => r.path.includes('/recall'));
      expect(recalls.length).toBeGreaterThan(0);
      for (const r of recalls) {
        const query = (JSON.parse(r.body) as { query: string }).query;
        expect(query.length).toBeLessThanOrEqual(800);
        // The default's turns: only the last three were folded in.
        expect(query).not.toContain('turn 56 ');
      }
      const warnings = loadConfig({ cwd, home, env: { HOME: home } }).warnings.map((w) => w.message).join('\n');
      expect(warnings).toContain('field recall.maxQueryChars');
      expect(warnings).toContain('field recall.contextTurns');
    } finally {
      await runtime.close();
      await server.close();
    }
  }, 60_000);
});
