/**
 * The chaos run (issue 11): N concurrent real `pi -p` processes on one project for a bounded
 * time, each turn answered with a unique marker; the memory server (a child process) SIGKILLed
 * and restarted at random; pi processes SIGKILLed at random around the usual end of a turn;
 * windows of a wrong API key (fixed when the window ends), a full disk, a read-only state dir
 * and jumped clocks. Then every fault is lifted, one clean pi turn runs, `agent-memory flush`
 * delivers what is left, and each marker is counted on the server.
 *
 * Acknowledged means: pi exited 0 (the run ended, agent_end and the extension's shutdown ran)
 * and the extension told the person nothing of the turn being lost (`toldNotRetained`): a
 * notice that memory could not start, or any other warning, leaves the turn acknowledged. A SIGKILLed turn is never acknowledged,
 * though it may well be delivered (its queue record may have been made durable before the kill).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.js';
import { chaosTable, type ChaosResult, type FaultKind } from './chaosTable.js';
import { CHAOS_BANK, makeChaosProject, PI_KEY_ENV, repoRoot } from './chaosProject.js';
import type { ChaosOptions } from './options.js';
import { markerText, runPiTurn, toldNotRetained, type PiTurnOutcome, type PiTurnSetup } from './piTurn.js';
import { markersOnServer, stuckParents, waitForOperations } from './serverMarkers.js';
import { bundleServeChild, freePort, superviseServer } from './serverSupervisor.js';
import { openStateDisk } from './stateDisk.js';
import { seededRandom } from '../../../src/server/syntheticCorpus.js';

/** Where each fault window sits in a cycle, as fractions of the cycle. */
const WINDOWS: readonly { readonly kind: FaultKind; readonly from: number; readonly to: number }[] = [
  { kind: 'wrongKey', from: 0.1, to: 0.22 },
  { kind: 'diskFull', from: 0.3, to: 0.4 },
  { kind: 'readOnly', from: 0.5, to: 0.6 },
  { kind: 'clockJump', from: 0.7, to: 0.82 },
];

/**
 * `stop` (e.g. on Ctrl-C) ends the run early: no new turns, then the usual flush, count and
 * clean-up. `onTeardown` is handed, once the run holds anything, what ends it at once: the
 * server and the pi processes killed, the state dir's mounts undone, the project removed. A
 * test calls it from `afterAll`, which runs when the test times out too (the run's own
 * `finally` never does then: its promise is left pending).
 */
