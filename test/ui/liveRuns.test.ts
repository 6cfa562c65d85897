/**
 * The live runs the inspector streams, over real journal files written by the runtime's own
 * journal writer: each record becomes a step folded through the gate's machine, its payload
 * redacted; a damaged line is a step that says why; a compaction (the file replaced shorter)
 * folds the run again from the start.
 */
import { chmod, chown, mkdir, mkdtemp, rm, symlink, writeFile, appendFile } from 'node:fs/promises';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTraceJournal, runJournalPath } from '../../src/adapters/journal/traceJournal.js';
import { loadConfig } from '../../src/config/load.js';
import { rememberSecretValues } from '../../src/config/redact.js';
import { watchLiveRuns, type LiveRuns, type LiveStep } from '../../src/hosts/ui/liveRuns.js';
import { waitUntil } from '../helpers/waitUntil.js';

const SECRET = 'live-runs-secret-3c9f1a7e5d2b8046';
/** A journal's name stamp as a runtime writes it when it opens the journal (traceFiles.ts). */
const stampNow = (ms = Date.now()): string => new Date(ms).toISOString().replace(/[:.]/g, '-');

let root: string;
let live: LiveRuns | undefined;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'am-live-'));
  await mkdir(path.join(root, 'project', '.pi', 'memory', 'trace'), { recursive: true });
  await mkdir(path.join(root, 'home'), { recursive: true });
  rememberSecretValues([SECRET]);
});
afterAll(async () => {
  live?.close();
  await rm(root, { recursive: true, force: true });
});

