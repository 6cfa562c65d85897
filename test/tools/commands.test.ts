import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandCatalogue, doctorCommand, memoryHubCommand, nextOptOutCommand, type SessionMode } from '../../src/tools/commands/index.js';
import type { ToolRetainQueue } from '../../src/effects/ports/toolQueue.js';
import { startHarness, USER_BANK, type Harness } from './harness.js';

const KEY = 'sk-proj-doctorsecretvalue0123456789';

describe('slash commands', () => {
  let h: Harness;
  const calls: string[] = [];
  const control = {
    skipNextRetain: () => {
      calls.push('skip');
    },
    setMode: (mode: SessionMode) => {
      calls.push(`mode:${mode}`);
    },
  };
  beforeAll(async () => {
    h = await startHarness({ env: { MEMORY_API_KEY: KEY }, user: { banks: { global: { enabled: true, bankId: USER_BANK } } }, queueMode: 'coalesced' });
  });
  afterAll(async () => h.close());
  const ctx = async () => ({ tools: await h.context(), control });

  it('the catalogue has the three contract commands', () => {
    expect(commandCatalogue.map((c) => c.name)).toEqual(['memory', 'memory:next-opt-out', 'memory:doctor']);
  });

  it('/memory shows status and the actions', async () => {
    const report = await memoryHubCommand(await ctx(), '');
    expect(report.text).toContain('Coding bank: coding-bank');
    expect(report.text).toContain('/memory flush');
    expect(report.text).toContain('/memory next-opt-out');
    expect(report.level).toBe('info');
  });

  it('/memory:next-opt-out asks the session to skip the next retain', async () => {
    const report = await nextOptOutCommand(await ctx());
    expect(report.text).toBe('Memory will not save the next run of this session (the footer says memory: skip next until it ends).');
    expect(calls).toContain('skip');
    const noHost = await nextOptOutCommand({ tools: await h.context() });
    expect(noHost.level).toBe('error');
    // Degraded, the footer has no room for "skip next" (sixth pass, pi 1.6): the text says where it shows.
    const base = await ctx();
    const degraded = await nextOptOutCommand({ ...base, tools: { ...base.tools, status: () => ({ setup: { state: 'degraded' } }) } });
    expect(degraded.text).toBe(`Memory will not save the next run of this session (until it ends, /memory status says "next run skipped"; the footer shows memory's state first).`);
  });

  it('/memory mode changes the session mode and refuses a bad one', async () => {
    expect((await memoryHubCommand(await ctx(), 'mode read-only')).text).toBe('Session memory mode: read-only');
    expect(calls).toContain('mode:read-only');
    expect((await memoryHubCommand(await ctx(), 'mode loud')).level).toBe('error');
  });

  it('/memory flush delivers the queue and reports counts', async () => {
    // Through the tools' queue port, which takes plain strings (the queue decodes them).
    const queue: ToolRetainQueue = h.queue;
    await queue.enqueue([{ bankId: 'coding-bank', documentId: 'doc-flush', updateMode: 'append', item: { content: 'flush me', document_id: 'doc-flush', update_mode: 'append' } }]);
    const report = await memoryHubCommand(await ctx(), 'flush');
    expect(report.text).toMatch(/^Memory flushed 1; dead-lettered 0; remaining 0/);
    expect(report.level).toBe('info');
    // Again, with nothing left: said as such, not as counts of nothing.
    expect((await memoryHubCommand(await ctx(), 'flush')).text).toBe('Nothing was queued: every memory is delivered.');
  });

  it('/memory models lists mental models; unknown actions show the menu', async () => {
    expect((await memoryHubCommand(await ctx(), 'models')).text).toContain('No mental models');
    const unknown = await memoryHubCommand(await ctx(), 'dance');
    expect(unknown.level).toBe('error');
    expect(unknown.text).toContain('Unknown action for /memory: "dance"');
  });

  it('/memory import runs the host importer as a dry run unless apply, and says when none is wired', async () => {
    const runs: boolean[] = [];
    const importer = {
      importSessions: async ({ dryRun }: { dryRun: boolean }) => {
        runs.push(dryRun);
        return { text: `2 sessions, 5 documents${dryRun ? ' (preview)' : ' imported'}`, details: { documents: 5 } };
      },
    };
    const preview = await memoryHubCommand({ ...(await ctx()), importer }, 'import');
    expect(preview.text).toContain('This was a dry run; nothing was imported');
    const applied = await memoryHubCommand({ ...(await ctx()), importer }, 'import apply');
    expect(applied.text).toBe('2 sessions, 5 documents imported');
    expect(runs).toEqual([true, false]);
    const none = await memoryHubCommand(await ctx(), 'import');
    expect(none.level).toBe('warning');
    expect(none.text).toContain('nothing was imported');
  });

  it('/memory:doctor reports version, floor, key state and routes, never the key', async () => {
    const report = await doctorCommand(await ctx());
    expect(report.text).toMatch(/agent-memory doctor \(agent-memory\/\d+\.\d+\.\d+/);
    expect(report.text).toContain('floor Hindsight 0.8+ with append update_mode support: met');
    expect(report.text).toContain('Authentication: API key set (env var MEMORY_API_KEY)');
    expect(report.text).toContain('recall from bank coding-bank (project), bank user-bank (personal); automatic retain to bank coding-bank (project)');
    expect(report.text).not.toContain(KEY);
    expect(JSON.stringify(report.details)).not.toContain(KEY);
    expect(JSON.stringify(report.details)).not.toContain('flush me');
  });
});

describe('/memory:doctor against servers that fail the floor or are down', () => {
  let legacy: Harness;
  let down: Harness;
  beforeAll(async () => {
    legacy = await startHarness({ mimic: 'legacy-0.7' });
    down = await startHarness({ serverDown: true, project: {} });
  });
  afterAll(async () => {
    await legacy.close();
    await down.close();
  });

  it('names the floor and the remediation on a 0.7 server', async () => {
    const report = await doctorCommand({ tools: await legacy.context() });
    // Below the floor is an error finding: `agent-memory doctor` exits 1 on it.
    expect(report.level).toBe('error');
    expect(report.text).toContain('error: server is below the floor');
    expect(report.text).toContain('NOT met — upgrade the server to 0.8 or later');
    // Said once, on the doctor's own version line: the status field that repeated it is left out.
    expect(report.text).toContain('Server version: 0.7.0 (embedded); floor');
    expect(report.text).not.toContain('! Server version:');
  });

  it('reports the outage, setup required and no key, without hanging', async () => {
    const report = await doctorCommand({ tools: await down.context() });
    expect(report.level).toBe('error');
    expect(report.text).toContain('error: server unreachable at');
    expect(report.text).toMatch(/Server: .* — unreachable/);
    // Once, on the Setup line (the hub's hint and the scope's note said it again).
    expect(report.text).toMatch(/! Setup: setup needed \(.*run \/memory setup in pi/);
    expect(report.text.split('run /memory setup').length - 1).toBe(1);
    expect(report.text).toMatch(/^Authentication: no API key configured$/m);
    const setup = await memoryHubCommand({ tools: await down.context() }, 'setup');
    expect(setup.text).toContain('Bank: not chosen yet.');
    expect(setup.text).toContain('run /memory setup: it asks a few questions');
  });
});
