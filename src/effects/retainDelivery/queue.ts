/**
 * The durable retain queue: the retain-delivery gate wired to its journal, the memory server
 * and a delivery lease.
 *
 * - `enqueue` resolves only once the jobs are fsync'd in the journal (queue-first retain).
 * - Only the holder of the delivery lease sends; other processes on the same project append
 *   and fold in the holder's records. A batch and its key are journaled before the first send,
 *   so whoever re-sends it after a crash uses the same key (the server drops the repeat).
 * - Retries back off with jitter; 401/403/404/410 pause (jobs kept) until `resume()`;
 *   400/422 dead-letter with the server's reason.
 * Over ports only: the store (journal, lease, receipts, dead letters; `src/hosts/retainQueueStore.ts`
 * builds it on files), ids (job keys, the owner tag), the clock, the memory server.
 * See docs/queue.md.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { SnapshotFrom } from 'xstate';
import { redact } from '../../config/redact.js';
import { defaultBatchLimits, selectBatch, type BatchLimits } from '../../machines/retainDelivery/batch.js';
import { CHUNK_SIZE, findPending, pendingJobs, recentIds, waitsOnOtherProcess, type DeliveryMode } from '../../machines/retainDelivery/context.js';
import { RetainDeliveryEvent, retainEvents, sharedEventTypes, type DeadLetter, type InFlightBatch, type RetainDeliveryEventInput, type RetainJob } from '../../machines/retainDelivery/events.js';
import { retainDeliveryMachine, type RetainDeliveryMachine } from '../../machines/retainDelivery/machine.js';
import type { JsonValue } from '../../machines/shared/codecs.js';
import { every, systemClock, type ClockPort } from '../ports/clock.js';
import type { IdsPort } from '../ports/ids.js';
import type { JournalEntry, JournalPort } from '../ports/journal.js';
import type { MemoryServer } from '../ports/memoryServer.js';
import type { HeldLease, RetainQueueStoreOpener } from '../ports/retainQueueStore.js';
import type { TracePort } from '../ports/trace.js';
import type { BackoffPolicy } from '../../machines/retainDelivery/decide.js';
import { batchOperationId, prepareJobs, type NewRetainJob } from './jobs.js';
import { sendBatch } from './send.js';
import { queueStateOf, statusOf, type FlushReport, type QueueStatus } from './status.js';
import { startGate, type GateRuntime } from '../kernel/startGate.js';
import { toJson } from '../kernel/trace.js';

export type { RetainJob, DeadLetter } from '../../machines/retainDelivery/events.js';
export type { RetainItem } from '../../machines/retainDelivery/events.js';
export type { QueueStatus, FlushReport, QueueState } from './status.js';
export type { NewRetainJob } from './jobs.js';

export interface RetainQueue {
  /** Queues jobs; resolves with them only when they are fsync'd. Rejects (nothing queued) on bad input or a write failure. */
  enqueue(jobs: readonly NewRetainJob[]): Promise<readonly RetainJob[]>;
  /**
   * `enqueue`, durable (one write, one fsync) when it returns; throws on bad input or a write
   * failure (nothing queued). For a hook the host never awaits (pi's `agent_end`). After
   * `close()` the jobs still go to the shared journal, for whichever process delivers next.
   */
  enqueueSync(jobs: readonly NewRetainJob[]): readonly RetainJob[];
  /** Delivers what is due; resolves when delivery stops (empty, backing off, paused, lease elsewhere) or at `deadline`. */
  flush(o?: { readonly deadline?: number; readonly force?: boolean }): Promise<FlushReport>;
  status(): QueueStatus;
  subscribe(listener: (s: QueueStatus) => void): () => void;
  deadLetters(): Promise<readonly DeadLetter[]>;
  /** Moves dead letters (all, or these job ids) back to the queue; returns how many. */
  requeueDeadLetters(ids?: readonly string[]): Promise<number>;
  /** Removes dead letters (all, or these job ids) for good; returns how many. */
  dropDeadLetters(ids?: readonly string[]): Promise<number>;
  /** Leaves a pause and delivers; pass `server` when the fix was a new key or URL (a new client). */
  resume(o?: { readonly server?: MemoryServer }): Promise<void>;
  /**
   * Re-probes a pause (401/403, bank gone) by trying the batch again, and ends a backoff at
   * once: for a session start, a config reload, a user's flush. A failure pauses or backs off again.
   */
  recheck(o?: { readonly server?: MemoryServer }): Promise<void>;
  /** Delivers what it can before `deadline` (default 3 s), finishes the batch in flight, releases the lease. */
  close(o?: { readonly deadline?: number; readonly flush?: boolean }): Promise<void>;
}

