/**
 * The chaos run's knobs, from flags (`--processes 10`) or the environment (`CHAOS_PROCESSES=10`),
 * flags first. Defaults are the short run the normal test suite makes.
 */
import type { PiRuntime } from './piRuntime.js';

export interface ChaosOptions {
  /** Concurrent pi processes, each running one `pi -p` turn after another. */
  readonly processes: number;
  /** How long new turns are started at least; the final flush and the count come after. */
  readonly durationMs: number;
  /**
   * What the run must have exercised before it stops starting turns: past `durationMs` it
   * goes on (a cycle of fault windows at a time, up to `maxDurationMs`) until it has, so a
   * loaded machine, where every turn is slow, still makes the run it claims.
   */
  readonly targets?: ChaosTargets;
  readonly maxDurationMs?: number;
  readonly seed: number;
  /** Share of pi turns SIGKILLed at a random moment around their usual length. */
  readonly piKillRatio: number;
  /** Server uptime between SIGKILLs, and downtime before the restart (ms, uniform). */
  readonly serverUpMs: readonly [number, number];
  readonly serverDownMs: readonly [number, number];
  /** The fault windows (wrong key, disk full, read-only, clock jump) repeat every cycle. */
  readonly cycleMs: number;
  /** The pi CLI and the Node that runs it (piRuntime.ts). */
  readonly pi: PiRuntime;
}

export interface ChaosTargets {
  readonly acknowledged: number;
  readonly piKills: number;
  readonly serverKills: number;
}

const number = (flags: Map<string, string>, name: string, env: string, fallback: number): number => {
  const raw = flags.get(name) ?? process.env[env];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} / ${env} must be a non-negative number, got "${raw}"`);
  return value;
};

const range = (flags: Map<string, string>, name: string, env: string, fallback: readonly [number, number]): readonly [number, number] => {
  const raw = flags.get(name) ?? process.env[env];
  if (raw === undefined) return fallback;
  const m = /^(\d+)-(\d+)$/.exec(raw);
  if (m === null || Number(m[1]) > Number(m[2])) throw new Error(`--${name} / ${env} must be MIN-MAX in ms, got "${raw}"`);
  return [Number(m[1]), Number(m[2])];
};

export const parseFlags = (argv: readonly string[]): Map<string, string> => {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else {
      flags.set(arg.slice(2), argv[i + 1] ?? '');
      i += 1;
    }
  }
  return flags;
};

export const chaosOptions = (flags: Map<string, string>, pi: PiRuntime, defaults: Partial<ChaosOptions> = {}): ChaosOptions => {
  const durationMs = number(flags, 'duration', 'CHAOS_DURATION_S', (defaults.durationMs ?? 60_000) / 1000) * 1000;
  return {
    processes: number(flags, 'processes', 'CHAOS_PROCESSES', defaults.processes ?? 3),
    durationMs,
    seed: number(flags, 'seed', 'CHAOS_SEED', defaults.seed ?? Math.floor(Math.random() * 2 ** 31)),
    piKillRatio: number(flags, 'pi-kill-ratio', 'CHAOS_PI_KILL_RATIO', defaults.piKillRatio ?? 0.5),
    serverUpMs: range(flags, 'server-up', 'CHAOS_SERVER_UP_MS', defaults.serverUpMs ?? [1_500, 6_000]),
    serverDownMs: range(flags, 'server-down', 'CHAOS_SERVER_DOWN_MS', defaults.serverDownMs ?? [200, 2_500]),
    cycleMs: number(flags, 'cycle', 'CHAOS_CYCLE_S', (defaults.cycleMs ?? Math.max(60_000, Math.min(durationMs, 300_000))) / 1000) * 1000,
    ...(defaults.targets === undefined ? {} : { targets: defaults.targets }),
    ...(defaults.maxDurationMs === undefined ? {} : { maxDurationMs: defaults.maxDurationMs }),
    pi,
  };
};
