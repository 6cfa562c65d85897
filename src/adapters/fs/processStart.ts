/**
 * When a process started, from Linux's /proc: `starttime` (field 22 of /proc/<pid>/stat, in
 * clock ticks since boot) plus the boot time (`btime` in /proc/stat). A pid is a small number
 * the kernel hands out again (within minutes where pid_max is 32768), so "a process with this
 * pid is alive" says nothing about which process: its start time does.
 */
import { readFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc's clock ticks, 100 on every architecture Linux exposes it on. */
const TICKS_PER_SECOND = 100;

const readBootTimeMs = (): number | undefined => {
  try {
    const line = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return line?.[1] === undefined ? undefined : Number(line[1]) * 1000;
  } catch {
    return undefined;
  }
};

// The boot time does not change while this process lives: /proc/stat is read once, not per pid.
let bootTime: { readonly ms: number | undefined } | undefined;
const bootTimeMs = (): number | undefined => (bootTime ??= { ms: readBootTimeMs() }).ms;

/**
 * The process `pid`'s start, in clock ticks since boot (field 22 of /proc/<pid>/stat), or
 * undefined where /proc cannot say. It never changes while the process lives and reads the same
 * from any process, whatever either's wall clock says: the directory lock records its holder's.
 */
export const processStartTicks = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
};

/** Epoch ms the process `pid` started (to about a second), or undefined where /proc cannot say. */
export const processStartedAt = (pid: number): number | undefined => {
  const boot = bootTimeMs();
  const ticks = boot === undefined ? undefined : processStartTicks(pid);
  return boot === undefined || ticks === undefined ? undefined : boot + (ticks / TICKS_PER_SECOND) * 1000;
};
