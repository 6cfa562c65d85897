import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODING_BANK, startHarness, type Harness } from './harness.js';

describe('tools with the memory server down', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ serverDown: true });
  });
  afterAll(async () => h.close());

  it('memory_retain queues the memory durably and says so', async () => {
    const result = await h.ok('memory_retain', { content: 'Release branches are cut on Thursdays.', context: 'release process' });
    expect(result.text).toMatch(/^Queued for coding-bank; 1 job\(s\) pending \(.*unreachable/);
    expect(result.details).toMatchObject({ queued: true, sent: false, remaining: 1 });
    expect(readFileSync(h.queuePath, 'utf8')).toContain('Release branches are cut on Thursdays.');
  });

  it('a second retain waits behind the pending job without sending', async () => {
    const result = await h.ok('memory_retain', { content: 'Hotfixes go to the release branch first.', context: 'release process' });
    expect(result.text).toContain('behind 1 older job(s); 2 job(s) pending');
    expect(result.details).toMatchObject({ queued: true, sent: false, remaining: 2 });
  });

  it('memory_recall fails with a clear unreachable error', async () => {
    const error = await h.fails('memory_recall', { query: 'release' });
    expect(error.code).toBe('server');
    expect(error.message).toMatch(/unreachable|offline/);
    expect(error.message).toContain(h.url);
  });

  it('memory_status reports the outage and the pending queue within its probe bound', async () => {
    const status = await h.ok('memory_status', {});
    const d = status.details as { health: string; reachable: boolean | null; sync: { reasons: string[] }; queue: { depth: number } };
    expect(d.health).toMatch(/^unreachable/);
    expect(d.queue.depth).toBe(2);
    expect(d.sync.reasons).toContain('queue_pending');
    expect(status.text).toContain('! Health: unreachable');
  });

  it('once the server is back, the queued memories are delivered and recalled', async () => {
    await h.startServer();
    h.skew(60_000);
    const report = await h.queue.flush({ force: true, deadline: Date.now() + 70_000 });
    expect(report.remaining).toBe(0);
    const recalled = await h.ok('memory_recall', { query: 'release branches Thursdays hotfixes' });
    expect(recalled.text).toContain(`from ${CODING_BANK}`);
    expect(recalled.text).toContain('cut on Thursdays');
    expect(recalled.text).toContain('Hotfixes go to the release branch');
  });
});

describe('tools against server faults', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { MEMORY_API_KEY: 'sk-proj-topsecretkeyvalue123456' } });
  });
  afterAll(async () => h.close());

  it('a 500 on recall is reported with the status and no secret', async () => {
    h.server?.setFaults([{ method: 'POST', path: '*/memories/recall', kind: 'status', status: 500, detail: 'boom', times: 5 }]);
    const error = await h.fails('memory_recall', { query: 'anything' });
    expect(error.code).toBe('server');
    expect(error.message).toContain('500');
    expect(JSON.stringify(error)).not.toContain('topsecretkeyvalue');
    h.server?.setFaults([]);
  });

  it('a retain the server rejects (422) is dead-lettered and the answer says so', async () => {
    h.server?.setFaults([{ method: 'POST', path: '*/memories', kind: 'status', status: 422, detail: 'item rejected by test', times: 1 }]);
    const result = await h.ok('memory_retain', { content: 'Will be rejected.', context: 'fault test' });
    expect(result.text).toContain('did not succeed');
    expect(result.text).toContain('dead-letter');
    expect(result.details).toMatchObject({ deadLettered: 1, remaining: 0 });
    h.server?.setFaults([]);
  });

  it('a 401 pauses delivery; the memory stays queued with the reason', async () => {
    h.server?.setFaults([{ method: 'POST', path: '*/memories', kind: 'status', status: 401, detail: 'bad key', times: 1 }]);
    const result = await h.ok('memory_retain', { content: 'Kept while paused.', context: 'fault test' });
    expect(result.text).toMatch(/^Queued for coding-bank; 1 job\(s\) pending \(.*401/);
    expect(JSON.stringify(result)).not.toContain('topsecretkeyvalue');
    h.server?.setFaults([]);
    await h.queue.resume();
    await h.queue.flush({ deadline: Date.now() + 5000 });
    expect(h.queue.status().depth).toBe(0);
  });

  it('a cancelled call says so and sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const ctx = await h.context({ signal: controller.signal });
    const { findTool } = await import('../../src/tools/catalogue.js');
    const outcome = await findTool('memory_retain')?.run({ content: 'x', context: 'y' }, ctx);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'aborted' } });
    expect(h.queue.status().depth).toBe(0);
  });
});