describe('live runs', () => {
  it('folds each record of a growing journal into a step, redacted; a damaged line says why; a compaction refolds', async () => {
    const cwd = path.join(root, 'project');
    const loaded = loadConfig({ cwd, home: path.join(root, 'home'), env: {} });
    const dir = path.join(cwd, '.pi', 'memory', 'trace');
    const file = await runJournalPath(dir, 'setup', `${stampNow()}-${process.pid}`);
    const journal = openTraceJournal({ path: file });
    live = watchLiveRuns(loaded);
    const seen: LiveStep[] = [];
    let resets = 0;
    live.subscribe((change) => {
      if ('step' in change) seen.push(change.step);
      else resets += 1;
    });

    const at = Date.parse('2026-11-27T06:00:00Z');
    journal.appendSync([{ type: 'setup.configured', at: '2026-11-27T06:00:00.000Z', payload: { type: 'setup.configured', at, enabled: true, configured: true, banks: [SECRET] } }]);
    await journal.flush();
    await waitUntil(() => seen.length === 1, 5_000, 'the first step');
    expect(seen[0]).toMatchObject({ run: `pi session · pid ${process.pid}`, gate: 'setup', kind: 'transition', from: 'unconfigured', to: 'probing', index: 0 });
    expect(JSON.stringify(seen[0]?.event)).not.toContain(SECRET);
    expect(JSON.stringify(seen[0]?.event)).toContain('[REDACTED]');

    journal.appendSync([{ type: 'setup.probe.succeeded', at: '2026-11-27T06:00:01.000Z', payload: { type: 'setup.probe.succeeded', at: at + 1000, apiVersion: '0.9.1', append: true, missingBanks: [] } }]);
    await journal.flush();
    await waitUntil(() => seen.length === 2, 5_000, 'the second step');
    expect(seen[1]).toMatchObject({ from: 'probing', to: 'ready', kind: 'transition' });
    const run = live.runs().find((r) => r.run === `pi session · pid ${process.pid}`);
    expect(run).toMatchObject({ running: true, pid: process.pid, files: [path.basename(file)] });
    expect(run?.steps.length).toBe(2);

    await journal.close();
    await appendFile(file, '{"v":1,"seq":2,"type":"setup.probe.failed"\n');
    await waitUntil(() => seen.length === 3, 5_000, 'the damaged line');
    expect(seen[2]).toMatchObject({ kind: 'rejected', from: 'ready', to: 'ready' });
    expect(seen[2]?.problem).toContain('line 3');

    // Replaced by a shorter file: the run is folded again from its first record.
    const first = `${JSON.stringify({ v: 1, seq: 0, type: 'setup.configured', at: '2026-11-27T06:00:00.000Z', payload: { type: 'setup.configured', at, enabled: true, configured: true, banks: ['b'] }, checksum: '' })}\n`;
    await writeFile(`${file}.tmp`, first);
    await import('node:fs/promises').then(({ rename }) => rename(`${file}.tmp`, file));
    await waitUntil(() => resets === 1 && (live?.runs().find((r) => r.run === `pi session · pid ${process.pid}`)?.steps.length ?? 0) === 1, 5_000, 'the refold');
    expect(live.runs().find((r) => r.run === `pi session · pid ${process.pid}`)?.steps[0]).toMatchObject({ to: 'probing', index: 0 });
  });

  it('a run whose pid now names another process is ended, not running (the kernel reuses pids)', async () => {
    const cwd = path.join(root, 'project-reused');
    const dir = path.join(cwd, '.pi', 'memory', 'trace');
    await mkdir(dir, { recursive: true });
    const loaded = loadConfig({ cwd, home: path.join(root, 'home'), env: {} });
    // The run of an earlier process that had this test's pid: its journal opened a day before this process started.
    const earlier = openTraceJournal({ path: await runJournalPath(dir, 'setup', `${stampNow(Date.now() - 86_400_000)}-${process.pid}`) });
    // A run whose pid is a live process it started as: running.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' });
    const current = openTraceJournal({ path: await runJournalPath(dir, 'session', `${stampNow()}-${child.pid ?? 0}`) });
    const watcher = watchLiveRuns(loaded);
    try {
      const at = Date.now();
      for (const journal of [earlier, current]) {
        journal.appendSync([{ type: 'setup.configured', at: new Date(at).toISOString(), payload: { type: 'setup.configured', at, enabled: true, configured: true, banks: ['b'] } }]);
        await journal.flush();
      }
      await waitUntil(() => watcher.runs().length >= 3, 5_000, 'both runs read');
      expect(watcher.runs().find((r) => r.run === `pi session · pid ${process.pid}`)).toMatchObject({ pid: process.pid, running: false });
      expect(watcher.runs().find((r) => r.run === `pi session · pid ${child.pid ?? 0}`)).toMatchObject({ running: true });
    } finally {
      watcher.close();
      child.kill();
      await earlier.close();
      await current.close();
    }
  });

  it('keeps the runs current with nobody watching, and streams again to the next watcher', async () => {
    const cwd = path.join(root, 'project-idle');
    const dir = path.join(cwd, '.pi', 'memory', 'trace');
    await mkdir(dir, { recursive: true });
    const loaded = loadConfig({ cwd, home: path.join(root, 'home'), env: {} });
    const file = await runJournalPath(dir, 'setup', `${stampNow()}-${process.pid}`);
    const journal = openTraceJournal({ path: file });
    const idle = watchLiveRuns(loaded);
    try {
      const at = Date.parse('2026-11-27T07:00:00Z');
      const stepsOf = (): number => idle.runs().find((r) => r.run === `pi session · pid ${process.pid}`)?.steps.length ?? 0;
      const first: LiveStep[] = [];
      const leave = idle.subscribe((change) => {
        if ('step' in change) first.push(change.step);
      });
      journal.appendSync([{ type: 'setup.configured', at: '2026-11-27T07:00:00.000Z', payload: { type: 'setup.configured', at, enabled: true, configured: true, banks: ['b'] } }]);
      await journal.flush();
      await waitUntil(() => first.length === 1, 5_000, 'the watched step');
      leave();
      // Nobody watching: read at the idle pace, still read.
      journal.appendSync([{ type: 'setup.probe.succeeded', at: '2026-11-27T07:00:01.000Z', payload: { type: 'setup.probe.succeeded', at: at + 1000, apiVersion: '0.9.1', append: true, missingBanks: [] } }]);
      await journal.flush();
      await waitUntil(() => stepsOf() === 2, 5_000, 'the step written while nobody watched');
      expect(first.length).toBe(1);
      const next: LiveStep[] = [];
      idle.subscribe((change) => {
        if ('step' in change) next.push(change.step);
      });
      journal.appendSync([{ type: 'setup.server.lost', at: '2026-11-27T07:00:02.000Z', payload: { type: 'setup.server.lost', at: at + 2000, reason: 'gone', retryAt: at + 32_000 } }]);
      await journal.flush();
      await waitUntil(() => next.length === 1, 5_000, 'the step streamed to the next watcher');
      expect(next[0]).toMatchObject({ from: 'ready', index: 2 });
    } finally {
      idle.close();
      await journal.close();
    }
  });

  it('a journal it cannot read is said on its run, by name, and the runs after it are still read', async () => {
    // The browser's poll stopped at the first file that threw, and said nothing: one browser
    // showed no steps for minutes. A journal another account owns with mode 0600 is one this
    // account cannot read. As root, the probe runs without the capabilities that bypass file
    // modes (setpriv), so the checkout may be private; without setpriv, as nobody.
    const cwd = path.join(root, 'project-unreadable');
    const dir = path.join(cwd, '.pi', 'memory', 'trace');
    await mkdir(dir, { recursive: true, mode: 0o755 });
    for (const d of [root, cwd, path.join(cwd, '.pi'), path.join(cwd, '.pi', 'memory'), dir]) await chmod(d, 0o755);
    const at = Date.now();
    const record = { type: 'setup.configured', at: new Date(at).toISOString(), payload: { type: 'setup.configured', at, enabled: true, configured: true, banks: ['b'] } };
    const theirs = await runJournalPath(dir, 'session', `${stampNow()}-424242`);
    const theirJournal = openTraceJournal({ path: theirs });
    theirJournal.appendSync([record]);
    await theirJournal.close();
    const root0 = process.getuid?.() === 0;
    const setpriv = root0 && spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0;
    if (setpriv) await chown(theirs, 65534, 65534);
    await chmod(theirs, root0 ? 0o600 : 0o000);

    // tsx keeps its cache in the temporary directory: one the other account can write.
    const probeTmp = path.join(root, 'probe-tmp');
    await mkdir(probeTmp, { recursive: true });
    await chmod(probeTmp, 0o1777);
    const probeArgs = [path.resolve('node_modules/tsx/dist/cli.mjs'), path.resolve('test/ui/liveRunsProbe.ts'), cwd, path.join(root, 'home')];
    const dropModeBypass = ['--inh-caps=-dac_override,-dac_read_search', '--bounding-set=-dac_override,-dac_read_search', '--', process.execPath];
    const probe = spawn(setpriv ? 'setpriv' : process.execPath, setpriv ? [...dropModeBypass, ...probeArgs] : probeArgs, {
      stdio: ['pipe', 'pipe', 'inherit'],
      ...(root0 && !setpriv ? { uid: 65534, gid: 65534 } : {}),
      env: { ...process.env, HOME: root, TMPDIR: probeTmp },
    });
    type Seen = { run: string; steps: number; problems: string[] }[];
    let seen: Seen = [];
    createInterface({ input: probe.stdout }).on('line', (line) => {
      seen = JSON.parse(line) as Seen;
    });
    try {
      const theirRun = (): Seen[number] | undefined => seen.find((r) => r.run === 'pi session · pid 424242');
      await waitUntil(() => (theirRun()?.problems.length ?? 0) > 0, 20_000, 'the unreadable journal said');
      // A run that starts after it: its journal is read after the unreadable one at every poll.
      const ours = await runJournalPath(dir, 'session', `${stampNow()}-434343`);
      const journal = openTraceJournal({ path: ours });
      journal.appendSync([record]);
      await journal.close();
      await chmod(ours, 0o644);
      // Readable once its mode is set (a moment before, it is said unreadable, as it is).
      const ourRun = (): Seen[number] | undefined => seen.find((r) => r.run === 'pi session · pid 434343');
      await waitUntil(() => ourRun()?.steps === 1 && ourRun()?.problems.length === 0, 10_000, 'the readable run read');
      const problem = theirRun()?.problems[0] ?? '';
      expect(problem).toContain(path.basename(theirs));
      expect(problem).toMatch(/permission denied.*chown/);
      // The file's name only: the directory (another account's, in the case met) never shows.
      expect(problem).not.toContain(dir);
      expect(theirRun()?.steps).toBe(0);
    } finally {
      probe.stdin.end();
      probe.kill();
    }
  });

  it('a link named as a journal is not followed, and is said on its run', async () => {
    const cwd = path.join(root, 'project-link');
    const dir = path.join(cwd, '.pi', 'memory', 'trace');
    await mkdir(dir, { recursive: true });
    const loaded = loadConfig({ cwd, home: path.join(root, 'home'), env: {} });
    await writeFile(path.join(root, 'elsewhere.jsonl'), '');
    const link = path.join(dir, `session.journal.${stampNow()}-515151.jsonl`);
    await symlink(path.join(root, 'elsewhere.jsonl'), link);
    const watcher = watchLiveRuns(loaded);
    try {
      await waitUntil(() => (watcher.runs().find((r) => r.run === 'pi session · pid 515151')?.problems.length ?? 0) === 1, 5_000, 'the link said');
      expect(watcher.runs().find((r) => r.run === 'pi session · pid 515151')?.problems[0]).toBe(`${path.basename(link)} is a symbolic link, which the memory browser never follows (a cloned repository can commit one); delete it if it is not yours.`);
    } finally {
      watcher.close();
    }
  });
});
