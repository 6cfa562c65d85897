/**
 * The server store: in-memory state, made durable by the mutation log when a data directory
 * is given. Routes read `store.state` directly and write only through `commit`, which appends
 * the mutations to the log as one line (fsync'd) and then applies them: a commit is atomic, a
 * failed write changes nothing,
 * and nothing is acknowledged before it is on disk. `exclusive(bankId, fn)` serialises
 * read-modify-write sections per bank (appends to one document never lose a turn).
 */
import { chmod, mkdir } from 'node:fs/promises';
import * as E from 'fp-ts/lib/Either.js';
import { encodeLineBytes } from './logFormat.js';
import { MutationLog, replayLog } from './mutationLog.js';
import { readSnapshot, removeLegacySnapshot } from './snapshot.js';
import { loadSegments, writeSegment } from './segments.js';
import { decodeMutation } from './decodeMutation.js';
import { decodeFromDisk, encodeForDisk } from './diskEncoding.js';
import type { OperationText } from './diskEncoding.js';
import { operationItemText, textRefFor, TouchedOperations } from './textFromOperation.js';
import type { TextRef, TextSource } from './textFromOperation.js';
import { acquireDataDirLock } from './dataDirLock.js';
import type { Mutation } from './model.js';
import { ServerState } from './state.js';
import type { BankState, FactChange } from './state.js';

export interface StoreOptions {
  /** Undefined keeps everything in memory. */
  readonly dataDir?: string;
  /** Mutations between snapshots (default 20,000); past 30,000 live records it grows with them, up to three times. */
  readonly snapshotEvery?: number;
}

export interface LoadReport {
  readonly snapshotMutations: number;
  readonly replayedMutations: number;
  readonly truncatedBytes: number;
  /** The snapshot's log position: every log entry below it is in the snapshot. */
  readonly snapshotSeq: number;
}

/** A fact change the start-up replay of the log made, with the log entry (seq) it came from. */
export interface ReplayedChange {
  readonly seq: number;
  readonly change: FactChange;
}

