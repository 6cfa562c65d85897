/**
 * Async operations: `submit` records a pending operation (durably) and schedules it; a worker
 * per bank executes them in submission order after `operationDelayMs`, each when requests
 * pause (`foreground.ts`), moving each through processing to completed or failed. Handlers are
 * registered per `task_type` by the route modules; a batch handler takes the consecutive
 * operations of its type waiting in a bank's queue together (async retains: one analysis pass
 * and one commit for many requests). Pending operations found at start-up are resumed, so an
 * acknowledged async retain survives a crash.
 */
import { isRecord, type JsonValue } from '../codecs/codecs.js';
import type { FaultSet } from './faults.js';
import type { Foreground, Turn } from './foreground.js';
import type { Mutation, OperationRecord } from './store/model.js';
import type { ServerStore } from './store/store.js';
import { yieldToLoop } from './slices.js';

/** Runs one operation; resolves to result metadata, throws (with a user-readable message) to fail it. */
export type OperationHandler = (operation: OperationRecord) => Promise<Record<string, JsonValue> | undefined>;

/**
 * Runs several pending operations of one type and bank, in submission order. It records each
 * one's end itself, in the commit of its work (`OperationRunner.ended`); one it leaves open
 * is failed with the error it threw. Long work yields with `pause` between its slices: it hands
 * the loop back and waits for the next pause in requests (unless a read of the bank is waiting).
 */
export type BatchOperationHandler = (operations: readonly OperationRecord[], pause: () => Promise<void>) => Promise<void>;

/** How an operation ended. */
export type OperationOutcome =
  | { readonly status: 'completed'; readonly metadata?: Record<string, JsonValue> }
  | { readonly status: 'failed'; readonly message: string };

/**
 * Operations one batch takes, counted in their items (bounds one commit and one plan): fewer
 * when requests keep coming and the batch only runs because it waited its longest, so each
 * such step takes a small share of the loop from them.
 */
const BATCH_ITEMS = { quiet: 1_000, overdue: 100 } as const;

export interface SubmitRequest {
  readonly bankId: string;
  readonly taskType: string;
  readonly itemsCount: number;
  readonly payload?: JsonValue;
  readonly documentId?: string;
  /** Client-supplied id (idempotency); a UUID when absent. */
  readonly id?: string;
  readonly parentId?: string;
  readonly childIds?: readonly string[];
  /** A parent operation aggregates its children and runs nothing itself. */
  readonly aggregate?: boolean;
}

/**
 * A read of a bank waits for the async retains the bank has waiting when they hold at most this
 * much text (tens of milliseconds of analysis): a client finds what it just wrote. A larger
 * backlog (a bulk import), or other work queued with them, is not waited for: the read answers
 * at once, without it.
 */
const READ_WAITS_FOR_CHARS = 256 * 1024;

/** Characters of text an operation's payload carries (its items' contents), without walking more. */
const payloadChars = (payload: JsonValue | undefined): number => {
  const items = isRecord(payload) ? payload['items'] : undefined;
  if (!Array.isArray(items)) return 0;
  let chars = 0;
  for (const item of items) {
    const content = isRecord(item) ? item['content'] : undefined;
    if (typeof content === 'string') chars += content.length;
  }
  return chars;
};

export interface OperationRunner {
  register(taskType: string, handler: OperationHandler): void;
  registerBatch(taskType: string, handler: BatchOperationHandler): void;
  /**
   * The mutations that record `operation`'s end (a completed one drops its payload: its work
   * is stored now) and, when it was its parent's last open child, the parent's.
   */
  ended(operation: OperationRecord, outcome: OperationOutcome): Mutation[];
  /**
   * Resolves once the operations `bankId` has waiting have run, started now rather than at the
   * next pause in requests; at once when there are none, or too many to wait for.
   */
  caughtUp(bankId: string): Promise<void>;
  /** True while `bankId` has operations waiting or running. */
  waiting(bankId: string): boolean;
  /** Builds the record for a new pending operation (not yet committed). */
  build(request: SubmitRequest): OperationRecord;
  /** Schedules committed pending operations to run. */
  schedule(operations: readonly OperationRecord[]): void;
  /** Resumes every pending or processing operation in the store (start-up). */
  resumeAll(): void;
  /** Resolves once nothing is scheduled or running. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface OperationRunnerOptions {
  readonly store: ServerStore;
  readonly faults: FaultSet;
  readonly delayMs: number;
  readonly nowIso: () => string;
  readonly newId: () => string;
  /** Operations start when requests pause. */
  readonly foreground: Foreground;
}

