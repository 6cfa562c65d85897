/**
 * What the parts of one open retain queue share: its ports, the gate (replaced when another
 * process compacts the journal), the server (replaced when a resume brings a new key), and
 * the process's flags and counters. Each part reads and sets only the fields its job needs.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { SnapshotFrom } from 'xstate';
import { redact } from '../../config/redact.js';
import type { RetainDeliveryEventInput } from '../../machines/retainDelivery/events.js';
import type { RetainDeliveryMachine } from '../../machines/retainDelivery/machine.js';
import type { ClockPort } from '../ports/clock.js';
import type { MemoryServer } from '../ports/memoryServer.js';
import type { RetainQueueStore } from '../ports/retainQueueStore.js';
import type { GateRuntime } from '../kernel/startGate.js';

export type QueueSnapshot = SnapshotFrom<RetainDeliveryMachine>;
export type QueueGate = GateRuntime<RetainDeliveryMachine>;

export interface QueueCore {
  readonly clock: ClockPort;
  readonly store: RetainQueueStore;
  /** The tag this process puts on the batches it starts (`host:pid:uuid8`). */
  readonly owner: string;
  readonly warn: (message: string) => void;
  /** Undefined only while the gate first starts. */
  gate: QueueGate | undefined;
  server: MemoryServer;
  /** `close()` began: nothing new starts. */
  closing: boolean;
  /** `close()` ended: the gate is stopped. */
  closed: boolean;
  /** Damaged journal records seen since the queue opened. */
  damaged: number;
  counters: { readonly delivered: number; readonly deadLettered: number };
  /**
   * Set by a flush or a recheck: the next send looks at the server even if the shared breaker
   * says another process just found it down (that process may be gone, the server back).
   */
  probeRequested: boolean;
  /** Aborts the batch in flight when `close()` reaches its deadline. */
  abort: AbortController;
}

export const gateOf = (core: QueueCore): QueueGate => {
  if (core.gate === undefined) throw new Error('retain queue: used before its gate started; await openRetainQueue first');
  return core.gate;
};

export const snapshotOf = (core: QueueCore): QueueSnapshot => gateOf(core).getSnapshot();

export const errorText = (error: unknown): string => redact(error instanceof Error ? error.message : String(error));

/** Dispatches an event built by its constructor (the gate's codec checks it); throws its decode error. */
export const dispatch = async (core: QueueCore, event: RetainDeliveryEventInput): Promise<QueueSnapshot> => {
  const result = await gateOf(core).dispatch(event);
  if (E.isLeft(result)) throw new Error(result.left.message);
  return result.right;
};

/** Runs an effect outside the dispatch chain; its failure becomes a warning, never a crash. */
export const background = (core: QueueCore, label: string, work: () => Promise<void>): void => {
  work().catch((error: unknown) => {
    if (core.closed) return;
    core.warn(`retain queue: ${label} failed: ${errorText(error)}`);
  });
};

/**
 * Runs the tasks given to it one after another: each part that must not overlap itself (two
 * lease operations, two syncs, two batch starts, two deliveries) queues through one of these.
 */
export const oneAtATime = (): { readonly run: <T>(task: () => Promise<T>) => Promise<T>; readonly drained: () => Promise<void> } => {
  let chain: Promise<unknown> = Promise.resolve();
  return {
    run: (task) => {
      const run = chain.then(task);
      chain = run.catch(() => undefined);
      return run;
    },
    drained: async () => {
      await chain;
    },
  };
};
