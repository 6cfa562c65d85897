/**
 * A person moves a set-aside queue file back (`retain-queue.untrusted-….jsonl`, docs/queue.md)
 * while a host process is running on the project, with turns of its own still queued (the
 * server is away). Real processes: the host is `test/helpers/runtimeChild.ts` (what pi does
 * with memory, without the model), the file moved back by rename, as `mv` does.
 */
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOnlyJournal } from '../../src/adapters/queue/readJournal.js';
import { foldQueueJournal } from '../../src/effects/retainDelivery/inspect.js';
import { pendingJobs } from '../../src/machines/retainDelivery/context.js';
import { forgedJournal } from '../helpers/forgedJournal.js';
import { bundleChild, startQueueChild } from './support/childRunner.js';
import { tempQueueDir } from './support/queueFixtures.js';

const BANK = 'moved-back';
let hostScript: string;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  hostScript = await bundleChild('runtimeChild');
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Every pending job's content in the journal at `queuePath`, by the fold a start-up does. */
const pendingContents = async (queuePath: string): Promise<string[]> => {
  const { snapshot } = await foldQueueJournal(readOnlyJournal(queuePath), 'immediate');
  return pendingJobs(snapshot.context).map((job) => job.item.content);
};

describe('a set-aside queue file moved back while a host process runs', () => {
  it("keeps the running process's queued turns and the moved-back job", async () => {
    const tmp = await tempQueueDir();
    cleanups.push(tmp.dispose);
    const project = path.join(tmp.dir, 'project');
    const home = path.join(tmp.dir, 'home');
    const memoryDir = path.join(project, '.pi', 'memory');
    await mkdir(memoryDir, { recursive: true });
    await mkdir(path.join(home, '.pi', 'agent'), { recursive: true });
    // Nothing listens on port 9: every turn stays queued.
    await writeFile(path.join(home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { baseUrl: 'http://127.0.0.1:9', trustedOrigins: ['http://127.0.0.1:9'] } }));
    await writeFile(path.join(project, '.pi', 'memory.json'), JSON.stringify({ banks: { project: { bankId: BANK } }, scope: { projectId: BANK } }));
    // A queue without this user's mark (an earlier version's, say): set aside at the host's start.
    await writeFile(path.join(memoryDir, 'retain-queue.jsonl'), forgedJournal({ jobId: '1f0a0e5c-0000-4000-8000-0000000000a1', content: 'The staging database listens on port 5433.', bankId: BANK, tags: [] }));

    const child = startQueueChild(hostScript, { PROJECT: project, HOME: home, SESSION: 'moved-back', START: '1', TURNS: '2', PAUSE_MS: '1500' });
    cleanups.push(() => child.kill());
    expect(await child.waitFor(/^settled 1 /), child.lines.join('\n')).toBe(true);
    const aside = (await readdir(memoryDir)).filter((f) => f.startsWith('retain-queue.untrusted-'));
    expect(aside).toHaveLength(1);
    expect(await pendingContents(path.join(memoryDir, 'retain-queue.jsonl'))).toEqual([expect.stringContaining('MK1')]);
    // What the notice said to do, done while the host runs.
    await rename(path.join(memoryDir, aside[0] ?? ''), path.join(memoryDir, 'retain-queue.jsonl'));
    const exit = await child.exited;
    expect(exit.code, child.lines.join('\n')).toBe(0);
    expect(child.acked).toEqual([1, 2]);

    const pending = await pendingContents(path.join(memoryDir, 'retain-queue.jsonl'));
    expect(pending.filter((c) => c.includes('MK1')), pending.join('\n')).toHaveLength(1);
    expect(pending.filter((c) => c.includes('MK2')), pending.join('\n')).toHaveLength(1);
    expect(pending.filter((c) => c.includes('port 5433')), pending.join('\n')).toHaveLength(1);
  }, 60_000);
});