export const createOperationRunner = (options: OperationRunnerOptions): OperationRunner => {
  const { store, faults, nowIso } = options;
  const handlers = new Map<string, OperationHandler>();
  const batchHandlers = new Map<string, BatchOperationHandler>();
  /** Per bank: operations due to run, in submission order, and the worker running them. */
  const queues = new Map<string, OperationRecord[]>();
  const workers = new Map<string, Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  const settle = (): void => {
    if (inFlight > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  const put = (operation: OperationRecord): Promise<void> => store.commit([{ type: 'operation.put', operation }]);

  const current = (operation: OperationRecord): OperationRecord | undefined => store.bank(operation.bank_id)?.operations.get(operation.id);

  const isTerminal = (status: string): boolean => status === 'completed' || status === 'failed' || status === 'cancelled';

  /** The parent's record once `child` is as given (undefined: nothing to change). */
  const parentAfter = (child: OperationRecord): OperationRecord | undefined => {
    if (child.parent_id === undefined) return undefined;
    const bank = store.bank(child.bank_id);
    const parent = bank?.operations.get(child.parent_id);
    if (bank === undefined || parent === undefined) return undefined;
    const children = (parent.child_ids ?? []).map((id) => (id === child.id ? child : bank.operations.get(id)));
    const failedChild = children.find((c) => c?.status === 'failed');
    const done = children.every((c) => c !== undefined && isTerminal(c.status));
    const now = nowIso();
    if (!done) return parent.status === 'pending' ? { ...parent, status: 'processing', updated_at: now } : undefined;
    const status = failedChild !== undefined ? 'failed' : 'completed';
    // Already recorded in the commit of the child's own end.
    if (parent.status === status) return undefined;
    return {
      ...parent,
      status,
      updated_at: now,
      completed_at: now,
      ...(failedChild?.error_message === undefined ? {} : { error_message: failedChild.error_message }),
    };
  };

  /** Moves a parent to completed/failed once all its children are terminal. */
  const updateParent = async (child: OperationRecord): Promise<void> => {
    const parent = parentAfter(child);
    if (parent !== undefined) await put(parent);
  };

  const endedRecord = (operation: OperationRecord, outcome: OperationOutcome): OperationRecord => {
    const now = nowIso();
    if (outcome.status === 'failed') return { ...operation, status: 'failed', updated_at: now, completed_at: now, error_message: outcome.message };
    // A completed operation's payload is its work, stored now: kept, it would be written and held twice.
    const { payload: _done, ...rest } = operation;
    return { ...rest, status: 'completed', updated_at: now, completed_at: now, ...(outcome.metadata === undefined ? {} : { result_metadata: outcome.metadata }) };
  };

  const ended = (operation: OperationRecord, outcome: OperationOutcome): Mutation[] => {
    const record = endedRecord(operation, outcome);
    const parent = parentAfter(record);
    return [{ type: 'operation.put', operation: record }, ...(parent === undefined ? [] : [{ type: 'operation.put' as const, operation: parent }])];
  };

  const execute = async (operation: OperationRecord): Promise<void> => {
    const live = current(operation);
    if (live === undefined || (live.status !== 'pending' && live.status !== 'processing')) return;
    const fault = faults.forOperation(live.task_type);
    if (fault?.kind === 'pendingOperation') return;
    const started = nowIso();
    await put({ ...live, status: 'processing', updated_at: started });
    let result: OperationRecord;
    if (fault?.kind === 'failOperation') {
      result = { ...live, status: 'failed', updated_at: nowIso(), completed_at: nowIso(), error_message: fault.message ?? 'injected failure' };
    } else {
      const handler = handlers.get(live.task_type);
      try {
        if (handler === undefined) throw new Error(`no handler for operation type ${live.task_type}`);
        const metadata = await handler(live);
        const after = current(live) ?? live;
        // A handler may record its own completion in the same commit as its work.
        if (after.status === 'completed') {
          await updateParent(after);
          return;
        }
        result = { ...after, status: 'completed', updated_at: nowIso(), completed_at: nowIso(), ...(metadata === undefined ? {} : { result_metadata: metadata }) };
      } catch (error) {
        const after = current(live) ?? live;
        const message = error instanceof Error ? error.message : String(error);
        result = { ...after, status: 'failed', updated_at: nowIso(), completed_at: nowIso(), error_message: message };
      }
    }
    if (current(live) === undefined) return; // the bank or the operation was deleted meanwhile
    await put(result);
    await updateParent(result);
  };

  /** Runs operations of one batch handler's type; each ends completed or failed (or stays pending under a fault). */
  const executeBatch = async (handler: BatchOperationHandler, operations: readonly OperationRecord[], pause: () => Promise<void>): Promise<void> => {
    const live: OperationRecord[] = [];
    for (const operation of operations) {
      const record = current(operation);
      if (record === undefined || (record.status !== 'pending' && record.status !== 'processing')) continue;
      const fault = faults.forOperation(record.task_type);
      if (fault?.kind === 'pendingOperation') continue;
      if (fault?.kind === 'failOperation') {
        await store.commit(ended(record, { status: 'failed', message: fault.message ?? 'injected failure' }));
        continue;
      }
      live.push(record);
    }
    if (live.length === 0) return;
    let thrown: string | undefined;
    try {
      await handler(live, pause);
    } catch (error) {
      thrown = error instanceof Error ? error.message : String(error);
    }
    for (const operation of live) {
      const after = current(operation);
      if (after === undefined) continue; // the bank or the operation was deleted meanwhile
      if (after.status === 'completed' || after.status === 'failed') {
        await updateParent(after);
        continue;
      }
      await store.commit(ended(after, { status: 'failed', message: thrown ?? `operation ${after.id} was left unfinished` }));
    }
  };

  /** The operations the next step runs: the head of the queue, with those of its batch. */
  const takeNext = (queue: OperationRecord[], limit: number): OperationRecord[] => {
    const head = queue.shift();
    if (head === undefined) return [];
    if (!batchHandlers.has(head.task_type)) return [head];
    const taken = [head];
    let items = head.items_count;
    while (queue[0] !== undefined && queue[0].task_type === head.task_type && items + queue[0].items_count <= limit) {
      const next = queue.shift();
      if (next === undefined) break;
      items += next.items_count;
      taken.push(next);
    }
    return taken;
  };

  /** Per bank: ends a worker's wait for a pause in requests (a read of the bank wants its writes). */
  const hurry = new Map<string, () => void>();
  /** Per bank: the operations its worker is running now. */
  const running = new Map<string, readonly OperationRecord[]>();
  /** Per bank: how many operations its worker has finished since it started. */
  const finished = new Map<string, number>();
  /**
   * Per bank: reads waiting for the operations there were when they came (the worker has
   * finished `upTo` of them). Until then those run without waiting for a pause; operations
   * queued after the read wait for one again, and the read does not wait for them.
   */
  const catchUps = new Map<string, { readonly upTo: number; readonly resolve: () => void }[]>();
  const hurried = (bankId: string): boolean => (catchUps.get(bankId)?.length ?? 0) > 0;
  const caughtUpTo = (bankId: string, count: number): void => {
    finished.set(bankId, count);
    const waiting = catchUps.get(bankId);
    if (waiting === undefined) return;
    const still = waiting.filter((w) => w.upTo > count);
    for (const w of waiting) if (w.upTo <= count) w.resolve();
    if (still.length > 0) catchUps.set(bankId, still);
    else catchUps.delete(bankId);
  };

  /** A pause in requests, or a read of the bank hurrying its operations on. */
  const turnFor = (bankId: string): Promise<Turn> => {
    if (hurried(bankId)) return Promise.resolve('quiet');
    // A hurry ends the foreground's wait too, so its timers stop looking for a pause.
    const wait = new AbortController();
    return new Promise<Turn>((resolve) => {
      hurry.set(bankId, () => resolve('quiet'));
      void options.foreground.turn(wait.signal).then(resolve);
    }).finally(() => {
      hurry.delete(bankId);
      wait.abort();
    });
  };

  const pauseFor = async (bankId: string): Promise<void> => {
    await yieldToLoop();
    if (!closed) await turnFor(bankId);
  };

  const work = async (bankId: string): Promise<void> => {
    const queue = queues.get(bankId) ?? [];
    while (queue.length > 0) {
      // Always awaited, so the worker is registered before it can finish.
      const turn = await (closed ? Promise.resolve('quiet' as const) : turnFor(bankId));
      const taken = takeNext(queue, BATCH_ITEMS[turn]);
      running.set(bankId, taken);
      const first = taken[0];
      try {
        if (!closed && first !== undefined) {
          const batch = batchHandlers.get(first.task_type);
          if (batch !== undefined) await executeBatch(batch, taken, () => pauseFor(bankId));
          else await execute(first);
        }
      } catch (error) {
        console.error(`embedded server: operation ${first?.id ?? ''} could not be recorded: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        running.delete(bankId);
        inFlight -= taken.length;
        caughtUpTo(bankId, (finished.get(bankId) ?? 0) + taken.length);
        settle();
      }
    }
    queues.delete(bankId);
    workers.delete(bankId);
    caughtUpTo(bankId, Infinity);
    finished.delete(bankId);
  };

  /** Queues an operation whose delay has passed; a bank's worker runs its queue in order. */
  const start = (operation: OperationRecord): void => {
    const queue = queues.get(operation.bank_id);
    if (queue !== undefined) queue.push(operation);
    else queues.set(operation.bank_id, [operation]);
    if (!workers.has(operation.bank_id)) workers.set(operation.bank_id, work(operation.bank_id));
  };

  const enqueue = (operation: OperationRecord): void => {
    if (closed) return;
    inFlight += 1;
    if (options.delayMs <= 0) {
      setImmediate(() => start(operation));
      return;
    }
    // The delay is what makes a client exercise its polling; order per bank is kept by the queue.
    const timer = setTimeout(() => {
      timers.delete(timer);
      start(operation);
    }, options.delayMs);
    timers.add(timer);
  };

  return {
    register: (taskType, handler) => {
      handlers.set(taskType, handler);
    },
    registerBatch: (taskType, handler) => {
      batchHandlers.set(taskType, handler);
    },
    ended,
    waiting: (bankId) => workers.has(bankId),
    caughtUp: (bankId) => {
      const worker = workers.get(bankId);
      const queue = queues.get(bankId);
      if (worker === undefined || queue === undefined) return Promise.resolve();
      let chars = 0;
      // The batch being applied counts too: a read does not wait behind a bulk one either, nor
      // behind other kinds of work (a mental model's refresh).
      for (const operation of [...(running.get(bankId) ?? []), ...queue]) {
        if (!batchHandlers.has(operation.task_type)) return Promise.resolve();
        chars += payloadChars(operation.payload);
      }
      if (chars > READ_WAITS_FOR_CHARS) return Promise.resolve();
      const upTo = (finished.get(bankId) ?? 0) + (running.get(bankId)?.length ?? 0) + queue.length;
      const caughtUp = new Promise<void>((resolve) => {
        catchUps.set(bankId, [...(catchUps.get(bankId) ?? []), { upTo, resolve }]);
      });
      hurry.get(bankId)?.();
      return caughtUp;
    },
    build: (request) => {
      const now = nowIso();
      return {
        id: request.id ?? options.newId(),
        bank_id: request.bankId,
        task_type: request.taskType,
        status: 'pending',
        items_count: request.itemsCount,
        created_at: now,
        updated_at: now,
        ...(request.documentId === undefined ? {} : { document_id: request.documentId }),
        ...(request.payload === undefined ? {} : { payload: request.payload }),
        ...(request.parentId === undefined ? {} : { parent_id: request.parentId }),
        ...(request.childIds === undefined ? {} : { child_ids: [...request.childIds] }),
      };
    },
    schedule: (operations) => {
      for (const op of operations) if (op.child_ids === undefined) enqueue(op);
    },
    resumeAll: () => {
      const pending: OperationRecord[] = [];
      const parents: OperationRecord[] = [];
      for (const bank of store.state.banks.values()) {
        for (const op of bank.operations.values()) {
          if (op.status !== 'pending' && op.status !== 'processing') continue;
          if (op.child_ids === undefined) pending.push(op);
          else parents.push(op);
        }
      }
      pending.sort((a, b) => a.created_at.localeCompare(b.created_at));
      for (const op of pending) enqueue(op);
      // A kill between a child's completion and its parent's update left the parent open for
      // good (the chaos run saw it): settle it from its children now; running children settle
      // it themselves when they finish.
      for (const parent of parents) {
        const firstChild = store.bank(parent.bank_id)?.operations.get(parent.child_ids?.[0] ?? '');
        if (firstChild === undefined) continue;
        inFlight += 1;
        void updateParent(firstChild)
          .catch((error: unknown) => console.error(`embedded server: operation ${parent.id} could not be settled: ${error instanceof Error ? error.message : String(error)}`))
          .finally(() => {
            inFlight -= 1;
            settle();
          });
      }
    },
    idle: () =>
      inFlight === 0
        ? Promise.resolve()
        : new Promise((resolve) => {
            idleWaiters.push(resolve);
          }),
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      inFlight -= timers.size;
      timers.clear();
      await Promise.all([...workers.values()]);
      settle();
    },
  };
};
