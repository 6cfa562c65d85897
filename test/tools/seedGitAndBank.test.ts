import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectTagKey } from '../../src/config/projectId.js';
import { CODING_BANK, PROJECT_TAG, commit, git, startHarness, type Harness } from './harness.js';

describe('memory_seed_git on a real repository', () => {
  let h: Harness;
  let receiptPath: string;
  beforeAll(async () => {
    h = await startHarness({ queueMode: 'coalesced' });
    receiptPath = path.join(h.stateDir, 'memory', 'git-seed-receipt.json');
    commit(h.cwd, 'Parser: reject tabs in identifiers');
    git(h.cwd, 'checkout', '-q', '-b', 'side');
    commit(h.cwd, 'Side work');
    git(h.cwd, 'checkout', '-q', 'main');
    git(h.cwd, 'merge', '-q', '--no-ff', '-m', 'Merge side', 'side');
  });
  afterAll(async () => h.close());

  it('status reports git_seed_missing before any seed', async () => {
    const status = await h.ok('memory_status', {});
    expect((status.details as { sync: { reasons: string[] } }).sync.reasons).toContain('git_seed_missing');
    // The person reads words, not the reason code.
    expect(status.text).toContain('Sync: git history not imported yet (ask the agent to run memory_seed_git)');
    expect(status.text).not.toContain('git_seed_missing');
  });

  it('previews by default: no queue line, no receipt', async () => {
    const head = git(h.cwd, 'rev-parse', 'HEAD');
    const preview = await h.ok('memory_seed_git', {});
    expect(preview.details).toMatchObject({ dryRun: true, documentId: `pi-gitlog:${projectTagKey(PROJECT_TAG)}:${head.slice(0, 12)}`, commitCount: 4, headSha: head, bankId: CODING_BANK });
    expect(preview.text).toContain('Parser: reject tabs in identifiers');
    expect(preview.text).not.toContain('Merge side');
    expect(existsSync(receiptPath)).toBe(false);
    expect(h.queue.status().depth).toBe(0);
  });

  it('dryRun:false queues, flushes, writes the receipt, and the seed is recallable', async () => {
    const head = git(h.cwd, 'rev-parse', 'HEAD');
    const seeded = await h.ok('memory_seed_git', { dryRun: false, limit: 3 });
    expect(seeded.text).toContain('delivered');
    expect(seeded.details).toMatchObject({ dryRun: false, commitCount: 3, queued: true });
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8')) as Record<string, unknown>;
    expect(receipt).toMatchObject({ bankId: CODING_BANK, documentId: `pi-gitlog:${projectTagKey(PROJECT_TAG)}:${head.slice(0, 12)}`, headSha: head, commitCount: 3 });
    const recalled = await h.ok('memory_recall', { query: 'git commit message history parser tabs identifiers', tags: ['strategy:gitlog'] });
    expect(recalled.text).toContain('Parser: reject tabs in identifiers');
    const status = await h.ok('memory_status', {});
    const sync = (status.details as { sync: { reasons: string[]; gitSeed: { headMatches: boolean } } }).sync;
    expect(sync.reasons).not.toContain('git_seed_missing');
    expect(sync.gitSeed.headMatches).toBe(true);
  });

  it('a new commit makes the seed stale', async () => {
    commit(h.cwd, 'Another change');
    const status = await h.ok('memory_status', {});
    expect((status.details as { sync: { reasons: string[] } }).sync.reasons).toContain('git_seed_stale');
  });

  it('a damaged receipt is reported by field, and counts as missing', async () => {
    const saved = readFileSync(receiptPath, 'utf8');
    writeFileSync(receiptPath, '{"headSha": 5}');
    const status = await h.ok('memory_status', {});
    const d = status.details as { sync: { reasons: string[] }; problems: string[] };
    expect(d.sync.reasons).toContain('git_seed_missing');
    expect(d.problems.join('\n')).toMatch(/git seed receipt unreadable .*field headSha/);
    writeFileSync(receiptPath, saved);
  });

  it('flush:false queues without delivering', async () => {
    const seeded = await h.ok('memory_seed_git', { dryRun: false, flush: false });
    expect(seeded.details).toMatchObject({ flushed: false, queued: true });
    expect(h.queue.status().depth).toBe(1);
    await h.queue.flush({ deadline: Date.now() + 5000 });
  });
});

describe('memory_seed_git outside a repository', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ git: false });
  });
  afterAll(async () => h.close());

  it('says there is no repository and queues nothing', async () => {
    const error = await h.fails('memory_seed_git', { dryRun: false });
    expect(error.message).toContain('Not a git repository');
    expect(h.queue.status().depth).toBe(0);
    const status = await h.ok('memory_status', {});
    expect((status.details as { sync: { reasons: string[] } }).sync.reasons).not.toContain('git_seed_missing');
  });
});

describe('memory_bank', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ queueMode: 'coalesced' });
  });
  afterAll(async () => h.close());

  it('get reports a missing bank from the bank list, then an existing one with stats and config', async () => {
    const missing = await h.ok('memory_bank', { action: 'get' });
    expect(missing.details).toMatchObject({ bankId: CODING_BANK, exists: false });
    await h.ok('memory_retain', { content: 'Bank exists now.', context: 'setup' });
    const present = await h.ok('memory_bank', { action: 'get', bank: 'project' });
    expect(present.details).toMatchObject({ exists: true, stats: { state: 'present' }, config: { state: 'present' } });
    expect(present.text).toContain(`Bank ${CODING_BANK}: exists`);
  });

  it('update_mission previews, refuses a bank that does not exist, and applies', async () => {
    const preview = await h.ok('memory_bank', { action: 'update_mission', retainMission: 'Keep settled technical decisions only.' });
    expect(preview.details).toMatchObject({ dryRun: true, wouldUpdate: { retain_mission: 'Keep settled technical decisions only.' } });
    // The coding bank is shared by every project: only a project the person trusts changes its
    // missions (test/security/sharedMissions.test.ts).
    writeFileSync(path.join(h.home, '.pi', 'agent', 'memory.json'), JSON.stringify({ memory: { trustedProjects: [h.cwd] } }));
    const typo = await h.fails('memory_bank', { action: 'update_mission', bank: 'codign-bank', reflectMission: 'x', dryRun: false });
    expect(typo.message).toContain('does not exist');
    const none = await h.fails('memory_bank', { action: 'update_mission', dryRun: false });
    expect(none.message).toContain('Provide at least one of retainMission, reflectMission, observationsMission');
    await h.ok('memory_bank', { action: 'update_mission', retainMission: 'Keep settled technical decisions only.', dryRun: false });
    const after = await h.ok('memory_bank', { action: 'get' });
    expect(JSON.stringify(after.details)).toContain('Keep settled technical decisions only.');
  });

  it('aliases: user without a user bank is a clear error', async () => {
    const error = await h.fails('memory_bank', { action: 'get', bank: 'user' });
    expect(error.code).toBe('notConfigured');
    expect(error.field).toBe('bank');
  });
});

describe('memory_bank against a 0.10 server (profile retired)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ mimic: '0.10' });
    await h.ok('memory_retain', { content: 'Something.', context: 'x' });
  });
  afterAll(async () => h.close());

  it('treats 410 Gone on the profile as an answer, not a failure', async () => {
    const got = await h.ok('memory_bank', { action: 'get' });
    expect(got.details).toMatchObject({ exists: true, profile: { state: 'absent' } });
    expect(got.text).toContain('retired by the server (410 Gone); not an error');
  });
});
