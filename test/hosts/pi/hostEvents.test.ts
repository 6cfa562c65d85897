/**
 * What the newer pi lines add, through the real host (in-process SDK, faux model): a run pi
 * retries is retained once, with the retry's answer and without the failed attempt; and with
 * `enabled: false` the status tools and /memory stay available while the server tools say how
 * to turn memory back on; pi 0.79+'s project trust joins memory.trustedOrigins in one decision.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from '@mariozechner/pi-ai';
import { startFaultServer } from '../../helpers/faultServer.js';
import { hostLine, piAi } from './hostLine.js';
import { makeProject, openHostSession } from './piSdk.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { queuedRuns } from '../../helpers/queuedRuns.js';
import { usePiHost } from '../../helpers/piHostSuite.js';

const { fauxAssistantMessage, fauxToolCall } = piAi;



describe(`pi ${hostLine.version}: retried runs and enabled: false`, () => {
  const suite = usePiHost();

  it('a run pi retries is retained once: the prompt and the retry, not the failed attempt', async () => {
    const project = await makeProject(suite.server.url);
    suite.faux.setResponses([
      fauxAssistantMessage('', { stopReason: 'error', errorMessage: '503 service unavailable (overloaded)' }),
      fauxAssistantMessage('The cache TTL is 300 seconds.'),
    ]);
    const host = await openHostSession(project, suite.faux, {}, { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } });
    try {
      await host.session.prompt('What is the cache TTL?');
      const runtime = host.holder.runtime!;
      await waitUntil(() => runtime.session.view().context.lastRetain?.outcome === 'queued');
      await runtime.session.idle();
    } finally {
      await host.close();
    }
    const jobs = await queuedRuns(project.cwd);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toContain('What is the cache TTL?');
    expect(jobs[0]).toContain('The cache TTL is 300 seconds.');
    expect(jobs[0]).not.toContain('503 service unavailable');
  }, 30_000);

  it('enabled: false keeps memory_status, /memory and the doctor; server tools and flush say how to re-enable', async () => {
    const project = await makeProject(suite.server.url, { enabled: false });
    const seen: Context['messages'][] = [];
    suite.faux.setResponses([
      fauxAssistantMessage([fauxToolCall('memory_status', {}), fauxToolCall('memory_recall', { query: 'deploys' })], { stopReason: 'toolUse' }),
      (context: Context) => {
        seen.push(structuredClone(context.messages));
        return fauxAssistantMessage('Memory is off here.');
      },
    ]);
    const host = await openHostSession(project, suite.faux);
    try {
      const runtime = host.holder.runtime!;
      expect(runtime.status().setup.state).toBe('disabled');
      await host.session.prompt('/memory status');
      await host.session.prompt('/memory:doctor');
      await host.session.prompt('/memory flush');
      await host.session.prompt('Check memory, then recall deploys.');
      await runtime.session.idle();
      const texts = host.ui.notifications.map((n) => n.text);
      expect(texts.some((t) => t.startsWith('Memory') && t.includes('Enabled'))).toBe(true);
      const doctor = texts.find((t) => t.startsWith('agent-memory doctor')) ?? '';
      // The one trust decision names its rule: pi 0.87 trusts the project (the SDK's default); 0.73 has no project trust.
      expect(doctor).toContain(
        hostLine.line === 'earendil'
          ? `Trust rule: project config honoured: pi trusts this project and ${suite.server.url} is in memory.trustedOrigins`
          : `Trust rule: project config honoured: ${suite.server.url} is in memory.trustedOrigins (this pi has no project trust)`,
      );
      expect(texts.some((t) => t.startsWith('/memory flush is off') && t.includes('Turn it back on in /memory ("Turn memory on")'))).toBe(true);
      // No recall happened and nothing was handed to the retain queue.
      expect(runtime.session.view().context.lastRecall?.outcome).not.toBe('injected');
      expect(runtime.session.view().context.lastRecall?.items ?? 0).toBe(0);
      expect(runtime.queue).toBeUndefined();
    } finally {
      await host.close();
    }
    const results = (seen[0] ?? []).filter((m) => m.role === 'toolResult') as { toolName: string; isError: boolean; content: { type: string; text?: string }[] }[];
    const status = results.find((r) => r.toolName === 'memory_status');
    const recall = results.find((r) => r.toolName === 'memory_recall');
    expect(status?.isError).toBe(false);
    expect(status?.content[0]?.text).toContain('Memory status');
    expect(recall?.content[0]?.text).toContain(`memory_recall is off: memory is disabled (enabled: false in ${path.join(project.cwd, '.pi', 'memory.json')})`);
    expect(recall?.content[0]?.text).toContain('Turn it back on in /memory ("Turn memory on")');
    expect(await queuedRuns(project.cwd)).toEqual([]);
  }, 30_000);

  it('pi project trust joins memory.trustedOrigins: an untrusted project cannot move the server, and the doctor says which rule', async () => {
    // The project file points memory at a server the user file trusts; only pi's verdict differs.
    const fault = await startFaultServer({ target: suite.server.url });
    fault.setFallback({ kind: 'proxy' });
    const project = await makeProject(fault.url);
    suite.faux.setResponses([fauxAssistantMessage('An answer.')]);
    const host = await openHostSession(project, suite.faux, {}, undefined, { projectTrusted: false });
    try {
      const runtime = host.holder.runtime!;
      await host.session.prompt('/memory:doctor');
      await host.session.prompt('What is our deploy window?');
      await runtime.session.idle();
      const texts = host.ui.notifications.map((n) => n.text);
      const doctor = texts.find((t) => t.startsWith('agent-memory doctor')) ?? '';
      if (hostLine.line === 'earendil') {
        // pi 0.79+: untrusted project, so its file moves nothing whatever the user lists; nothing reaches the server.
        expect(runtime.status().setup.state).toBe('untrusted');
        expect(host.ui.statuses.some((st) => st.key === 'memory' && st.text === 'memory: untrusted')).toBe(true);
        expect(texts.some((t) => t.startsWith('Memory is off:') && t.includes('pi does not trust this project'))).toBe(true);
        expect(doctor).toContain('Trust rule: project config refused, memory off: pi does not trust this project');
        expect(fault.requests).toEqual([]);
        expect(await queuedRuns(project.cwd)).toEqual([]);
      } else {
        // pi 0.73 has no project trust: memory.trustedOrigins alone decides, and memory works.
        expect(runtime.status().setup.state).toBe('ready');
        expect(doctor).toContain(`Trust rule: project config honoured: ${fault.url} is in memory.trustedOrigins (this pi has no project trust)`);
        expect(fault.requests.length).toBeGreaterThan(0);
        expect(await queuedRuns(project.cwd)).toHaveLength(1);
      }
    } finally {
      await host.close();
      await fault.close();
    }
  }, 30_000);
});
