/**
 * Snapshots: the whole state as the mutations that rebuild it, one checksummed line each,
 * between a header (`nextSeq`: every log entry below it is included) and a trailer (line
 * count). Written to a temp file, fsync'd, renamed over `snapshot.jsonl`, and the directory
 * fsync'd: a crash leaves the old snapshot or the new one, never a mix.
 */
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeLine, decodeLineBytes } from './logFormat.js';
import type { Mutation } from './model.js';
import type { ServerState } from './state.js';
import { encodeForDisk } from './diskEncoding.js';
import { forEachLine } from '../../adapters/fs/fileLines.js';
import { replaceFileDurably } from './replaceFile.js';
import { errnoCode } from '../../codecs/errno.js';

export const SNAPSHOT_FILE = 'snapshot.jsonl';

/** Everything in the state as mutations, banks first so each bank exists before its contents. */
export const stateAsMutations = function* (state: ServerState): Generator<Mutation> {
  for (const [bankId, bank] of state.banks) {
    yield { type: 'bank.put', bank: bank.bank };
    for (const document of bank.documents.values()) {
      const chunks = (bank.chunksByDocument.get(document.id) ?? []).flatMap((id) => {
        const c = bank.chunks.get(id);
        return c === undefined ? [] : [c];
      });
      const facts = (bank.factsByDocument.get(document.id) ?? []).flatMap((id) => {
        const f = bank.facts.get(id);
        return f === undefined ? [] : [f];
      });
      yield { type: 'document.put', bank_id: bankId, document, chunks, facts };
    }
    // Facts a document.put does not carry (observations and other facts written by facts.put).
    const inDocuments = new Set<string>();
    for (const ids of bank.factsByDocument.values()) for (const id of ids) inDocuments.add(id);
    const loose = [...bank.facts.values()].filter((f) => !inDocuments.has(f.id));
    if (loose.length > 0) yield { type: 'facts.put', bank_id: bankId, facts: loose };
    for (const operation of bank.operations.values()) yield { type: 'operation.put', operation };
    for (const [kind, records] of bank.records) {
      for (const [id, value] of records) yield { type: 'record.put', bank_id: bankId, kind, id, value };
    }
  }
};

/** Serialises synchronously (a consistent cut), then writes atomically. */
export const captureSnapshot = (state: ServerState, nextSeq: number): string[] => {
  const lines = [encodeLine({ snapshot: 1, nextSeq })];
  for (const m of stateAsMutations(state)) lines.push(encodeLine(encodeForDisk(m)));
  lines.push(encodeLine({ end: true, count: lines.length - 1 }));
  return lines;
};

export const writeSnapshot = (dir: string, lines: readonly string[]): Promise<void> =>
  replaceFileDurably(dir, SNAPSHOT_FILE, async (handle) => {
    // Written in slices so a 100k-fact snapshot never builds one giant string.
    for (let i = 0; i < lines.length; i += 4096) await handle.write(lines.slice(i, i + 4096).join(''));
  });

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
  let header: { snapshot?: unknown; nextSeq?: unknown } | undefined;
  let trailer: { end?: unknown; count?: unknown } | undefined;
  let count = 0;
  try {
    await forEachLine(handle, (buf, start, end) => {
      line += 1;
      const check = decodeLineBytes(buf, start, end);
      if (!check.ok) throw fail(`line ${line}: ${check.reason}`);
      if (trailer !== undefined) throw fail(`line ${line}: data after the trailer`);
      const value = check.value as { snapshot?: unknown; nextSeq?: unknown; end?: unknown; count?: unknown };
      if (line === 1) {
        header = value;
        if (header.snapshot !== 1 || typeof header.nextSeq !== 'number') throw fail('no header');
        return;
      }
      if (typeof value === 'object' && value !== null && value.end === true) {
        trailer = value;
        return;
      }
      count += 1;
      onMutation(check.value, line);
    });
  } finally {
    await handle.close();
  }
  if (header === undefined || typeof header.nextSeq !== 'number') throw fail('no header');
  if (trailer === undefined || trailer.count !== count) throw fail('no trailer');
  return { nextSeq: header.nextSeq, mutations: count };
};
