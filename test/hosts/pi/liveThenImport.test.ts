/**
 * A session retained live is not stored a second time by an import: in the real pi host (SDK +
 * faux model) on the embedded server, two turns are retained live; then the real CLI's
 * `agent-memory import <that session file>` leaves out what live retain already queued (the
 * retain cursor's fingerprints), so each turn's text is on the server once. The session then
 * grows without the extension (lines appended as pi writes them: another pi without it, or a
 * run that ended as pi died), and a second import brings in only the new turn.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { documentTexts, storedCopies } from '../../helpers/embeddedServer.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { usePiHost } from '../../helpers/piHostSuite.js';
import { piAi } from './hostLine.js';
import { openHostSession } from './piSdk.js';

const { fauxAssistantMessage } = piAi;

interface Entry {
  readonly type: string;
  readonly id: string;
  readonly parentId: string | null;
  readonly timestamp: string;
  readonly message?: { readonly role: string; readonly content: unknown; readonly timestamp?: number };
}

describe('an import of a session retained live', () => {
  const suite = usePiHost({ project: {} });

  const documents = (): Promise<Map<string, string>> => documentTexts(suite.server, 'host-test');
  const copies = storedCopies;

  it('stores each turn once; a session that grew after the live retain imports only the new part', async () => {
    suite.faux.setResponses([fauxAssistantMessage('Noted: esbuild builds it.'), fauxAssistantMessage('Noted: vitest runs the tests.')]);
    const first = await openHostSession(suite.project, suite.faux);
    let sessionFile: string | undefined;
    try {
      const runtime = first.holder.runtime!;
      const retainedAt = (): number => runtime.session.view().context.lastRetain?.at ?? 0;
      await first.session.prompt('Keep alpha: the build uses esbuild.');
      await waitUntil(() => runtime.session.view().context.lastRetain?.outcome === 'queued');
      const once = retainedAt();
      await first.session.prompt('Keep beta: tests run with vitest.');
      await waitUntil(() => retainedAt() > once && runtime.session.view().context.lastRetain?.outcome === 'queued');
      sessionFile = first.session.sessionFile;
    } finally {
      await first.close();
    }
    expect(sessionFile).toBeDefined();
    const file = sessionFile!;
    // The live retain reached the server: one per-session document holding both turns.
    await waitUntil(async () => {
      const docs = await documents();
      return copies(docs, 'Keep alpha') === 1 && copies(docs, 'Keep beta') === 1;
    });
    const cli = (args: string[]) => runCli(args, { cwd: suite.project.cwd, env: { HOME: suite.project.home } });

    const imported = await cli(['import', file]);
    expect(imported.stderr).not.toMatch(/error|warning/i);
    expect(imported.code, imported.stdout).toBe(0);
    let docs = await documents();
    for (const text of ['Keep alpha', 'Noted: esbuild builds it.', 'Keep beta', 'Noted: vitest runs the tests.']) expect(copies(docs, text), text).toBe(1);
    expect(imported.stdout).toContain('already retained live (left out)');
    // The reason in words heads the file and its detail ("empty-projection: 1" before).
    expect(imported.stdout).toMatch(/Not imported \(1\):\n {2}nothing left to import: 1\n {4}\S.*\(live retain already stored every message of it\)/);
    expect(imported.stdout).not.toContain('empty-projection');
    expect([...docs.keys()].filter((id) => id.startsWith('pi-import:'))).toEqual([]);

    // The session grows without the extension: a user turn and a reply, appended as pi writes them.
    const entries = (await readFile(file, 'utf8'))
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as Entry);
    const lastUser = entries.findLast((e) => e.type === 'message' && e.message?.role === 'user');
    const lastReply = entries.findLast((e) => e.type === 'message' && e.message?.role === 'assistant');
    const leaf = entries[entries.length - 1];
    expect(lastUser?.message && lastReply?.message && leaf).toBeTruthy();
    const at = Date.now() + 60_000;
    const user: Entry = { ...lastUser!, id: 'grown-user-1', parentId: leaf!.id, timestamp: new Date(at).toISOString(), message: { ...lastUser!.message!, content: 'Keep gamma: the cache lives in .cache/am.', timestamp: at } };
    const replyContent = [{ type: 'text', text: 'Noted: the cache is in .cache/am.' }];
    const reply: Entry = { ...lastReply!, id: 'grown-reply-1', parentId: user.id, timestamp: new Date(at + 1_000).toISOString(), message: { ...lastReply!.message!, content: replyContent, timestamp: at + 1_000 } };
    await appendFile(file, `${JSON.stringify(user)}\n${JSON.stringify(reply)}\n`);

    const again = await cli(['import', file]);
    expect(again.stderr).not.toMatch(/error|warning/i);
    expect(again.code).toBe(0);
    docs = await documents();
    for (const text of ['Keep alpha', 'Noted: esbuild builds it.', 'Keep beta', 'Noted: vitest runs the tests.', 'Keep gamma', 'Noted: the cache is in .cache/am.']) {
      expect(copies(docs, text), text).toBe(1);
    }
    const importedIds = [...docs.keys()].filter((id) => id.startsWith('pi-import:'));
    expect(importedIds).toHaveLength(1);
    const importedText = docs.get(importedIds[0]!) ?? '';
    expect(importedText).toContain('Keep gamma');
    expect(importedText).not.toContain('Keep alpha');
    expect(importedIds[0]).toMatch(/:grown-user-1$/);
  }, 90_000);
});