export interface OpenRetainQueueOptions {
  /** The journal, lease, receipts and dead letters (`jsonlRetainQueueStore` in src/hosts for files). */
  readonly store: RetainQueueStoreOpener;
  /** Job keys are its digests: every process sharing a store must use the same (`nodeIds`). */
  readonly ids: IdsPort;
  readonly server: MemoryServer;
  readonly mode: DeliveryMode;
  readonly flushIntervalMs: number;
  readonly clock?: ClockPort;
  readonly trace?: TracePort;
  /** Send retains async (default true): `operation_id` makes a repeat a no-op only then. */
  readonly async?: boolean;
  readonly backoff?: BackoffPolicy;
  readonly batchLimits?: BatchLimits;
  /** Jitter source; tests pass a fixed one. */
  readonly random?: () => number;
  /** Wraps the journal the gate writes through (tests inject faults). */
  readonly wrapJournal?: (journal: JournalPort) => JournalPort;
  /** Compact when the journal holds more than this many records and 4x the live set. */
  readonly compactAbove?: number;
  readonly onWarning?: (message: string) => void;
}

type Snapshot = SnapshotFrom<RetainDeliveryMachine>;

const SNAPSHOT_CHUNK = 1_000;

const settledState = (snapshot: Snapshot): boolean => {
  const value = snapshot.value as string;
  return value === 'idle' || value === 'paused' || value === 'backingOff';
};

