/**
 * The hand-off log never glues a record onto a torn line (a full disk, a writer killed
 * mid-line): the fragment stays a damaged line of its own and every record reads back.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRetainLog } from '../../../src/adapters/queue/handoffLog.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const job = (content: string) => ({ bankId: 'b', documentId: 'd', updateMode: 'append' as const, item: { content } });

describe('hand-off log after a torn line', () => {
  it('a job line and a done line written after a fragment both read back; the fragment is counted, not glued', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'am-handoff-'));
    dirs.push(dir);
    const log = openRetainLog(dir);
    log.handOffSync({ key: 'k1', sessionId: 's', fingerprints: ['f1'], jobs: [job('one')] }, 1);
    // A write that stopped mid-line.
    appendFileSync(log.handoffPath, '{"v":1,"kind":"job","key":"k-torn","sessio');
    log.markDone('k1');
    appendFileSync(log.handoffPath, '{"v":1,"kind":"do');
    log.handOffSync({ key: 'k2', sessionId: 's', fingerprints: ['f2'], jobs: [job('two')] }, 2);

    const lines = readFileSync(log.handoffPath, 'utf8').split('\n');
    expect(lines.filter((l) => l.includes('"key":"k1"') && l.includes('"kind":"done"'))).toEqual(['{"v":1,"kind":"done","key":"k1"}']);
    const again = openRetainLog(dir);
    expect(again.damaged).toBe(2);
    expect(again.pending().map((p) => p.key)).toEqual(['k2']);
    expect([...again.seen('s')].sort()).toEqual(['f1', 'f2']);
  });
});
