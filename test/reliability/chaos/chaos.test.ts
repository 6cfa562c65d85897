/**
 * The short chaos run of the normal suite: 4 real `pi -p` processes for about a minute on one
 * project, the server SIGKILLed and restarted, pi processes SIGKILLed, a wrong key fixed, a
 * full disk, a read-only state dir and jumped clocks (harness.ts). Every acknowledged turn is
 * on the server, and no turn is there twice. `npm run test:chaos` is the long run.
 */
import { describe, expect, it } from 'vitest';
import { hostLine } from '../../hosts/pi/hostLine.js';
import { runChaos } from './harness.js';
import { chaosOptions, parseFlags } from './options.js';
import { piRuntime } from './piRuntime.js';

describe(`chaos: concurrent pi ${hostLine.version} processes, a flapping server and disk, key and clock faults`, () => {
  it('loses no acknowledged turn and delivers none twice', async () => {
    const options = chaosOptions(parseFlags([]), piRuntime(hostLine.version), { processes: 4, durationMs: 75_000, cycleMs: 75_000 });
    const lines: string[] = [];
    const result = await runChaos(options, (line) => lines.push(line));
    console.log(lines.join('\n'));
    // The run must have exercised what it claims, or a zero means nothing.
    expect(result.serverKills).toBeGreaterThanOrEqual(5);
    expect(result.piKills).toBeGreaterThanOrEqual(3);
    expect(result.acknowledged).toBeGreaterThanOrEqual(10);
    expect(Object.values(result.faultWindows).filter((n) => n > 0).length).toBeGreaterThanOrEqual(result.faultsNotDone.length > 0 ? 3 : 4);
    expect(result.lostMarkers, `acknowledged but not on the server (seed ${result.seed})`).toEqual([]);
    expect(result.duplicatedMarkers, `on the server more than once: [marker, copies] (seed ${result.seed})`).toEqual([]);
    expect(result.lost).toBe(0);
    expect(result.duplicated).toBe(0);
  }, 300_000);
});