export const openRetainQueue = async (options: OpenRetainQueueOptions): Promise<RetainQueue> => {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const limits = options.batchLimits ?? defaultBatchLimits;
  const asyncRetain = options.async ?? true;
  const compactAbove = options.compactAbove ?? 2_000;
  const warn = options.onWarning ?? ((message: string) => process.emitWarning(message, { code: 'AGENT_MEMORY_QUEUE' }));
  const digest = options.ids.digest;
  const ownerTag = options.ids.uuid().slice(0, 8);
  let server = options.server;

  const store = await options.store({
    onJournalDamage: (damage) => warn(`retain queue: ${damage.reason}`),
    onReceiptsDamage: (message) => warn(`retain receipts: ${message}`),
  });
  const { journal, lease } = store;
  const owner = `${store.processName}:${ownerTag}`;

  // Replicas (records another process wrote) are folded in but not written again.
  const ownEntries = (entries: readonly JournalEntry[]): readonly JournalEntry[] =>
    entries.filter((entry) => !(typeof entry.payload === 'object' && entry.payload !== null && (entry.payload as { replica?: unknown }).replica === true));
  const gateJournal: JournalPort = {
    append: (entries) => {
      const own = ownEntries(entries);
      return own.length === 0 ? Promise.resolve([]) : journal.append(own);
    },
    // Every dispatch of the gate is synchronous over it: nothing is ever written but not yet folded.
    appendSync: (entries) => {
      const own = ownEntries(entries);
      return own.length === 0 ? [] : journal.appendSync(own);
    },
    // Another process's own events (its shutdown, its skipped batch) are not part of this fold.
    load: async () => {
      const loaded = await journal.load();
      return { ...loaded, records: loaded.records.filter((record) => sharedEventTypes.has(record.type)) };
    },
    compact: (entries) => journal.compact(entries),
    close: async () => undefined,
  };
  const wrappedJournal = options.wrapJournal === undefined ? gateJournal : options.wrapJournal(gateJournal);

  let gate!: GateRuntime<RetainDeliveryMachine>;
  let damaged = 0;
  let closing = false;
  let closed = false;
  let retryTimer: (() => void) | undefined;
  let stopHeartbeat: (() => void) | undefined;
  let held: HeldLease | undefined;
  let abort = new AbortController();
  let delivering: Promise<void> = Promise.resolve();
  let counters = { delivered: 0, deadLettered: 0 };
  const listeners = new Set<(s: QueueStatus) => void>();
  let unsubscribeGate: (() => void) | undefined;

  const now = (): number => clock.now();
  // Events are built by their constructors in wire shape and checked by the gate's codec on the way in.
  const dispatch = async (event: RetainDeliveryEventInput): Promise<Snapshot> => {
    const result = await gate.dispatch(event);
    if (E.isLeft(result)) throw new Error(result.left.message);
    return result.right;
  };
  // Effects run outside the dispatch chain; their failures become warnings, never crashes.
  const background = (label: string, work: () => Promise<void>): void => {
    work().catch((error: unknown) => {
      if (closed) return;
      warn(`retain queue: ${label} failed: ${redact(error instanceof Error ? error.message : String(error))}`);
    });
  };

  // ---- lease -------------------------------------------------------------------------------
  let leaseChain: Promise<unknown> = Promise.resolve();
  const leaseOp = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = leaseChain.then(fn);
    leaseChain = run.catch(() => undefined);
    return run;
  };
  const acquireLease = (): Promise<boolean> =>
    leaseOp(async () => {
      if (held !== undefined) {
        if (await held.refresh()) return true;
        held = undefined;
        stopHeartbeat?.();
        stopHeartbeat = undefined;
      }
      held = await lease.tryAcquire();
      if (held === undefined) return false;
      const mine = held;
      stopHeartbeat = every(clock, Math.max(1_000, lease.staleMs / 4), () => void mine.refresh().catch(() => undefined));
      return true;
    });
  const releaseLease = (): Promise<boolean> =>
    leaseOp(async () => {
      if (held === undefined) return false;
      stopHeartbeat?.();
      stopHeartbeat = undefined;
      const mine = held;
      held = undefined;
      await mine.release();
      return true;
    });

  // ---- sync with other processes -------------------------------------------------------------
  // One sync at a time: two interleaved folds could apply another process's records out of order.
  let syncChain: Promise<unknown> = Promise.resolve();
  /** Folds in what other processes wrote since; `folded` counts the records that changed the fold. */
  const syncForeign = (): Promise<{ readonly outcome: 'current' | 'rebuilt'; readonly folded: number }> => {
    const run = syncChain.then(async () => {
      const foreign = await journal.takeForeign();
      damaged += foreign.damage.length;
      if (foreign.replaced) {
        await rebuild();
        return { outcome: 'rebuilt' as const, folded: 0 };
      }
      let folded = 0;
      for (const record of foreign.records) {
        if (!sharedEventTypes.has(record.type) || record.type === 'retain.snapshot' || typeof record.payload !== 'object' || record.payload === null) continue;
        await gate.dispatch({ ...(record.payload as Record<string, JsonValue>), replica: true });
        folded += 1;
      }
      return { outcome: 'current' as const, folded };
    });
    syncChain = run.catch(() => undefined);
    return run;
  };

  // ---- effects -------------------------------------------------------------------------------
  /**
   * Batch starts run one after another. Two at once in one process broke the lease: the first
   * found nothing to send and let the lease go (settled) while the second, which had shared its
   * hold, sent a batch; another process then took the lease and sent the same jobs under a
   * different batch key (the five-host test caught a turn on the server twice). Each start
   * looks at the state it finds: one that an earlier start already answered does nothing.
   */
  let starts: Promise<void> = Promise.resolve();
  const requestBatch = (label: string): void => {
    const run = starts.then(async () => {
      const snapshot = gate.getSnapshot();
      const state = snapshot.value as string;
      const due = state === 'selecting' || state === 'draining' || (state === 'delivering' && snapshot.context.inFlight?.owner !== owner);
      if (due) await startBatch();
    });
    starts = run.catch(() => undefined);
    background(label, () => run);
  };

  const startBatch = async (): Promise<void> => {
    if (closing) {
      await dispatch(retainEvents.batchSkipped({ reason: 'shutting down', at: now() }));
      return;
    }
    if (!(await acquireLease())) {
      const holder = await lease.holder();
      const who = holder === undefined ? 'another process' : `process ${holder.pid}`;
      await dispatch(retainEvents.batchSkipped({ reason: `${who} is delivering this queue`, at: now() }));
      return;
    }
    if ((await syncForeign()).outcome === 'rebuilt') {
      await dispatch(retainEvents.flushRequested({ at: now() }));
      return;
    }
    // The records just folded in may have changed the state (another process paused the queue,
    // or delivered what we meant to send); decide from the state after them.
    const snapshot = gate.getSnapshot();
    const state = snapshot.value as string;
    // Letting the lease go goes through `settled`, which also picks up jobs another process
    // queued while this one held it.
    if (state === 'paused' || state === 'backingOff') {
      await settled();
      return;
    }
    const choice = selectBatch(snapshot.context, limits);
    const jobs = findPending(snapshot.context, choice.jobIds);
    if (jobs.length === 0) {
      await dispatch(retainEvents.batchSkipped({ reason: 'nothing to deliver', at: now() }));
      await settled();
      // A job of this process queued after the choice above (it landed in `selecting` and only
      // joined the queue) would otherwise wait for the next turn: the first pending job always
      // makes a batch, so this asks once more and cannot loop.
      const after = gate.getSnapshot();
      if (!closing && options.mode === 'immediate' && after.value === 'idle' && after.context.depth > 0) {
        await dispatch(retainEvents.flushRequested({ at: now() }));
      }
      return;
    }
    // `close()` may have begun while this start waited on the lease and the sync: a closing
    // process starts nothing new. Sent now, the batch would be cut off at the close deadline
    // and left to another process to take over; left pending, the next holder sends it fresh.
    if (closing) {
      await dispatch(retainEvents.batchSkipped({ reason: 'shutting down', at: now() }));
      return;
    }
    const batch = { jobIds: jobs.map((j) => j.jobId), operationId: choice.adoptedOperationId ?? batchOperationId(jobs, digest), owner };
    await dispatch(retainEvents.batchStarted({ batch, at: now() }));
  };

  const recordDeadLetters = async (jobs: readonly RetainJob[], reason: string, status: number | null): Promise<void> => {
    const at = new Date(now()).toISOString();
    const lines = jobs.map((job) => `${JSON.stringify({ at, reason, status, job })}\n`).join('');
    await store.appendDeadLetters(lines);
  };

  // Set by a flush or a recheck: the next send looks at the server even if the shared breaker
  // says another process just found it down (that process may be gone, the server back).
  let probeRequested = false;
  const takeProbe = (): boolean => {
    const asked = probeRequested;
    probeRequested = false;
    return asked;
  };

  const deliver = async (batch: InFlightBatch): Promise<void> => {
    const snapshot = gate.getSnapshot();
    // Queue order, which is the order the batch was chosen in.
    const jobs = findPending(snapshot.context, batch.jobIds);
    if (jobs.length === 0) {
      await dispatch(retainEvents.delivered({ jobIds: batch.jobIds, receipt: { operationId: null, itemsCount: 0, async: asyncRetain }, at: now() }));
      return;
    }
    const outcome = await sendBatch(
      { server, async: asyncRetain, now, random, signal: abort.signal, recordDeadLetters, probe: takeProbe },
      batch,
      jobs,
    );
    for (const event of outcome.events) {
      // Counted before the dispatch: a flush waiting on the state change reads them at once.
      const delivered = event.type === 'retain.delivered' ? event.jobIds.length : 0;
      const deadLettered = event.type === 'retain.deadLettered' ? event.jobIds.length : 0;
      counters = { delivered: counters.delivered + delivered, deadLettered: counters.deadLettered + deadLettered };
      try {
        await dispatch(event);
      } catch (error) {
        counters = { delivered: counters.delivered - delivered, deadLettered: counters.deadLettered - deadLettered };
        throw error;
      }
    }
    if (outcome.delivered.length > 0) {
      const first = outcome.delivered[0] as RetainJob;
      await store
        .addReceipt({
          at: new Date(now()).toISOString(),
          bankId: first.bankId,
          jobCount: outcome.delivered.length,
          itemsCount: outcome.delivered.length,
          operationId: outcome.receiptOperationId,
          async: asyncRetain,
          documentIds: [...new Set(outcome.delivered.map((j) => j.documentId as string))].slice(0, 10),
        })
        .catch((error: unknown) => warn(`retain receipts: ${redact(error instanceof Error ? error.message : String(error))}`));
    }
  };

  const scheduleRetry = (retryAt: number | null): void => {
    retryTimer?.();
    retryTimer = undefined;
    if (retryAt === null || closing) return;
    retryTimer = clock.setTimer(retryAt, () => {
      retryTimer = undefined;
      if (!closing) background('retry', async () => void (await dispatch(retainEvents.timerFired({ at: now() }))));
    });
  };

  const snapshotEntries = (snapshot: Snapshot): JournalEntry[] => {
    const at = new Date(now()).toISOString();
    const jobs = pendingJobs(snapshot.context);
    const entries: JournalEntry[] = [];
    for (let i = 0; i === 0 || i < jobs.length; i += SNAPSHOT_CHUNK) {
      const first = i === 0;
      entries.push({
        type: 'retain.snapshot',
        at,
        payload: {
          type: 'retain.snapshot',
          jobs: jobs.slice(i, i + SNAPSHOT_CHUNK),
          deadLetters: first ? snapshot.context.deadLetters : [],
          inFlight: first ? snapshot.context.inFlight : null,
          pausedReason: first ? snapshot.context.pausedReason : null,
          retryAt: first ? snapshot.context.retryAt : null,
          failures: first ? snapshot.context.failures : 0,
          // The dedupe window survives compaction: a late copy of a delivered job stays dropped.
          ...(first ? { recentKeys: recentIds(snapshot.context) } : {}),
          at: snapshot.context.now,
        } as unknown as JsonValue,
      });
    }
    return entries;
  };

  const maybeCompact = async (): Promise<void> => {
    const snapshot = gate.getSnapshot();
    if (!settledState(snapshot)) return;
    const live = Math.ceil(snapshot.context.depth / SNAPSHOT_CHUNK) + 1;
    const { records } = journal.stats();
    if (records <= compactAbove || records <= 4 * live) return;
    await journal.compactIfCurrent(() => snapshotEntries(gate.getSnapshot()));
  };

  const settled = async (): Promise<void> => {
    const released = await releaseLease();
    if (!released || closing) return;
    await maybeCompact();
    // Another process may have queued jobs while we held the lease (its attempt was skipped,
    // and it counts on the holder): fold in what others wrote and deliver it. Our own appends
    // read past those records without folding them, so the file size alone does not tell.
    const sync = await syncForeign();
    const snapshot = gate.getSnapshot();
    // Another process's outcome folded in here can move the fold on to `selecting` (jobs left):
    // a replica starts no effect, so start the batch from here.
    if (snapshot.value === 'selecting') {
      requestBatch('delivering what other processes queued');
      return;
    }
    const idleWithWork = snapshot.value === 'idle' || (snapshot.value === 'delivering' && waitsOnOtherProcess(snapshot.context));
    if ((sync.outcome === 'rebuilt' || sync.folded > 0) && idleWithWork && snapshot.context.depth > 0) {
      await dispatch(retainEvents.flushRequested({ at: now() }));
    }
  };

  const machine = retainDeliveryMachine.provide({
    actions: {
      // Transitions caused by another process's records (folded in while this process already
      // holds the lease, inside startBatch) start no effect of their own.
      startBatch: ({ event }) => {
        if (event.replica !== true) requestBatch('starting a delivery');
      },
      deliverBatch: (_args, params) => {
        const batch = params.batch;
        if (batch === null || batch.owner !== owner || closed) return;
        const run = delivering.then(() => deliver(batch));
        delivering = run.catch(() => undefined);
        background('delivery', () => run);
      },
      scheduleRetry: (_args, params) => scheduleRetry(params.retryAt),
      settled: ({ event }) => {
        if (gate !== undefined && event.replica !== true) background('settling', settled);
      },
    },
  });

  let resumeDelivery = false;
  const onRestore = (snapshot: Snapshot): void => {
    const state = snapshot.value as string;
    if (state === 'backingOff') scheduleRetry(snapshot.context.retryAt);
    // A batch that was out when the last process stopped (or is out in another process):
    // ask again once this process has said who it is, re-sending it (same jobs, same key) if
    // nobody holds the lease.
    resumeDelivery = state === 'selecting' || state === 'delivering' || state === 'draining';
  };

  const start = async (): Promise<void> => {
    resumeDelivery = false;
    gate = await startGate({
      name: 'retainDelivery',
      machine,
      events: RetainDeliveryEvent,
      journal: wrappedJournal,
      clock,
      input: { mode: options.mode, ...(options.backoff === undefined ? {} : { backoff: options.backoff }) },
      onRestore,
      ...(options.trace === undefined ? {} : { trace: options.trace }),
    });
    damaged += gate.damage.length;
    // Without it (the journal cannot be written: a full disk) this process only waits less
    // cleverly on another's batch; the queue still opens.
    await dispatch(retainEvents.opened({ owner, at: now() })).catch((error: unknown) =>
      warn(`retain queue: ${redact(error instanceof Error ? error.message : String(error))}`),
    );
    if (resumeDelivery) requestBatch('resuming a delivery');
    unsubscribeGate?.();
    unsubscribeGate = gate.subscribe(() => {
      const status = currentStatus();
      for (const listener of listeners) listener(status);
    });
  };

  const rebuild = async (): Promise<void> => {
    const old = gate;
    await old.stop();
    await start();
  };

  const currentStatus = (): QueueStatus => {
    const snapshot = gate.getSnapshot();
    return statusOf(snapshot.value, snapshot.context, damaged, counters);
  };

  /** Resolves when `predicate` holds for the current gate's snapshot, or at `deadline`. */
  const waitUntil = (predicate: (s: Snapshot) => boolean, deadline: number | undefined): Promise<'done' | 'deadline'> =>
    new Promise((resolve) => {
      let finished = false;
      let watched: GateRuntime<RetainDeliveryMachine> | undefined;
      let unsubscribe: (() => void) | undefined;
      let cancelTimer: (() => void) | undefined;
      // The gate is replaced when another process compacts the journal: re-watch the new one.
      const stopPolling = every(clock, 50, () => check());
      const finish = (how: 'done' | 'deadline'): void => {
        if (finished) return;
        finished = true;
        stopPolling();
        cancelTimer?.();
        unsubscribe?.();
        resolve(how);
      };
      const check = (): void => {
        if (watched !== gate) {
          unsubscribe?.();
          watched = gate;
          unsubscribe = gate.subscribe(check);
        }
        if (predicate(gate.getSnapshot())) finish('done');
      };
      if (deadline !== undefined) cancelTimer = clock.setTimer(deadline, () => finish('deadline'));
      check();
    });

  await start();
  // What a process that stopped left: its backoff timer died with it, and a pause may have been
  // caused by a key that is fixed now. Try at once (one attempt; a failure backs off or pauses
  // again) rather than wait on a dead process's deadline or on a resume nobody will send.
  const opened = gate.getSnapshot().value as string;
  const openedWith = opened === 'backingOff' ? 'backoff' : opened === 'paused' ? 'pause' : undefined;
  // A log much longer than its live set (many delivered jobs) is rewritten now, so the next
  // process that opens it folds the live set, not the history.
  await maybeCompact().catch((error: unknown) => warn(`retain queue: compaction skipped: ${redact(error instanceof Error ? error.message : String(error))}`));

  let stopInterval: (() => void) | undefined;
  if (options.mode === 'coalesced' && options.flushIntervalMs > 0) {
    stopInterval = every(clock, options.flushIntervalMs, () => {
      if (closing || gate.getSnapshot().context.depth === 0) return;
      background('periodic flush', async () => void (await dispatch(retainEvents.flushRequested({ at: now() }))));
    });
  }

  /** Ends a pause (it is tried again) or a backoff now; a no-op in any other state. */
  const recheck = async (o: { readonly server?: MemoryServer } = {}): Promise<void> => {
    if (closing) return;
    if (o.server !== undefined) server = o.server;
    probeRequested = true;
    const state = gate.getSnapshot().value as string;
    if (state === 'paused') await dispatch(retainEvents.resumed({ at: now() }));
    else if (state === 'backingOff') await dispatch(retainEvents.flushRequested({ at: now(), force: true }));
  };
  // Jobs waiting when the queue opens are tried once even if the shared breaker is open.
  if (gate.getSnapshot().context.depth > 0) probeRequested = true;
  if (openedWith !== undefined) background(`retrying after a stopped process's ${openedWith}`, () => recheck());

  const flush = async (o: { readonly deadline?: number; readonly force?: boolean; readonly recheckPause?: boolean } = {}): Promise<FlushReport> => {
    const before = counters;
    if (o.force === true) probeRequested = true;
    // A user's flush tries a paused queue again: the key may have been fixed since.
    if (o.recheckPause !== false && gate.getSnapshot().value === 'paused') await dispatch(retainEvents.resumed({ at: now() }));
    await dispatch(retainEvents.flushRequested({ at: now(), ...(o.force === true ? { force: true } : {}) }));
    const how = await waitUntil(settledState, o.deadline);
    const snapshot = gate.getSnapshot();
    const state = queueStateOf(snapshot.value);
    const stoppedBecause =
      how === 'deadline'
        ? 'deadline reached'
        : state === 'paused'
          ? (snapshot.context.pausedReason ?? 'paused')
          : state === 'backingOff'
            ? `retrying at ${new Date(snapshot.context.retryAt ?? now()).toISOString()}: ${snapshot.context.lastError?.reason ?? ''}`
            : snapshot.context.depth > 0
              ? (snapshot.context.lastSkip ?? snapshot.context.lastError?.reason ?? undefined)
              : undefined;
    return {
      delivered: counters.delivered - before.delivered,
      deadLettered: counters.deadLettered - before.deadLettered,
      remaining: snapshot.context.depth,
      state,
      ...(stoppedBecause === undefined ? {} : { stoppedBecause }),
    };
  };

  /** The jobs, decoded and keyed, and the `enqueued` events that queue them; throws on bad input. */
  const enqueuedEvents = (input: readonly NewRetainJob[]): { readonly jobs: readonly RetainJob[]; readonly events: readonly RetainDeliveryEventInput[] } => {
    const prepared = prepareJobs(input, now(), digest);
    if (E.isLeft(prepared)) throw new Error(prepared.left);
    const events: RetainDeliveryEventInput[] = [];
    // Very large enqueues go in several records so no line grows without bound.
    for (let i = 0; i < prepared.right.length; i += CHUNK_SIZE) events.push(retainEvents.enqueued({ jobs: prepared.right.slice(i, i + CHUNK_SIZE), at: now() }));
    return { jobs: prepared.right, events };
  };

  const enqueueSync = (input: readonly NewRetainJob[]): readonly RetainJob[] => {
    const { jobs, events } = enqueuedEvents(input);
    for (const event of events) {
      if (closed) {
        // This process's gate has stopped (pi can end a run after the session shut down): the
        // record goes to the shared journal only, and the next process to fold it (another live
        // one, or the next start) delivers it.
        const decoded = RetainDeliveryEvent.decode(event);
        if (E.isLeft(decoded)) throw new Error('retain queue: a job did not encode; nothing was queued');
        journal.appendSync([{ type: event.type, at: new Date(now()).toISOString(), payload: toJson(decoded.right) }]);
        continue;
      }
      const result = gate.dispatchSync(event);
      if (E.isLeft(result)) throw new Error(result.left.message);
    }
    return jobs;
  };

  return {
    enqueue: async (input) => {
      if (closing) throw new Error('retain queue: closed; nothing was queued');
      const { jobs, events } = enqueuedEvents(input);
      for (const event of events) await dispatch(event);
      return jobs;
    },
    enqueueSync,
    flush: (o) => flush(o),
    recheck,
    status: currentStatus,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    deadLetters: async () => gate.getSnapshot().context.deadLetters,
    requeueDeadLetters: async (ids) => {
      const dead = gate.getSnapshot().context.deadLetters;
      const chosen = (ids === undefined ? dead.map((d) => d.job.jobId) : dead.filter((d) => ids.includes(d.job.jobId)).map((d) => d.job.jobId)) as string[];
      if (chosen.length === 0) return 0;
      await dispatch(retainEvents.requeued({ jobIds: chosen, at: now() }));
      return chosen.length;
    },
    dropDeadLetters: async (ids) => {
      const dead = gate.getSnapshot().context.deadLetters;
      const chosen = (ids === undefined ? dead : dead.filter((d) => ids.includes(d.job.jobId))).map((d) => d.job.jobId) as string[];
      if (chosen.length === 0) return 0;
      await dispatch(retainEvents.deadLettersDropped({ jobIds: chosen, at: now() }));
      return chosen.length;
    },
    resume: async (o = {}) => {
      if (o.server !== undefined) server = o.server;
      await dispatch(retainEvents.resumed({ at: now() }));
    },
    close: async (o = {}) => {
      if (closed) return;
      const deadline = o.deadline ?? now() + 3_000;
      if (o.flush !== false && !closing && gate.getSnapshot().context.depth > 0) {
        await flush({ deadline, recheckPause: false }).catch(() => undefined);
      }
      closing = true;
      await dispatch(retainEvents.shutdown({ at: now() })).catch(() => undefined);
      const how = await waitUntil((s) => s.value !== 'draining' && s.value !== 'selecting' && s.value !== 'delivering', deadline);
      if (how === 'deadline') abort.abort();
      await delivering;
      closed = true;
      retryTimer?.();
      stopInterval?.();
      unsubscribeGate?.();
      await gate.stop();
      await releaseLease().catch(() => undefined);
      // The journal is not closed: a late `enqueueSync` still appends to it (it holds nothing open).
      abort = new AbortController();
    },
  };
};
