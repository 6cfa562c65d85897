/**
 * `/memory import` inside the real pi host (SDK + faux model): the dry run lists this
 * project's sessions in pi's notification, `apply` imports them with progress in the footer,
 * and the documents land on the embedded server.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/embeddedServer.js';
import { openHostSession } from './piSdk.js';
import { usePiHost } from '../../helpers/piHostSuite.js';

const FIXTURE = path.resolve(__dirname, '../../../fixtures/pi/sessions/pi073-branched.jsonl');

describe('/memory import in pi', () => {
  const suite = usePiHost({ project: { setupComplete: true } });
  beforeAll(() => {
    // An earlier session of this project, as pi wrote it (header cwd = the project).
    mkdirSync(suite.project.sessionsDir, { recursive: true });
    const lines = readFileSync(FIXTURE, 'utf8').split('\n');
    const head = JSON.parse(lines[0]!) as Record<string, unknown>;
    writeFileSync(path.join(suite.project.sessionsDir, 'earlier.jsonl'), [JSON.stringify({ ...head, cwd: suite.project.cwd }), ...lines.slice(1)].join('\n'));
  });

  it('previews, then imports with progress in the footer', async () => {
    const host = await openHostSession(suite.project, suite.faux);
    try {
      await host.session.prompt('/memory import');
      const preview = host.ui.notifications.find((n) => n.text.includes('This was a dry run'));
      expect(preview?.text).toMatch(/Sessions\s+1/);
      expect((await call(suite.server, 'GET', '/v1/default/banks/host-test/documents')).body.total ?? 0).toBe(0);

      await host.session.prompt('/memory import apply');
      const done = host.ui.notifications.find((n) => /State\s+done: (1 sent to the server, 0 queued|1 queued)/.test(n.text));
      expect(done).toBeDefined();
      expect(host.ui.statuses.some((s) => s.key === 'memory-import' && (s.text ?? '').startsWith('memory import:'))).toBe(true);
      const docs = (await call(suite.server, 'GET', '/v1/default/banks/host-test/documents')).body.items as { id: string }[];
      expect(docs.filter((d) => d.id.startsWith('pi-import:'))).toHaveLength(1);
    } finally {
      await host.close();
    }
  }, 60_000);
});