export interface ServerStore {
  readonly state: ServerState;
  readonly persistent: boolean;
  readonly loadReport: LoadReport;
  /** The data directory (undefined: in memory). */
  readonly dataDir: string | undefined;
  /** The fact changes replayed from the log at start-up (after the snapshot), in order; handed over once. */
  takeReplayed(): readonly ReplayedChange[];
  /** The log position the state reflects now: every entry below it is applied (undefined: in memory). */
  logPosition(): number | undefined;
  /**
   * Called at each snapshot's cut with its log position, synchronously (a file kept beside the
   * snapshot captures the same state); the promise it returns is awaited with the snapshot.
   */
  onSnapshot(listener: (nextSeq: number) => Promise<void> | undefined): () => void;
  bank(bankId: string): BankState | undefined;
  /**
   * Makes `mutations` durable, then applies them in order. `textSources` (by document id): where
   * a document's text already is in the log, an item of its async retain's operation record,
   * written then as a reference instead of a second copy when that is safe (textFromOperation.ts).
   */
  commit(mutations: readonly Mutation[], textSources?: ReadonlyMap<string, TextSource>): Promise<void>;
  /** Runs `fn` with no other exclusive section of the same bank running. */
  exclusive<T>(bankId: string, fn: () => Promise<T>): Promise<T>;
  /** Called after each applied mutation that added or removed facts, or wrote a document. */
  onFactChange(listener: (change: FactChange) => void): () => void;
  snapshotNow(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_SNAPSHOT_EVERY = 20_000;
/**
 * A snapshot walks and writes every live record (the newest segment is the whole state) and the
 * whole search index beside it, so at a fixed interval its cost per mutation grows with the
 * state: at 100k memories the five snapshots of a sync ingest were a third of its CPU. Past this
 * many live records the interval grows in step with them, so that cost stays flat...
 */
const GROWTH_RECORDS = 30_000;
/** ...up to this many times `snapshotEvery`: what a crash leaves to replay, and the records held as objects meanwhile, stay bounded. */
const MAX_GROWTH = 3;

export const openStore = async (options: StoreOptions = {}): Promise<ServerStore> => {
  const state = new ServerState();
  const listeners = new Set<(change: FactChange) => void>();
  const snapshotListeners = new Set<(nextSeq: number) => Promise<void> | undefined>();
  const replayedChangesOut: ReplayedChange[] = [];
  const locks = new Map<string, Promise<unknown>>();
  const snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
  const dir = options.dataDir;
  /** A `text_from` reference read back from the operation as the state holds it at that point of the replay. */
  const operationText: OperationText = (bankId, operationId, item) => operationItemText(state.banks.get(bankId)?.operations.get(operationId), item);

  const applyAll = (mutations: readonly Mutation[]): void => {
    for (const m of mutations) {
      const change = state.apply(m);
      // A document written without facts still changes the bank's list of documents.
      if (change !== undefined && (change.added.length > 0 || change.removed.length > 0 || change.bankDeleted === true || change.document !== undefined)) {
        for (const l of listeners) l(change);
      }
    }
  };

  let log: MutationLog | undefined;
  let release: (() => Promise<void>) | undefined;
  let loadReport: LoadReport = { snapshotMutations: 0, replayedMutations: 0, truncatedBytes: 0, snapshotSeq: 0 };
  // A data dir from before segments holds its state in snapshot.jsonl: the next snapshot (at the
  // latest on close) moves it into a segment.
  let legacyMutations = 0;
  if (dir !== undefined) {
    // Owner-only: memories are private to the user running the server (an older 0755 dir is tightened).
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    release = await acquireDataDirLock(dir);
    try {
      // The newest segment, or (a data dir written before segments) the JSONL snapshot, read whole.
      const segments = await loadSegments(dir);
      let snapshot: { nextSeq: number; mutations: number };
      if (segments !== undefined) {
        // The records' CRCs are checked while the banks are restored (recordsCheck.ts); a damaged
        // file stops start-up here, before the log is replayed or anything is written.
        try {
          state.useStored(segments.stored);
          for (const bank of segments.banks) state.restoreBank(bank);
        } finally {
          await segments.recordsChecked;
        }
        snapshot = { nextSeq: segments.nextSeq, mutations: segments.stored.count };
      } else {
        snapshot = await readSnapshot(dir, (value, line) => {
          const m = decodeMutation(decodeFromDisk(value), `snapshot line ${line}`);
          if (E.isLeft(m)) throw new Error(`server data: ${m.left}`);
          state.apply(m.right);
        });
        legacyMutations = snapshot.mutations;
      }
      const replay = await replayLog(dir, snapshot.nextSeq);
      let replayed = 0;
      const replayedChanges = replayedChangesOut;
      for (const entry of replay.entries) {
        // One line is one commit: an array of mutations, applied whole or (torn) not at all.
        const values = Array.isArray(entry.value) ? entry.value : [entry.value];
        values.forEach((value, i) => {
          const m = decodeMutation(decodeFromDisk(value, operationText), `log seq ${entry.seq} mutation ${i}`);
          if (E.isLeft(m)) throw new Error(`server data: ${m.left}`);
          const change = state.apply(m.right);
          if (change !== undefined && (change.added.length > 0 || change.removed.length > 0 || change.bankDeleted === true)) replayedChanges.push({ seq: entry.seq, change });
          replayed += 1;
        });
      }
      log = await MutationLog.open(dir, replay.nextSeq);
      loadReport = {
        snapshotMutations: snapshot.mutations,
        replayedMutations: replayed,
        truncatedBytes: replay.truncatedBytes,
        snapshotSeq: snapshot.nextSeq,
      };
    } catch (error) {
      state.storedRecords()?.close();
      await release();
      throw error;
    }
  }

  let sinceSnapshot = loadReport.replayedMutations + legacyMutations;
  let snapshotting: Promise<void> | undefined;

  const snapshotNow = async (): Promise<void> => {
    const current = log;
    if (current === undefined || dir === undefined) return;
    await current.runBetweenBatches(async () => {
      const nextSeq = current.nextSeq;
      const beside = [...snapshotListeners].map((l) => l(nextSeq));
      sinceSnapshot = 0;
      const written = await writeSegment(dir, state, nextSeq, state.storedRecords());
      state.useStored(written.stored);
      await removeLegacySnapshot(dir);
      await current.rotate(nextSeq);
      await Promise.all(beside);
    });
  };

  /** Mutations between two snapshots, for the live records the last one held. */
  const interval = (): number => snapshotEvery * Math.min(MAX_GROWTH, Math.max(1, (state.storedRecords()?.count ?? 0) / GROWTH_RECORDS));

  const maybeSnapshot = (): void => {
    if (sinceSnapshot < interval() || snapshotting !== undefined) return;
    snapshotting = snapshotNow()
      .catch((error: unknown) => {
        // A failed snapshot loses nothing (the log still has every mutation); try again later.
        console.error(`embedded server: snapshot failed: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        snapshotting = undefined;
      });
  };

  /** Commits handed to the log and not yet applied, in no order (a text reference checks them all). */
  const unapplied = new Set<readonly Mutation[]>();

  const encode = (mutations: readonly Mutation[], textSources: ReadonlyMap<string, TextSource> | undefined): unknown[] => {
    if (textSources === undefined) return mutations.map((m) => encodeForDisk(m));
    const touched = new TouchedOperations();
    for (const queued of unapplied) for (const m of queued) touched.add(m);
    return mutations.map((m) => {
      let ref: TextRef | undefined;
      if (m.type === 'document.put') {
        const source = textSources.get(m.document.id);
        const operation = source === undefined ? undefined : state.banks.get(m.bank_id)?.operations.get(source.operationId);
        ref = textRefFor(m, source, operation, touched);
      }
      touched.add(m);
      return encodeForDisk(m, ref);
    });
  };

  const commit = async (mutations: readonly Mutation[], textSources?: ReadonlyMap<string, TextSource>): Promise<void> => {
    if (mutations.length === 0) return;
    if (log === undefined) {
      applyAll(mutations);
      return;
    }
    // The whole commit is one line, so a crash mid-write loses it entirely (it was never
    // acknowledged) instead of leaving half of it to be replayed.
    const line = encodeLineBytes(encode(mutations, textSources));
    unapplied.add(mutations);
    try {
      await log.append([line], () => {
        unapplied.delete(mutations);
        applyAll(mutations);
      });
    } finally {
      unapplied.delete(mutations);
    }
    sinceSnapshot += mutations.length;
    maybeSnapshot();
  };

  const exclusive = <T>(bankId: string, fn: () => Promise<T>): Promise<T> => {
    const previous = locks.get(bankId) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    locks.set(bankId, tail);
    void tail.then(() => {
      if (locks.get(bankId) === tail) locks.delete(bankId);
    });
    return run;
  };

  return {
    state,
    persistent: dir !== undefined,
    loadReport,
    dataDir: dir,
    takeReplayed: () => replayedChangesOut.splice(0),
    logPosition: () => log?.nextSeq,
    onSnapshot: (listener) => {
      snapshotListeners.add(listener);
      return () => snapshotListeners.delete(listener);
    },
    bank: (bankId) => state.banks.get(bankId),
    commit,
    exclusive,
    onFactChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    snapshotNow,
    close: async () => {
      await snapshotting;
      if (log !== undefined) {
        // Nothing new since the last snapshot (or since start-up): the files already hold it all.
        if (sinceSnapshot > 0) await snapshotNow();
        await log.close();
        log = undefined;
      }
      state.storedRecords()?.close();
      state.useStored(undefined);
      await release?.();
      release = undefined;
    },
  };
};
