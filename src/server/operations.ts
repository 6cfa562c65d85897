/**
 * Async operations: `submit` records a pending operation (durably) and schedules it; a runner
 * per bank executes them in submission order after `operationDelayMs`, moving each through
 * processing to completed or failed. Handlers are registered per `task_type` by the route
 * modules. Pending operations found at start-up are resumed, so an acknowledged async retain
 * survives a crash.
 */
import type { JsonValue } from '../codecs/codecs.js';
import type { FaultSet } from './faults.js';
import type { OperationRecord } from './store/model.js';
import type { ServerStore } from './store/store.js';

/** Runs one operation; resolves to result metadata, throws (with a user-readable message) to fail it. */
export type OperationHandler = (operation: OperationRecord) => Promise<Record<string, JsonValue> | undefined>;

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

export interface OperationRunner {
  register(taskType: string, handler: OperationHandler): void;
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
}

export const createOperationRunner = (options: OperationRunnerOptions): OperationRunner => {
  const { store, faults, nowIso } = options;
  const handlers = new Map<string, OperationHandler>();
  const chains = new Map<string, Promise<void>>();
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

  /** Moves a parent to completed/failed once all its children are terminal. */
  const updateParent = async (child: OperationRecord): Promise<void> => {
    if (child.parent_id === undefined) return;
    const bank = store.bank(child.bank_id);
    const parent = bank?.operations.get(child.parent_id);
    if (bank === undefined || parent === undefined) return;
    const children = (parent.child_ids ?? []).map((id) => bank.operations.get(id));
    const statuses = children.map((c) => c?.status);
    const failedChild = children.find((c) => c?.status === 'failed');
    const done = statuses.every((s) => s === 'completed' || s === 'failed' || s === 'cancelled');
    const now = nowIso();
    if (!done) {
      if (parent.status === 'pending') await put({ ...parent, status: 'processing', updated_at: now });
      return;
    }
    await put({
      ...parent,
      status: failedChild !== undefined ? 'failed' : 'completed',
      updated_at: now,
      completed_at: now,
      ...(failedChild?.error_message === undefined ? {} : { error_message: failedChild.error_message }),
    });
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

  const enqueue = (operation: OperationRecord): void => {
    if (closed) return;
    inFlight += 1;
    const start = (): void => {
      const previous = chains.get(operation.bank_id) ?? Promise.resolve();
      const next = previous
        .then(() => (closed ? undefined : execute(operation)))
        .catch((error: unknown) => {
          console.error(`embedded server: operation ${operation.id} could not be recorded: ${error instanceof Error ? error.message : String(error)}`);
        })
        .finally(() => {
          inFlight -= 1;
          settle();
        });
      chains.set(operation.bank_id, next);
    };
    if (options.delayMs <= 0) {
      setImmediate(start);
      return;
    }
    // The delay is what makes a client exercise its polling; order per bank is kept by the chain.
    const timer = setTimeout(() => {
      timers.delete(timer);
      start();
    }, options.delayMs);
    timers.add(timer);
  };

  return {
    register: (taskType, handler) => {
      handlers.set(taskType, handler);
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
      await Promise.all([...chains.values()]);
      settle();
    },
  };
};
