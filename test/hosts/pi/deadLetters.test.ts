/**
 * Dead letters, through the real pi host and the real CLI: a turn the server refuses (422)
 * becomes a dead letter; `/memory dead-letters` lists it with the reason; `requeue ID`
 * delivers it once the cause is gone; `agent-memory dead-letters` lists (--json) and drops.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { type TestServer } from '../../helpers/embeddedServer.js';
import { hostLine, piAi } from './hostLine.js';
import { makeProject, openHostSession } from './piSdk.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { usePiHost } from '../../helpers/piHostSuite.js';

const { fauxAssistantMessage } = piAi;


const refuseOnce = (server: TestServer): void =>
  server.setFaults([{ kind: 'status', status: 422, detail: 'item rejected by the test server', method: 'POST', path: '/v1/default/banks/*/memories', times: 1 }]);

describe(`pi ${hostLine.version}: dead letters from /memory and agent-memory dead-letters`, () => {
  const suite = usePiHost();

  it('lists with the reason, requeues and delivers, then the CLI lists and drops', async () => {
    const project = await makeProject(suite.server.url);
    suite.faux.setResponses([fauxAssistantMessage('First answer, refused.'), fauxAssistantMessage('Second answer, refused.')]);
    const host = await openHostSession(project, suite.faux);
    let secondId: string | undefined;
    try {
      const runtime = host.holder.runtime!;
      const queue = runtime.queue!;
      const deadCount = async (): Promise<number> => (await queue.deadLetters()).length;

      refuseOnce(suite.server);
      await host.session.prompt('First question?');
      await waitUntil(() => runtime.session.view().context.lastRetain?.outcome === 'queued');
      await queue.flush({ deadline: Date.now() + 5_000, force: true });
      await waitUntil(async () => (await deadCount()) === 1);
      const [first] = await queue.deadLetters();

      await host.session.prompt('/memory dead-letters');
      const listed = host.ui.notifications.at(-1)?.text ?? '';
      expect(listed).toContain('1 dead letter(s)');
      expect(listed).toContain(first!.job.jobId);
      expect(listed).toContain('HTTP 422');
      // Each letter with the whole command that requeues it and the one that drops it, run as printed.
      expect(listed).toContain(`drop:    /memory dead-letters drop ${first!.job.jobId}`);
      const requeueLine = /^ +requeue: (.+)$/m.exec(listed)?.[1] ?? '';
      expect(requeueLine).toBe(`/memory dead-letters requeue ${first!.job.jobId}`);

      await host.session.prompt(requeueLine);
      expect(host.ui.notifications.at(-1)?.text).toContain('Requeued 1 dead letter(s); they are delivered with the queue (to send them now: /memory flush)');
      await queue.flush({ deadline: Date.now() + 5_000, force: true });
      expect(await deadCount()).toBe(0);
      expect(queue.status().depth).toBe(0);

      await host.session.prompt('/memory dead-letters requeue nope');
      expect(host.ui.notifications.at(-1)?.text).toContain('No dead letter "nope"');

      // A second refusal stays for the CLI.
      refuseOnce(suite.server);
      const before = runtime.session.view().context.lastRetain?.at ?? 0;
      await host.session.prompt('Second question?');
      await waitUntil(() => (runtime.session.view().context.lastRetain?.at ?? 0) > before);
      await queue.flush({ deadline: Date.now() + 5_000, force: true });
      await waitUntil(async () => (await deadCount()) === 1);
      secondId = (await queue.deadLetters())[0]!.job.jobId;
    } finally {
      await host.close();
    }

    if (secondId === undefined) throw new Error('no second dead letter');
    const env = { HOME: project.home };
    const listed = await runCli(['dead-letters', '--json'], { cwd: project.cwd, env });
    expect(listed.code, listed.stderr).toBe(0);
    const details = JSON.parse(listed.stdout) as { deadLetters: { jobId: string; status: number; reason: string }[] };
    expect(details.deadLetters.map((d) => d.jobId)).toEqual([secondId]);
    expect(details.deadLetters[0]?.status).toBe(422);

    const dropped = await runCli(['dead-letters', 'drop', secondId], { cwd: project.cwd, env });
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stdout).toContain('Dropped 1 dead letter(s)');
    const after = await runCli(['dead-letters'], { cwd: project.cwd, env });
    expect(after.stdout).toContain('No dead letters.');
    const unknown = await runCli(['dead-letters', 'drop', secondId], { cwd: project.cwd, env });
    expect(unknown.code).toBe(1);
  }, 90_000);
});
