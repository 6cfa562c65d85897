/**
 * The start-up check of the records' CRCs in every segment file the newest segment points into.
 * At 1M memories that is 1.5 GB read and checksummed (about 1 s of one core), while the main
 * thread fills the fact tables from the footer (about as long): above WORKER_FROM bytes the
 * reading runs on a worker thread so the two overlap, and start-up still waits for its verdict
 * before the store is used (a damaged file stops start-up as before). Below it the worker's own
 * start (a new isolate, some 30 ms) costs more than it saves: the check runs inline.
 */
import { readSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { READ_CHUNK } from './chunkedRead.js';

/** One file's records: its open fd, the length of its records region and the CRC its trailer holds. */
export interface RecordsRegion {
  readonly fd: number;
  readonly length: number;
  readonly crc: number;
  readonly path: string;
}

/** Records bytes above which the check runs on a worker thread. */
export const WORKER_FROM = 256 * 1024 * 1024;

/** CRC of `[from, from + length)` of a file, read in chunks (a segment can be larger than memory should hold). */
export const crcOfRange = (fd: number, length: number, from = 0, crc = 0): number => {
  const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(1, length)));
  for (let at = 0; at < length; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, length - at), from + at);
    if (n <= 0) break;
    crc = crc32(buf.subarray(0, n), crc);
    at += n;
  }
  return crc;
};

/** The first region whose CRC differs, or undefined. */
const firstMismatch = (regions: readonly RecordsRegion[]): RecordsRegion | undefined => regions.find((r) => crcOfRange(r.fd, r.length) !== r.crc);

/**
 * The worker's code, self-contained (the bundle has no file to point a worker at): the same loop
 * as `crcOfRange` over the fds it is given (a process's fds are its threads'), posting the index
 * of the first region that differs, or -1. Reads of 1 MiB: a worker has no event loop to keep.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readSync } = require('node:fs');
const { crc32 } = require('node:zlib');
const buf = Buffer.allocUnsafe(1 << 20);
const { regions, all } = workerData;
const bad = [];
for (let i = 0; i < regions.length && (all || bad.length === 0); i += 1) {
  const { fd, length, crc } = regions[i];
  let sum = 0;
  for (let at = 0; at < length; ) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, length - at), at);
    if (n <= 0) break;
    sum = crc32(buf.subarray(0, n), sum);
    at += n;
  }
  if (sum !== crc) bad.push(i);
}
parentPort.postMessage(bad);
`;

/** The indexes of the regions whose CRC differs, read on a worker: every one if `all`, else the first. */
const onWorker = (regions: readonly RecordsRegion[], all: boolean): Promise<number[]> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { regions: regions.map(({ fd, length, crc }) => ({ fd, length, crc })), all } });
    let answered = false;
    worker.once('message', (bad: number[]) => {
      answered = true;
      resolve(bad);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`server data: the records check stopped (worker exit ${code})`));
    });
  });

/**
 * Every region's CRC checked on a worker thread, none skipped after a damaged one: the damaged
 * regions. For a check started before the caller knows which files it needs (segments.ts starts
 * it on every segment file before the newest one's footer is parsed, and keeps the verdicts on
 * the files the footer names).
 */
export const damagedOnWorker = async (regions: readonly RecordsRegion[]): Promise<RecordsRegion[]> =>
  (await onWorker(regions, true)).flatMap((i) => regions[i] ?? []);

/**
 * Checks every region's CRC; resolves with the first that differs, or undefined. The fds must
 * stay open until it settles. `workerFrom`: records bytes from which a worker thread reads them.
 */
export const checkRecords = (regions: readonly RecordsRegion[], workerFrom = WORKER_FROM): Promise<RecordsRegion | undefined> => {
  const total = regions.reduce((sum, r) => sum + r.length, 0);
  if (total < workerFrom) {
    try {
      return Promise.resolve(firstMismatch(regions));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
  return onWorker(regions, false).then((bad) => (bad[0] === undefined ? undefined : regions[bad[0]]));
};
