/**
 * Whether automatic retain can make turns durable, for readers that never write: a small
 * state file the runtime keeps (`retain-health.json`, rewritten in place, so a full disk still
 * takes it) and a look at the state dir itself (read-only file system, no space left), so
 * `agent-memory status` says "retain failing" even when nothing could be saved.
 */
import { accessSync, closeSync, constants, fsyncSync, statfsSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { decodeJson } from '../../codecs/decode.js';
import { openStateFileSync, readStateFileSync, writePrivateFileSync } from '../fs/safeFile.js';
import { errnoCode } from '../../codecs/errno.js';

const RetainHealth = t.intersection([t.type({ v: t.literal(1), at: t.string }), t.partial({ failing: t.string })]);

const retainFailingPath = (memoryDir: string): string => path.join(memoryDir, 'retain-health.json');

/**
 * The file has a fixed size and is rewritten in place: a disk that is full by then still takes
 * the record, since no new block is needed (a new file or a rename would need one).
 */
const SIZE = 1024;

const encode = (reason: string | undefined, now: number): Buffer => {
  const at = new Date(now).toISOString();
  const body = (failing: string | undefined): string => JSON.stringify({ v: 1, at, ...(failing === undefined ? {} : { failing }) });
  let text = Buffer.from(body(reason));
  if (text.length > SIZE - 1 && reason !== undefined) text = Buffer.from(body(`${reason.slice(0, SIZE / 8)}…`));
  const out = Buffer.alloc(SIZE, 0x20);
  text.copy(out, 0, 0, Math.min(text.length, SIZE - 1));
  out[SIZE - 1] = 0x0a;
  return out;
};

/** Creates the record (retain healthy) if missing, so a later failure can be written in place. Never throws. */
export const prepareRetainHealth = (memoryDir: string, now: number): void => {
  const file = retainFailingPath(memoryDir);
  try {
    if (readStateFileSync(file, 64 * 1024) === undefined) writePrivateFileSync(file, encode(undefined, now).toString('utf8'));
  } catch {
    // Not writable now: a failure is still shown by the live look at the state dir.
  }
};

/** Records (reason) or clears (undefined) a failure, in place; never throws. */
export const recordRetainFailing = (memoryDir: string, reason: string | undefined, now: number): void => {
  const file = retainFailingPath(memoryDir);
  try {
    const fd = openStateFileSync(file, 'readWrite');
    try {
      writeAllAtSync(fd, encode(reason, now));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Missing or refused: create it when possible (a cleared failure needs no file).
    if (reason !== undefined) {
      try {
        writePrivateFileSync(file, encode(reason, now).toString('utf8'));
      } catch {
        // A disk that refuses this refuses the turns too; the live look below still finds it.
      }
    }
  }
};

const writeAllAtSync = (fd: number, data: Buffer): void => {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written, written);
};

/** Why turns cannot be saved under `dir` right now, from access(2) and statfs(2); undefined when they can. */
const stateDirWriteProblem = (dir: string): string | undefined => {
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const c = errnoCode(error);
    if (c === 'ENOENT') return undefined;
    if (c === 'EROFS') return `${dir} is on a read-only file system (EROFS)`;
    if (c === 'EACCES' || c === 'EPERM') return `${dir} is not writable (${c})`;
    return undefined;
  }
  try {
    const fsStat = statfsSync(dir);
    if (fsStat.bavail === 0) return `no space left on the disk of ${dir} (ENOSPC)`;
  } catch {
    // statfs unsupported here: access(2) said writable.
  }
  return undefined;
};

/** What the runtime recorded, else what the state dir shows now; undefined when retain can write. */
export const readRetainFailing = (memoryDir: string): string | undefined => {
  const live = stateDirWriteProblem(memoryDir);
  if (live !== undefined) return live;
  try {
    const text = readStateFileSync(retainFailingPath(memoryDir), 64 * 1024);
    if (text === undefined) return undefined;
    const decoded = decodeJson(RetainHealth, retainFailingPath(memoryDir))(text.trim());
    if (E.isLeft(decoded) || decoded.right.failing === undefined) return undefined;
    return `${decoded.right.failing} (since ${decoded.right.at}; cleared by the next turn retained)`;
  } catch {
    return undefined;
  }
};