export const runChaos = async (
  options: ChaosOptions,
  log: (line: string) => void = () => undefined,
  stop?: AbortSignal,
  onTeardown?: (teardown: () => Promise<void>) => void,
): Promise<ChaosResult> => {
  // Seeded, so a run's schedule can be replayed from its seed.
  const random = seededRandom(options.seed);
  const between = (lo: number, hi: number): number => lo + random() * (hi - lo);
  const serverKey = randomBytes(16).toString('hex');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  log(`chaos: ${options.processes} pi ${options.pi.version} processes on Node ${options.pi.nodeVersion}, ${options.durationMs / 1000} s, seed ${options.seed}`);
  const project = await makeChaosProject(url);
  const serveScript = await bundleServeChild(project.root);
  const server = superviseServer(serveScript, { port, dataDir: project.serverData, keyEnv: 'AM_CHAOS_SERVER_KEY', key: serverKey });
  const disk = await openStateDisk(project.stateDir, join(project.root, 'ballast'), 256);
  const live = new Set<ChildProcess>();
  const halt = new AbortController();
  onTeardown?.(async () => {
    halt.abort();
    await server.close().catch(() => undefined);
    for (const child of live) child.kill('SIGKILL');
    await disk.dispose().catch(() => undefined);
    if (process.env['CHAOS_KEEP'] === undefined) await project.dispose().catch(() => undefined);
  });
  const setup: PiTurnSetup = {
    live,
    cli: options.pi.cli,
    node: options.pi.node,
    fauxProvider: join(repoRoot, 'fixtures/pi/faux-provider.ts'),
    extension: project.extension,
    cwd: project.cwd,
    home: project.home,
    agentDir: project.agentDir,
    clockPreload: join(import.meta.dirname, 'clockJump.mjs'),
  };
  const active = new Set<FaultKind>();
  const windowsOpened: Record<FaultKind, number> = { wrongKey: 0, diskFull: 0, readOnly: 0, clockJump: 0 };
  const faultsNotDone: string[] = [];
  if (disk.kind !== 'tmpfs') faultsNotDone.push('disk full: needs root to mount a tmpfs over the state dir; the read-only window is a chmod');
  const outcomes: PiTurnOutcome[] = [];
  /** When each fault window opened and closed, to say which faults a lost turn lived through. */
  const timeline: { readonly kind: FaultKind; readonly on: boolean; readonly at: number }[] = [];
  const faultsDuring = (o: PiTurnOutcome): FaultKind[] => {
    const from = o.startedAt;
    const to = o.startedAt + o.ms;
    return WINDOWS.map((w) => w.kind).filter((kind) => {
      let on = false;
      for (const event of timeline) {
        if (event.kind !== kind) continue;
        if (event.at > to) break;
        if (event.on) on = true;
        else if (event.at >= from) return true;
        else on = false;
      }
      return on;
    });
  };
  let nextMarker = 1;
  // How long a turn usually takes, so kills land around its end (agent_end, its queue write, the
  // shutdown flush) rather than all in pi's start-up. The median of recent finished turns; until
  // three have finished, a guess that grows with every kill, so a loaded machine where every
  // turn is slower than the guess does not end up killing them all.
  const durations: number[] = [];
  let guessMs = 5_000;
  const typicalMs = (): number => {
    if (durations.length < 3) return guessMs;
    const recent = durations.slice(-20).sort((a, b) => a - b);
    return recent[Math.floor(recent.length / 2)] ?? guessMs;
  };

  const setFault = async (kind: FaultKind, on: boolean): Promise<void> => {
    if (on === active.has(kind)) return;
    if (kind === 'diskFull') await (on ? disk.fillUp() : disk.freeUp());
    if (kind === 'readOnly') await (on ? disk.readOnly() : disk.writable());
    timeline.push({ kind, on, at: Date.now() });
    if (on) {
      active.add(kind);
      windowsOpened[kind] += 1;
    } else active.delete(kind);
    log(`chaos: ${kind} ${on ? 'on' : 'off'}`);
  };

  const started = Date.now();
  let end = started + options.durationMs;
  const latest = started + Math.max(options.durationMs, options.maxDurationMs ?? options.durationMs);
  const targetsMet = (): boolean => {
    const t = options.targets;
    if (t === undefined) return true;
    const piKills = outcomes.filter((o) => o.killed && o.signal === 'SIGKILL').length;
    const acked = outcomes.filter((o) => o.code === 0 && !toldNotRetained(o.stderr)).length;
    return acked >= t.acknowledged && piKills >= t.piKills && server.kills() >= t.serverKills;
  };
  let stopped = false;
  /** Whether turns are still started: the duration asked, then until the targets are met. */
  const running = (): boolean => {
    if (Date.now() < end) return true;
    if (stopped || end >= latest || targetsMet()) return false;
    // One more cycle of fault windows (the fault loop reads `end` as it goes).
    end = Math.min(latest, end + options.cycleMs);
    log(`chaos: targets not met yet, running on to ${Math.round((end - started) / 1000)} s`);
    return true;
  };
  const wake = new Set<() => void>();
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        wake.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      wake.add(done);
    });
  const stopEarly = (why: string): void => {
    log(`chaos: ${why}`);
    stopped = true;
    end = Math.min(end, Date.now());
    for (const done of [...wake]) done();
  };
  stop?.addEventListener('abort', () => stopEarly('stopping early'));
  if (halt.signal.aborted) stopEarly('torn down');
  else halt.signal.addEventListener('abort', () => stopEarly('torn down'));
  try {
    await server.start();
    const worker = async (): Promise<void> => {
      while (running()) {
        const marker = nextMarker;
        nextMarker += 1;
        const typical = typicalMs();
        const kill = random() < options.piKillRatio;
        const outcome = await runPiTurn(setup, {
          marker,
          env: { [PI_KEY_ENV]: active.has('wrongKey') ? 'wrong-key-for-the-chaos-run' : serverKey },
          ...(kill ? { killAfterMs: Math.round(between(0.3, 1.3) * typical) } : {}),
          ...(active.has('clockJump') ? { clockJump: `${Math.round(between(0, typical))}:${(random() < 0.5 ? -1 : 1) * Math.round(between(60_000, 3 * 3_600_000))}` } : {}),
          guardMs: 120_000,
        });
        outcomes.push(outcome);
        if (outcome.code === 0) durations.push(outcome.ms);
        else if (outcome.killed) guessMs = Math.max(guessMs, outcome.ms * 1.5);
      }
    };
    const flapper = async (): Promise<void> => {
      while (running()) {
        await sleep(between(...options.serverUpMs));
        if (!running()) break;
        await server.kill();
        await sleep(between(...options.serverDownMs));
        await server.start();
      }
    };
    const faults = async (): Promise<void> => {
      for (let cycleStart = started; ; cycleStart += options.cycleMs) {
        for (const w of WINDOWS) {
          if (w.kind === 'diskFull' && disk.kind !== 'tmpfs') continue;
          const from = cycleStart + w.from * options.cycleMs;
          // Wait for the window, unless the run ends first.
          while (Date.now() < from) {
            if (!running()) return;
            await sleep(Math.min(1_000, from - Date.now()));
          }
          if (!running()) return;
          await setFault(w.kind, true);
          await sleep(Math.min(end, cycleStart + w.to * options.cycleMs) - Date.now());
          await setFault(w.kind, false);
        }
      }
    };
    // A progress line a minute, for the long run.
    const ticker = setInterval(() => {
      const piKills = outcomes.filter((o) => o.killed && o.signal === 'SIGKILL').length;
      log(`chaos: ${Math.round((Date.now() - started) / 1000)} s: ${outcomes.length} turns, ${server.kills()} server kills, ${piKills} pi kills, faults now [${[...active].join(', ')}]`);
    }, 60_000);
    try {
      await Promise.all([...Array.from({ length: options.processes }, worker), flapper(), faults()]);
    } finally {
      clearInterval(ticker);
    }
  } finally {
    for (const kind of [...active]) await setFault(kind, false).catch(() => undefined);
  }
  // How long turns were started for: the duration asked, or less when stopped early.
  const ranMs = Math.min(Date.now(), end) - started;

  // The survivors flush: a clean server, one clean pi turn, then `agent-memory flush`.
  let result: ChaosResult;
  try {
    await server.start();
    const finalMarker = nextMarker;
    nextMarker += 1;
    const final = await runPiTurn(setup, { marker: finalMarker, env: { [PI_KEY_ENV]: serverKey }, guardMs: 120_000 });
    outcomes.push(final);
    const flush = await runCli(['flush', '--timeout-ms', '60000'], {
      cwd: project.cwd,
      env: { HOME: project.home, PI_CODING_AGENT_DIR: project.agentDir, [PI_KEY_ENV]: serverKey },
    });
    // The progress bar's lines say little; the summary and the reason say what is left and why.
    const flushText = (flush.stdout + flush.stderr).split(/[\r\n]+/).filter((l) => l.trim() !== '' && !l.startsWith('delivering ['));
    const flushLine = `exit ${flush.code}: ${flushText.join(' / ')}`;
    log(`chaos: final turn exit ${final.code}; flush ${flushLine}`);
    if (process.env['CHAOS_KEEP'] !== undefined) await writeFile(join(project.root, 'turns.jsonl'), outcomes.map((o) => JSON.stringify(o)).join('\n'));
    const pendingOps = await waitForOperations(url, serverKey, CHAOS_BANK, 60_000);
    const pendingParents = (await stuckParents(url, serverKey, CHAOS_BANK)) - pendingOps;
    if (pendingOps > 0) log(`chaos: the server still has ${pendingOps} pending retain operations after 60 s`);
    if (pendingParents > 0) log(`chaos: the server has ${pendingParents} batch parent operations stuck in pending (their sub-batches finished)`);
    const counts = await markersOnServer(url, serverKey, CHAOS_BANK);

    const acked = outcomes.filter((o) => o.code === 0 && !toldNotRetained(o.stderr));
    const lost = acked.filter((o) => (counts.get(o.marker) ?? 0) === 0).map((o) => o.marker);
    const twice = [...counts].filter(([, c]) => c > 1);
    result = {
      at: new Date().toISOString(),
      node: options.pi.nodeVersion,
      pi: options.pi.version,
      seed: options.seed,
      processes: options.processes,
      durationS: Math.round(ranMs / 1000),
      turns: outcomes.length,
      serverKills: server.kills(),
      piKills: outcomes.filter((o) => o.killed && o.signal === 'SIGKILL').length,
      faultWindows: windowsOpened,
      faultsNotDone,
      acknowledged: acked.length,
      delivered: counts.size,
      lost: lost.length,
      duplicated: twice.length,
      extraCopies: twice.reduce((sum, [, c]) => sum + c - 1, 0),
      reportedNotRetained: outcomes.filter((o) => o.code === 0 && toldNotRetained(o.stderr)).length,
      piErrors: outcomes.filter((o) => o.code !== 0 && !o.killed && !o.hung).length,
      piHung: outcomes.filter((o) => o.hung).length,
      finalFlush: flushLine,
      serverPendingOperations: pendingOps,
      serverStuckParentOperations: pendingParents,
      lostMarkers: lost.slice(0, 20),
      lostDetails: acked
        .filter((o) => (counts.get(o.marker) ?? 0) === 0)
        .slice(0, 20)
        .map((o) => ({
          marker: o.marker,
          startedS: Math.round((o.startedAt - started) / 100) / 10,
          ms: o.ms,
          faults: faultsDuring(o),
          serverKills: server.killTimes().filter((t) => t >= o.startedAt && t <= o.startedAt + o.ms).length,
        })),
      duplicatedMarkers: twice.slice(0, 20),
    };
    const strays = [...counts.keys()].filter((n) => n >= nextMarker);
    if (strays.length > 0) throw new Error(`markers on the server that no turn carried: ${strays.join(', ')} (${markerText(0)} format clash?)`);
    const errors = outcomes.filter((o) => o.code !== 0 && !o.killed && !o.hung).slice(0, 3);
    for (const o of errors) log(`chaos: pi turn ${o.marker} exited ${o.code ?? o.signal}: ${o.stderr.trim().slice(-400)}`);
    log(chaosTable(result));
  } finally {
    await server.stop().catch(() => undefined);
    const keep = process.env['CHAOS_KEEP'] !== undefined;
    // The state dir is a tmpfs: copy it out before the unmount when the run is kept for a look.
    if (keep) await cp(project.stateDir, join(project.root, 'state-copy'), { recursive: true }).catch(() => undefined);
    await disk.dispose();
    if (keep) log(`chaos: kept ${project.root} (state dir copied to state-copy)`);
    else await project.dispose();
  }
  return result;
};
