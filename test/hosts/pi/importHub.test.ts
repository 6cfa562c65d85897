/**
 * `/memory import` inside the real pi host (SDK + faux model): the dry run lists this
 * project's sessions in pi's notification, `apply` imports them with progress in the footer,
 * and the documents land on the embedded server.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../../helpers/embeddedServer.js';
import { makeFaux, type ScriptedModel } from './hostLine.js';
import { makeProject, openHostSession, type Project } from './piSdk.js';

const FIXTURE = path.resolve(__dirname, '../../../fixtures/pi/sessions/pi073-branched.jsonl');

describe('/memory import in pi', () => {
  let server: TestServer;
  let faux: ScriptedModel;
  let project: Project;

  beforeAll(async () => {
    server = await startTestServer({ persist: false });
    // The faux model of whichever pi line runs (0.73.1 here, 0.87.1 in the host matrix).
    faux = await makeFaux();
    project = await makeProject(server.url, { setupComplete: true });
    // An earlier session of this project, as pi wrote it (header cwd = the project).
    mkdirSync(project.sessionsDir, { recursive: true });
    const lines = readFileSync(FIXTURE, 'utf8').split('\n');
    const head = JSON.parse(lines[0]!) as Record<string, unknown>;
    writeFileSync(path.join(project.sessionsDir, 'earlier.jsonl'), [JSON.stringify({ ...head, cwd: project.cwd }), ...lines.slice(1)].join('\n'));
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('previews, then imports with progress in the footer', async () => {
    const host = await openHostSession(project, faux);
    try {
      await host.session.prompt('/memory import');
      const preview = host.ui.notifications.find((n) => n.text.includes('This was a dry run'));
      expect(preview?.text).toMatch(/Sessions\s+1/);
      expect((await call(server, 'GET', '/v1/default/banks/host-test/documents')).body.total ?? 0).toBe(0);

      await host.session.prompt('/memory import apply');
      const done = host.ui.notifications.find((n) => /State\s+done: 1 queued/.test(n.text));
      expect(done).toBeDefined();
      expect(host.ui.statuses.some((s) => s.key === 'memory-import' && (s.text ?? '').startsWith('memory import:'))).toBe(true);
      const docs = (await call(server, 'GET', '/v1/default/banks/host-test/documents')).body.items as { id: string }[];
      expect(docs.filter((d) => d.id.startsWith('pi-import:'))).toHaveLength(1);
    } finally {
      await host.close();
    }
  }, 60_000);
});
