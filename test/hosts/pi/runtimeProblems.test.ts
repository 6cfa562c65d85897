/**
 * pi's `/memory doctor` and `/memory status` list what the running session met and what waits
 * on the person, each with the action that does it: a queue file set aside at start (it was said
 * once, as a notification, and in no status or doctor), and a dead letter. Through the real pi
 * host; the dead letter is a turn the embedded server refuses (422).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgedJournal } from '../../helpers/forgedJournal.js';
import { type TestServer } from '../../helpers/embeddedServer.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { usePiHost } from '../../helpers/piHostSuite.js';
import { hostLine, piAi } from './hostLine.js';
import { makeProject, openHostSession } from './piSdk.js';

const { fauxAssistantMessage } = piAi;

const refuseOnce = (server: TestServer): void =>
  server.setFaults([{ kind: 'status', status: 422, detail: 'item rejected by the test server', method: 'POST', path: '/v1/default/banks/*/memories', times: 1 }]);

describe(`pi ${hostLine.version}: /memory doctor and status list the session's problems`, () => {
  const suite = usePiHost();

  it('a set-aside queue file and a dead letter, each with what to do', async () => {
    const project = await makeProject(suite.server.url);
    // A queue this user's memory did not write: set aside when the session opens the queue.
    await mkdir(path.join(project.cwd, '.pi', 'memory'), { recursive: true });
    await writeFile(path.join(project.cwd, '.pi', 'memory', 'retain-queue.jsonl'), forgedJournal({ jobId: '1f0a0e5c-0000-4000-8000-0000000000b1', content: 'The staging proxy listens on port 8443.', bankId: 'host-test', tags: [] }));
    suite.faux.setResponses([fauxAssistantMessage('An answer the server refuses.')]);
    const host = await openHostSession(project, suite.faux);
    try {
      const runtime = host.holder.runtime!;
      const queue = runtime.queue!;
      refuseOnce(suite.server);
      await host.session.prompt('Which port does the staging proxy use?');
      await waitUntil(() => runtime.session.view().context.lastRetain?.outcome === 'queued');
      await queue.flush({ deadline: Date.now() + 5_000, force: true });
      await waitUntil(async () => (await queue.deadLetters()).length === 1);

      for (const command of ['/memory doctor', '/memory status']) {
        await host.session.prompt(command);
        const text = host.ui.notifications.at(-1)?.text ?? '';
        expect(text, command).toMatch(/note: .*retain-queue\.untrusted-[0-9TZ-]+\.jsonl: a retain queue file this user's memory did not write/);
        expect(text, command).toContain('quit pi, move it back');
        expect(text, command).toContain('Queue: 1 dead letter(s), refused by the server for good; each with its reason and the commands that requeue or drop it: /memory dead-letters');
      }
      // The action named, run as printed, lists the letter.
      const named = /^Queue: 1 dead letter\(s\).*: (\/memory .+)$/m.exec(host.ui.notifications.at(-1)?.text ?? '')?.[1] ?? '';
      await host.session.prompt(named);
      expect(host.ui.notifications.at(-1)?.text).toContain('1 dead letter(s) (the server refused them for good)');
    } finally {
      await host.close();
    }
  }, 120_000);
});
