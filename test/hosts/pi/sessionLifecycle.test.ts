/**
 * pi's session lifecycle through the real host (in-process SDK with pi's own session runtime,
 * faux model): `/new` replaces the session in a process that goes on, so the old session hands
 * its run off without waiting for a hung server and the new session's queue delivers it; quit
 * flushes within its bound; a session's name (pi `/name`: `session_info_changed` on 0.80.3+,
 * read at the run's end on 0.73) goes into the retained item's context, never its document id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as E from 'fp-ts/lib/Either.js';
import { createMemoryServer } from '../../../src/adapters/server/client.js';
import { startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { startFaultServer, type FaultServer, type RecordedRequest } from '../../helpers/faultServer.js';
import { hostLine, makeFaux, piAi, type ScriptedModel } from './hostLine.js';
import { makeProject, openHostSession } from './piSdk.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { queuedRuns } from '../../helpers/queuedRuns.js';

const { fauxAssistantMessage } = piAi;



const isRetain = (req: RecordedRequest): boolean => req.method === 'POST' && /\/memories$/.test(req.path.split('?')[0] ?? '');

/**
 * The flush bound the runtime gets: quit may wait this long for a hung server, a replacement must
 * not. Long enough that a loaded machine does not blur the two (a /new took 1.2 s there).
 */
const FLUSH_MS = 4_000;

describe(`pi ${hostLine.version}: session replacement, quit and session names`, () => {
  let server: TestServer;
  let fault: FaultServer;
  let faux: ScriptedModel;
  let hang = true;
  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    fault = await startFaultServer({ target: server.url });
    // Everything reaches the real server, except retain deliveries while `hang` is set.
    fault.setFallback((req) => (hang && isRetain(req) ? { kind: 'stall' } : { kind: 'proxy' }));
    faux = await makeFaux();
  });
  afterAll(async () => {
    faux.dispose();
    await fault.close();
    await server.dispose();
  });

  it('/new hands the run off without waiting for a hung server; the new session delivers it; quit waits its bound', async () => {
    hang = true;
    const project = await makeProject(fault.url);
    faux.setResponses([fauxAssistantMessage('Noted: the canary stage runs for 20 minutes.'), fauxAssistantMessage('Fine.')]);
    const host = await openHostSession(project, faux, { shutdownFlushMs: FLUSH_MS });
    let replacedMs: number;
    let quitMs: number;
    try {
      const first = host.holder.runtime!;
      await host.session.prompt('Remember: our canary stage runs for 20 minutes before promotion.');
      await waitUntil(() => first.session.view().context.lastRetain?.outcome === 'queued');
      await waitUntil(() => fault.requests.some(isRetain));
      expect(first.queue!.status().depth).toBe(1);

      const t0 = performance.now();
      await host.newSession();
      replacedMs = performance.now() - t0;

      // The old session's gate took the replacement path and closed; its recall state is gone.
      expect(host.holders).toHaveLength(2);
      const old = first.session.view();
      expect(old.phase).toBe('closed');
      expect(old.context).toMatchObject({ shutdownReason: 'new', recall: null, lastRecall: null });
      // The new session is a fresh extension instance with its own session id.
      const second = host.holder.runtime!;
      expect(second).not.toBe(first);
      expect(second.session.view().context.sessionId).not.toBe(old.context.sessionId);
      // The run is still in the queue on disk, and the new session's queue delivers it once the server answers.
      expect(second.queue!.status().depth).toBe(1);
      hang = false;
      await second.queue!.flush({ deadline: Date.now() + 8_000 });
      expect(second.queue!.status().depth).toBe(0);
      const client = createMemoryServer({ baseUrl: server.url, timeoutMs: 2_000 });
      await waitUntil(async () => {
        const r = await client.recall('host-test', { query: 'canary stage minutes promotion' })();
        return E.isRight(r) && r.right.results.some((hit) => hit.text.includes('canary'));
      });

      // Quit: a run queued while the server hangs again is flushed for at most the bound.
      hang = true;
      await host.session.prompt('And staging runs nightly.');
      await waitUntil(() => second.session.view().context.lastRetain?.outcome === 'queued');
    } finally {
      const t1 = performance.now();
      await host.close();
      quitMs = performance.now() - t1;
    }
    const last = host.holders[1]!.closed!.session.view();
    expect(last.context.shutdownReason).toBe('quit');
    console.info(`[pi ${hostLine.version}] /new with a hung server: ${replacedMs.toFixed(0)} ms; quit: ${quitMs.toFixed(0)} ms (flush bound ${FLUSH_MS} ms)`);
    expect(replacedMs).toBeLessThan(FLUSH_MS);
    expect(quitMs).toBeGreaterThanOrEqual(FLUSH_MS - 100);
  }, 60_000);

  it('a session name set in pi goes into the retained item, and the document id stays the same', async () => {
    hang = false;
    const project = await makeProject(fault.url);
    faux.setResponses([fauxAssistantMessage('First answer.'), fauxAssistantMessage('Second answer.')]);
    const host = await openHostSession(project, faux);
    try {
      const runtime = host.holder.runtime!;
      await host.session.prompt('Before the name.');
      await waitUntil(() => runtime.session.view().context.lastRetain?.outcome === 'queued');
      host.session.setSessionName('release 4.2 rollout');
      // pi 0.80.3+ tells the extension at once (session_info_changed); 0.73 only at the run's end.
      if (hostLine.line === 'earendil') await waitUntil(() => runtime.session.view().context.sessionName === 'release 4.2 rollout', 2_000);
      else expect(runtime.session.view().context.sessionName).toBeNull();
      await host.session.prompt('After the name.');
      await waitUntil(() => (runtime.session.view().context.lastRetain?.at ?? 0) > 0 && runtime.session.view().context.sessionName === 'release 4.2 rollout');
      await runtime.session.idle();
    } finally {
      await host.close();
    }
    const jobs = await queuedRuns(project.cwd);
    expect(jobs).toHaveLength(2);
    const [before, after] = jobs.map((line) => JSON.parse(line) as { jobs: { documentId: string; item: { context: string; metadata: Record<string, string> } }[] });
    expect(before!.jobs[0]!.item.context).not.toContain('release 4.2 rollout');
    expect(after!.jobs[0]!.item.context).toContain('"release 4.2 rollout"');
    expect(after!.jobs[0]!.item.metadata['host_session_name']).toBe('release 4.2 rollout');
    expect(after!.jobs[0]!.documentId).toBe(before!.jobs[0]!.documentId);
  }, 60_000);
});
