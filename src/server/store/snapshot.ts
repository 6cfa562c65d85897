/**
 * The JSONL snapshot that data dirs held before segments (segments.ts): the whole state as the
 * mutations that rebuild it, one checksummed line each, between a header (`nextSeq`: every log
 * entry below it is included) and a trailer (line count). Such a dir is still read; its first
 * snapshot writes a segment and deletes `snapshot.jsonl`.
 */
import { open, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeLineBytes } from './logFormat.js';
import { forEachLine } from '../../adapters/fs/fileLines.js';
import { errnoCode } from '../../codecs/errno.js';
import { isRecord } from '../../codecs/codecs.js';

const SNAPSHOT_FILE = 'snapshot.jsonl';

/** Deletes the JSONL snapshot once a segment holds everything it held. */
export const removeLegacySnapshot = async (dir: string): Promise<void> => {
  await unlink(join(dir, SNAPSHOT_FILE)).catch((error: unknown) => {
    if (errnoCode(error) !== 'ENOENT') throw error;
  });
};

export interface LoadedSnapshot {
  readonly nextSeq: number;
  readonly mutations: number;
}

/**
 * Reads the snapshot line by line, handing each mutation to `onMutation`; none yet is
 * `{nextSeq: 0}`. A damaged snapshot is an error (it is only ever renamed in whole).
 */
export const readSnapshot = async (dir: string, onMutation: (value: unknown, line: number) => void): Promise<LoadedSnapshot> => {
  let handle: FileHandle;
  try {
    handle = await open(join(dir, SNAPSHOT_FILE), 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { nextSeq: 0, mutations: 0 };
    throw error;
  }
  const fail = (why: string): Error =>
    new Error(`server data: ${join(dir, SNAPSHOT_FILE)} is damaged (${why}); restore a backup of the data dir, or move it aside to start empty`);
  let line = 0;
  let header: Record<string, unknown> | undefined;
  let trailer: Record<string, unknown> | undefined;
  let count = 0;
  try {
    await forEachLine(handle, (buf, start, end) => {
      line += 1;
      const check = decodeLineBytes(buf, start, end);
      if (!check.ok) throw fail(`line ${line}: ${check.reason}`);
      if (trailer !== undefined) throw fail(`line ${line}: data after the trailer`);
      const value = check.value;
      if (line === 1) {
        if (!isRecord(value) || value['snapshot'] !== 1 || typeof value['nextSeq'] !== 'number') throw fail('no header');
        header = value;
        return;
      }
      if (isRecord(value) && value['end'] === true) {
        trailer = value;
        return;
      }
      count += 1;
      onMutation(check.value, line);
    });
  } finally {
    await handle.close();
  }
  const nextSeq = header?.['nextSeq'];
  if (typeof nextSeq !== 'number') throw fail('no header');
  if (trailer === undefined || trailer['count'] !== count) throw fail('no trailer');
  return { nextSeq, mutations: count };
};
