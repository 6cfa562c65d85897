/**
 * A queue file memory set aside (not written by this user), through the real pi host: pi is
 * told at start, in words that name what works in pi (no CLI is on its PATH), and doing what
 * they say (quit, the file moved back, pi started again) delivers its job.
 */
import { readdirSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/embeddedServer.js';
import { forgedJournal } from '../../helpers/forgedJournal.js';
import { usePiHost } from '../../helpers/piHostSuite.js';
import { waitUntil } from '../../helpers/waitUntil.js';
import { hostLine } from './hostLine.js';
import { makeProject, openHostSession } from './piSdk.js';

describe(`pi ${hostLine.version}: a set-aside queue file`, () => {
  const suite = usePiHost();

  it('pi says to quit, move it back and start again, and that delivers it', async () => {
    const project = await makeProject(suite.server.url);
    const memoryDir = path.join(project.cwd, '.pi', 'memory');
    mkdirSync(memoryDir, { recursive: true });
    writeFileSync(path.join(memoryDir, 'retain-queue.jsonl'), forgedJournal({ jobId: '1f0a0e5c-0000-4000-8000-0000000000a1', content: 'The lint job runs on every push to main.', bankId: 'host-test', tags: ['source:pi'] }));
    const held = async (): Promise<string> => JSON.stringify((await call(suite.server, 'GET', '/v1/default/banks/host-test/memories/list?limit=1000')).body);
    const host = await openHostSession(project, suite.faux);
    let aside = '';
    try {
      const runtime = host.holder.runtime!;
      aside = readdirSync(memoryDir).find((f) => f.startsWith('retain-queue.untrusted-')) ?? '';
      expect(aside).not.toBe('');
      const notice = runtime.status().problems.find((p) => p.includes(aside)) ?? '';
      expect(notice).toMatch(/quit pi, move it back \(retain-queue\.jsonl or retain-queue\.dead\.jsonl\) and start pi again in this project: its first session delivers it$/);
      expect(notice).not.toContain('agent-memory flush');
      // Said where a person reads it: a notice at the session's start.
      expect(host.ui.notifications.some((n) => n.level === 'warning' && n.text.includes(aside) && n.text.includes('start pi again'))).toBe(true);
      expect(await held()).not.toContain('lint job');
    } finally {
      await host.close();
    }
    renameSync(path.join(memoryDir, aside), path.join(memoryDir, 'retain-queue.jsonl'));
    const again = await openHostSession(project, suite.faux);
    try {
      await waitUntil(async () => (await held()).includes('lint job'), 10_000, 'the job taken back on the server');
      expect(readdirSync(memoryDir).filter((f) => f.includes('untrusted'))).toEqual([]);
      expect(again.ui.notifications.some((n) => n.text.includes('did not write'))).toBe(false);
    } finally {
      await again.close();
    }
  }, 60_000);
});
