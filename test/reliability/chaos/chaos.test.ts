/**
 * The short chaos run of the normal suite: 4 real `pi -p` processes for 45 s or more on one
 * project, the server SIGKILLed and restarted, pi processes SIGKILLed, a wrong key fixed, a
 * full disk, a read-only state dir and jumped clocks (harness.ts). Every acknowledged turn is
 * on the server, and no turn is there twice. `npm run test:chaos` is the long run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { hostLine } from '../../hosts/pi/hostLine.js';
import { runChaos } from './harness.js';
import { chaosOptions, parseFlags } from './options.js';
import { piRuntime } from './piRuntime.js';

describe(`chaos: concurrent pi ${hostLine.version} processes, a flapping server and disk, key and clock faults`, () => {
  // Runs when the test times out too, where the run's own clean-up never does: without it the
  // server and pi processes went on and the state dir's tmpfs stayed mounted.
  let teardown: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await teardown?.();
  }, 60_000);

  it('loses no acknowledged turn and delivers none twice', async () => {
    // 45 s of turns, or more until the run has exercised what it asserts below (a loaded
    // machine makes every turn slow): every fault window once, then the targets, at most 200 s.
    const targets = { acknowledged: 10, piKills: 3, serverKills: 5 };
    const options = chaosOptions(parseFlags([]), piRuntime(hostLine.version), { processes: 4, durationMs: 45_000, cycleMs: 45_000, targets, maxDurationMs: 200_000 });
    const lines: string[] = [];
    const result = await runChaos(options, (line) => lines.push(line), undefined, (t) => (teardown = t));
    console.log(lines.join('\n'));
    // The run must have exercised what it claims, or a zero means nothing.
    expect(result.serverKills).toBeGreaterThanOrEqual(targets.serverKills);
    expect(result.piKills).toBeGreaterThanOrEqual(targets.piKills);
    expect(result.acknowledged).toBeGreaterThanOrEqual(targets.acknowledged);
    expect(Object.values(result.faultWindows).filter((n) => n > 0).length).toBeGreaterThanOrEqual(result.faultsNotDone.length > 0 ? 3 : 4);
    expect(result.lostMarkers, `acknowledged but not on the server (seed ${result.seed})`).toEqual([]);
    expect(result.duplicatedMarkers, `on the server more than once: [marker, copies] (seed ${result.seed})`).toEqual([]);
    expect(result.lost).toBe(0);
    expect(result.duplicated).toBe(0);
  }, 420_000);
});
