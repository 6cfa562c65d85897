/** What the benches read of a running child process and of a server's open work. */
import { readdirSync, readFileSync } from 'node:fs';

/** User + system CPU of a running child so far (from /proc, in ms at 100 ticks per second). */
export const childCpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** A child's scheduler times so far, in ms (/proc/PID/task/TID/schedstat: on a core, waiting for one). */
export interface ChildSched {
  /** The main (JavaScript) thread on a core. */
  readonly mainRunMs: number;
  /** The main thread runnable but waiting for a core (the machine's load). */
  readonly mainWaitMs: number;
  /** Every thread on a core (the main thread, V8's helpers, libuv's pool). */
  readonly allRunMs: number;
}

const schedOf = (pid: number, tid: string): [number, number] => {
  const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
  return [(run ?? 0) / 1e6, (wait ?? 0) / 1e6];
};

export const childSched = (pid: number): ChildSched => {
  const [mainRunMs, mainWaitMs] = schedOf(pid, String(pid));
  let allRunMs = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      allRunMs += schedOf(pid, tid)[0];
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return { mainRunMs, mainWaitMs, allRunMs };
};

/** Bytes a running child has written so far, to files and sockets (/proc/PID/io wchar). */
export const childWrittenBytes = (pid: number): number => Number(/wchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? Number.NaN);

/** Peak RSS so far of a running child (VmHWM), in MB. */
export const childPeakRssMb = (pid: number): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

/**
 * Retain operations of `bank` not finished yet (pending or processing), asked with the bench's
 * own client (`getJson`), so the polling goes over the connection the bench already uses.
 */
export const openRetainOperations = async (url: string, bank: string, getJson: (url: string) => Promise<unknown>): Promise<number> => {
  let open = 0;
  for (const status of ['pending', 'processing']) {
    const body = await getJson(`${url}/v1/default/banks/${bank}/operations?status=${status}&type=retain&limit=1`);
    open += typeof body === 'object' && body !== null && 'total' in body && typeof body.total === 'number' ? body.total : Number.NaN;
  }
  return open;
};
