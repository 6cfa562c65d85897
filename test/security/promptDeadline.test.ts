/**
 * Round 10: automatic recall's deadline could be removed. `recall.timeoutMs` took any timer
 * value: a cloned repository's `.pi/memory.json`, or a steered model through `memory_config`
 * (`scope: "global"` writes the user file, so every project), could set up to 2147483647, and
 * a memory server that stalls (a dropped VPN, a hung proxy: no answer, no reset) then held every
 * prompt until Esc: the prompt path's one promise, that a slow server never holds it longer
 * than the deadline, was gone. Now the deadline is at most 30,000 ms: a larger value in a file
 * is refused with a warning (the default applies) and a patch naming one is refused by field.
 * Real `memory_config` over real config files; a real runtime against a scripted server that
 * never answers recall.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createMemoryRuntime } from '../../src/hosts/memoryRuntime.js';
import { startFaultServer, type FaultServer } from '../helpers/faultServer.js';
import { startHarness } from '../tools/harness.js';
import { makeFaux, piAi, type ScriptedModel } from '../hosts/pi/hostLine.js';
import { makeProject, openHostSession } from '../hosts/pi/piSdk.js';
import { waitUntil } from '../helpers/waitUntil.js';

const FOREVER = 2_147_483_647;

/** A server that knows `bankId` and answers everything but recall, which it never answers. */
const stallRecall = (server: FaultServer, bankId: string): void => {
  server.setFallback((req) =>
    req.path.includes('/recall')
      ? { kind: 'stall' }
      : req.path === '/version'
        ? { kind: 'json', status: 200, body: { api_version: '0.9.1', features: {} } }
        : req.path.startsWith('/v1/default/banks')
          ? { kind: 'json', status: 200, body: { banks: [{ bank_id: bankId }] } }
          : { kind: 'json', status: 200, body: {} },
  );
};

describe('the automatic recall deadline stays bounded', () => {
  it('memory_config refuses a deadline over 30 s in both scopes, and writes nothing', async () => {
    const h = await startHarness({ user: { memory: { timeoutMs: 30_000 } } });
    try {
      const userFile = path.join(h.home, '.pi', 'agent', 'memory.json');
      const projectFile = path.join(h.stateDir, 'memory.json');
      const before = [await readFile(userFile, 'utf8'), await readFile(projectFile, 'utf8')];
      for (const scope of ['global', 'project'] as const) {
        for (const value of [FOREVER, 30_001]) {
          const error = await h.fails('memory_config', { action: 'patch', scope, patch: { recallTimeoutMs: value }, dryRun: false });
          expect(error.code).toBe('invalidParams');
          expect(error.field).toBe('patch.recallTimeoutMs');
        }
      }
      expect([await readFile(userFile, 'utf8'), await readFile(projectFile, 'utf8')]).toEqual(before);
      // A deadline within the bound is still the person's (or the model's) to choose.
      const set = await h.ok('memory_config', { action: 'patch', scope: 'project', patch: { recallTimeoutMs: 30_000 }, dryRun: false });
      expect(set.text).toContain('30000');
    } finally {
      await h.close();
    }
  }, 60_000);

  it("a clone's project file asking for 2147483647 ms: recall still gives up at the default deadline against a stalled server", async () => {
    const server = await startFaultServer();
    stallRecall(server, 'clone-bank');
    const root = await mkdtemp(path.join(tmpdir(), 'am-sec-deadline-'));
    const cwd = path.join(root, 'clone');
    const home = path.join(root, 'home');
    await mkdir(path.join(cwd, '.pi'), { recursive: true });
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: server.url } }));
    await writeFile(path.join(cwd, '.pi', 'memory.json'), JSON.stringify({ setupComplete: true, banks: { project: { bankId: 'clone-bank' } }, recall: { timeoutMs: FOREVER } }));
    const runtime = await createMemoryRuntime({ cwd, home, env: { HOME: home }, notify: () => undefined, shutdownFlushMs: 100 });
    try {
      await runtime.send({ type: 'session.started', sessionId: 'deadline', reason: 'startup' });
      const result = await runtime.recallFor([{ role: 'user', content: [{ type: 'text', text: 'how do we deploy the app?' }], timestamp: 1 }]);
      expect(result.outcome).toBe('timedOut');
      expect(result.reason).toContain('1500 ms deadline');
      expect(server.requests.some((r) => r.path.includes('/recall'))).toBe(true);
      // The refused value is said (pi's config notice and the doctor read these warnings).
      expect(JSON.stringify(loadConfig({ cwd, home, env: { HOME: home } }).warnings)).toContain('recall.timeoutMs');
      expect(existsSync(path.join(cwd, '.pi', 'memory.json'))).toBe(true);
    } finally {
      await runtime.close();
      await server.close();
    }
  }, 60_000);

  it('real pi: a project file asking for 10 minutes, a server that never answers recall: the prompt completes without memory', async () => {
    const server = await startFaultServer();
    stallRecall(server, 'pi-clone-bank');
    let faux: ScriptedModel | undefined;
    try {
      faux = await makeFaux();
      const project = await makeProject(server.url, { memory: { baseUrl: server.url }, banks: { project: { bankId: 'pi-clone-bank' } }, recall: { timeoutMs: 600_000 } });
      faux.setResponses([piAi.fauxAssistantMessage('Answered without memory.')]);
      const host = await openHostSession(project, faux);
      try {
        const runtime = host.holder.runtime!;
        await waitUntil(() => runtime.status().setup.state === 'ready');
        await host.session.prompt('What did we decide about caching?');
        await runtime.session.idle();
        expect(server.requests.some((r) => r.path.includes('/recall'))).toBe(true);
        expect(runtime.session.view().context.lastRecall?.outcome).toBe('timedOut');
      } finally {
        await host.close();
      }
    } finally {
      faux?.dispose();
      await server.close();
    }
  }, 30_000);
});
