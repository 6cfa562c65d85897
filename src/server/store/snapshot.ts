/**
 * Snapshots: the whole state as the mutations that rebuild it, one checksummed line each,
 * between a header (`nextSeq`: every log entry below it is included) and a trailer (line
 * count). Written to a temp file, fsync'd, renamed over `snapshot.jsonl`, and the directory
 * fsync'd: a crash leaves the old snapshot or the new one, never a mix.
 */
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeLine, decodeLine } from './logFormat.js';
import type { Mutation } from './model.js';
import type { ServerState } from './state.js';

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
  for (const m of stateAsMutations(state)) lines.push(encodeLine(m));
  lines.push(encodeLine({ end: true, count: lines.length - 1 }));
  return lines;
};

export const writeSnapshot = async (dir: string, lines: readonly string[]): Promise<void> => {
  const finalPath = join(dir, SNAPSHOT_FILE);
  const tempPath = `${finalPath}.tmp`;
  const handle = await open(tempPath, 'w');
  try {
    // Written in slices so a 100k-fact snapshot never builds one giant string.
    for (let i = 0; i < lines.length; i += 4096) await handle.write(lines.slice(i, i + 4096).join(''));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tempPath, finalPath);
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
};

export interface LoadedSnapshot {
  readonly nextSeq: number;
  readonly mutations: readonly unknown[];
}

/** Reads the snapshot; none yet is `{nextSeq: 0}`; a damaged one is an error (it was renamed in whole). */
export const readSnapshot = async (dir: string): Promise<LoadedSnapshot> => {
  let text: string;
  try {
    text = await readFile(join(dir, SNAPSHOT_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { nextSeq: 0, mutations: [] };
    throw error;
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const fail = (why: string): Error =>
    new Error(`server data: ${join(dir, SNAPSHOT_FILE)} is damaged (${why}); move it aside to rebuild from the log, or restore a backup`);
  const values = lines.map((line, i) => {
    const check = decodeLine(line);
    if (!check.ok) throw fail(`line ${i + 1}: ${check.reason}`);
    return check.value;
  });
  const header = values[0] as { snapshot?: unknown; nextSeq?: unknown } | undefined;
  const trailer = values[values.length - 1] as { end?: unknown; count?: unknown } | undefined;
  if (header?.snapshot !== 1 || typeof header.nextSeq !== 'number') throw fail('no header');
  if (trailer?.end !== true || trailer.count !== values.length - 2) throw fail('no trailer');
  return { nextSeq: header.nextSeq, mutations: values.slice(1, -1) };
};
