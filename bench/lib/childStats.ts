/** What the benches read of a running child process and of a server's open work. */
import { readFileSync } from 'node:fs';

/** User + system CPU of a running child so far (from /proc, in ms at 100 ticks per second). */
export const childCpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

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
