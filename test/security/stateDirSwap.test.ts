/**
 * Attack (round 8): the state directory swapped for a link between memory's check and its open.
 * Every file memory opens in `{state_dir}/memory` is checked first (an `lstat` of each
 * directory from the state dir down) and then opened by path: two system calls. Someone who may
 * rename entries in the project directory (a shared checkout others may write) renames `.pi`
 * away and puts a link to a directory of theirs in its place, over and over; an append that
 * lands between the check and the open follows the link and writes the person's turn into
 * their file. A second process here plays that account, swapping as fast as it can while this
 * process appends through the real primitives (`openStateFileSync`, `openStateFile`,
 * `writePrivateFileSync`, `writeAtomic`): the victim's files never change, and every write
 * either reaches the real state directory or is refused. On Linux (`/proc/self/fd`) only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAtomic } from '../../src/adapters/fs/atomicFile.js';
import { confineStateDir, ensurePrivateDirSync, isUnsafeFileError, openStateFile, openStateFileSync, writePrivateFileSync } from '../../src/adapters/fs/safeFile.js';
import { errnoCode } from '../../src/codecs/errno.js';

const onLinux = process.platform === 'linux' && existsSync('/proc/self/fd');

// The other account: swaps `.pi` for a link to its own directory and back, until killed.
const SWAPPER = String.raw`
const fs = require('node:fs');
const [pi, real, link, stop] = process.argv.slice(1);
let n = 0;
for (;;) {
  try { fs.renameSync(pi, real); fs.renameSync(link, pi); } catch {}
  try { fs.renameSync(pi, link); fs.renameSync(real, pi); } catch {}
  if ((++n & 1023) === 0 && fs.existsSync(stop)) break;
}
`;

let root: string;
let project: string;
let victim: string;
let swapper: ChildProcess | undefined;

const VICTIM_TEXT = 'the other account\'s own notes\n';
const victimFiles = ['trace.jsonl', 'async.jsonl', 'cursor.json', 'atomic.json'];

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'am-swap-'));
  project = path.join(root, 'project');
  victim = path.join(root, 'victim');
  mkdirSync(path.join(victim, 'memory'), { recursive: true });
  for (const name of victimFiles) writeFileSync(path.join(victim, 'memory', name), VICTIM_TEXT);
  confineStateDir(path.join(project, '.pi'), project);
  ensurePrivateDirSync(path.join(project, '.pi', 'memory'));
});

afterAll(() => {
  swapper?.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const startSwapper = async (): Promise<string> => {
  const stop = path.join(root, 'stop');
  const link = path.join(root, 'project', '.pi-link');
  const { symlinkSync } = await import('node:fs');
  symlinkSync(victim, link);
  swapper = spawn(process.execPath, ['-e', SWAPPER, path.join(project, '.pi'), path.join(project, '.pi-real'), link, stop], { stdio: 'ignore' });
  // Let it get going.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return stop;
};

const stopSwapper = async (stop: string): Promise<void> => {
  writeFileSync(stop, '');
  await new Promise<void>((resolve) => {
    swapper?.once('exit', () => resolve());
    setTimeout(() => {
      swapper?.kill('SIGKILL');
      resolve();
    }, 5_000);
  });
  // Put the real state dir back where it belongs, whichever half of a swap the swapper stopped in.
  const pi = path.join(project, '.pi');
  const real = path.join(project, '.pi-real');
  if (existsSync(real)) {
    rmSync(pi, { force: true });
    const { renameSync } = await import('node:fs');
    renameSync(real, pi);
  }
};

const tolerated = (error: unknown): boolean => isUnsafeFileError(error) || ['ENOENT', 'ENOTDIR', 'ELOOP'].includes(errnoCode(error) ?? '');

describe.runIf(onLinux)('a state directory swapped for a link between the check and the open', () => {
  it('never writes into the directory the link leads to; each write lands in the real state dir or is refused', async () => {
    const stop = await startSwapper();
    let landed = 0;
    let refused = 0;
    const memory = path.join(project, '.pi', 'memory');
    const deadline = Date.now() + 6_000;
    let round = 0;
    try {
      while (Date.now() < deadline && round < 20_000) {
        round += 1;
        const line = `turn ${round}: the person's words\n`;
        try {
          switch (round % 4) {
            case 0: {
              const fd = openStateFileSync(path.join(memory, 'trace.jsonl'), 'append');
              try {
                writeSync(fd, line);
              } finally {
                closeSync(fd);
              }
              break;
            }
            case 1: {
              const handle = await openStateFile(path.join(memory, 'async.jsonl'), 'append');
              try {
                await handle.write(line);
              } finally {
                await handle.close();
              }
              break;
            }
            case 2:
              writePrivateFileSync(path.join(memory, 'cursor.json'), line, { durable: false });
              break;
            default:
              await writeAtomic(path.join(memory, 'atomic.json'), line);
          }
          landed += 1;
        } catch (error) {
          if (!tolerated(error)) throw error;
          refused += 1;
        }
      }
    } finally {
      await stopSwapper(stop);
    }
    // The race was run: writes landed and writes were refused while the swapper ran.
    expect(landed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    for (const name of victimFiles) expect(readFileSync(path.join(victim, 'memory', name), 'utf8'), name).toBe(VICTIM_TEXT);
    // Nothing else was left in the victim's directory (no temp file of an atomic write).
    expect(readdirSync(path.join(victim, 'memory')).sort()).toEqual([...victimFiles].sort());
  }, 60_000);
});
