/**
 * The gate runtime: runs one gate machine as an event-sourced actor.
 *
 * Invariants:
 * - Every external input is decoded, then appended to the journal (durably), then sent.
 *   Nothing reaches the machine that is not in the journal, in the same order.
 * - On start, state is the fold of the journal through the pure `transition()`: actions are
 *   returned and dropped, so replay never repeats I/O. Work that must resume after a restart
 *   (a retry deadline, an unfinished delivery) is picked up by `onRestore`, from context.
 * - A decode failure is answered with an error naming the field and leaves state as it was.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import {
  createActor,
  initialTransition,
  transition,
  type Actor,
  type AnyStateMachine,
  type EventFromLogic,
  type InputFrom,
  type SnapshotFrom,
} from 'xstate';
import { decodeWith, type DecodeError } from '../../codecs/decode.js';
import { createDispatcher } from './dispatch.js';
import { systemClock, type ClockPort } from '../ports/clock.js';
import type { JournalDamage, JournalPort } from '../ports/journal.js';
import type { TracePort } from '../ports/trace.js';
import { traceInspector, traceWriter } from './trace.js';

export interface StartGateOptions<TMachine extends AnyStateMachine> {
  /** The gate's name in errors and traces, e.g. `session`. */
  readonly name: string;
  /** The machine, with its effects already provided (`machine.provide(...)`). */
  readonly machine: TMachine;
  /** The codec of the gate's external events: the single source of their type. */
  readonly events: t.Type<EventFromLogic<TMachine>, unknown, unknown>;
  readonly journal?: JournalPort;
  readonly trace?: TracePort;
  readonly clock?: ClockPort;
  readonly input?: InputFrom<TMachine>;
  /**
   * Called once after a non-empty journal was folded, before any new input: re-arm timers
   * and re-request unfinished work from context, since a restore re-runs no entry action.
   */
  readonly onRestore?: (snapshot: SnapshotFrom<TMachine>, gate: GateRuntime<TMachine>) => void;
}

export interface GateRuntime<TMachine extends AnyStateMachine> {
  readonly name: string;
  /** Decodes, journals, then sends `input`; resolves to the snapshot after it, or the error. */
  dispatch(input: unknown): Promise<E.Either<DecodeError, SnapshotFrom<TMachine>>>;
  /**
   * `dispatch`, done when it returns (the gate's actions have run): for a hook the host never
   * awaits. Throws if the journal cannot store the event or appends only asynchronously.
   */
  dispatchSync(input: unknown): E.Either<DecodeError, SnapshotFrom<TMachine>>;
  getSnapshot(): SnapshotFrom<TMachine>;
  select<T>(selector: (snapshot: SnapshotFrom<TMachine>) => T): T;
  subscribe(listener: (snapshot: SnapshotFrom<TMachine>) => void): () => void;
  /** Records that could not be replayed on start: kept aside by the journal, reported here. */
  readonly damage: readonly JournalDamage[];
  /** How many journal records the start-up fold replayed. */
  readonly replayed: number;
  /** Waits for queued dispatches, then stops the actor. Further dispatches are refused. */
  stop(): Promise<void>;
}

/**
 * The machine the live actor runs. A fold without child actors is already the snapshot the
 * actor starts from: xstate would persist it and revive it, walking every object of the context
 * twice (a queue of 100k jobs: about a quarter of a second), to rebuild what the fold holds.
 * The actor is given the fold itself; a fold with children (none of the gates has any) goes the
 * usual way, so its children are recreated in the actor's system.
 */
const resumable = <TMachine extends AnyStateMachine>(machine: TMachine, folded: SnapshotFrom<TMachine> | undefined): TMachine => {
  if (folded === undefined) return machine;
  const children = (folded as { children?: Record<string, unknown> }).children ?? {};
  if (Object.keys(children).length > 0) return machine;
  const logic = Object.create(machine) as TMachine;
  const restore = machine.restoreSnapshot.bind(machine) as (snapshot: unknown, scope: unknown) => unknown;
  Object.defineProperty(logic, 'restoreSnapshot', { value: (snapshot: unknown, scope: unknown) => (snapshot === folded ? folded : restore(snapshot, scope)) });
  return logic;
};

/**
 * Starts a gate: folds its journal, then runs it live.
 *
 * @example
 * const gate = await startGate({ name: 'session', machine: sessionMachine.provide(effects), events: SessionEvent, journal });
 * const result = await gate.dispatch({ type: 'session.started', at: now });
 * if (E.isLeft(result)) console.error(result.left.message);
 */
export const startGate = async <TMachine extends AnyStateMachine>(
  options: StartGateOptions<TMachine>,
): Promise<GateRuntime<TMachine>> => {
  const { name, machine, events, journal, trace } = options;
  const clock = options.clock ?? systemClock;
  const decodeEvent = decodeWith(events, `${name} event`);
  const writeTrace = traceWriter(name, trace, clock);

  const damage: JournalDamage[] = [];
  let replayed = 0;
  let folded: SnapshotFrom<TMachine> | undefined;
  if (journal !== undefined) {
    const loaded = await journal.load();
    damage.push(...loaded.damage);
    if (loaded.records.length > 0) {
      let [snapshot] = initialTransition(machine, options.input as InputFrom<TMachine>);
      for (const record of loaded.records) {
        const decoded = decodeEvent(record.payload);
        if (E.isLeft(decoded)) {
          // A record that no longer decodes (an older version wrote it) is reported, not fatal.
          damage.push({ line: record.seq, reason: decoded.left.message });
          continue;
        }
        [snapshot] = transition(machine, snapshot, decoded.right);
        replayed += 1;
      }
      folded = snapshot as SnapshotFrom<TMachine>;
    }
  }

  const inspect = trace === undefined ? undefined : traceInspector(writeTrace);
  const actorOptions = {
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(folded === undefined ? {} : { snapshot: folded }),
    ...(inspect === undefined ? {} : { inspect }),
  };
  const actor = createActor(resumable(machine, folded), actorOptions as never) as Actor<TMachine>;

  const dispatcher = createDispatcher<EventFromLogic<TMachine>, SnapshotFrom<TMachine>>({
    source: `${name} event`,
    decode: decodeEvent,
    journal,
    clock,
    trace: writeTrace,
    send: (event) => actor.send(event),
    snapshot: () => actor.getSnapshot() as SnapshotFrom<TMachine>,
  });

  const gate: GateRuntime<TMachine> = {
    name,
    damage,
    replayed,
    dispatch: dispatcher.dispatch,
    dispatchSync: dispatcher.dispatchSync,
    getSnapshot: () => actor.getSnapshot() as SnapshotFrom<TMachine>,
    select: (selector) => selector(actor.getSnapshot() as SnapshotFrom<TMachine>),
    subscribe: (listener) => {
      const subscription = actor.subscribe((snapshot) => listener(snapshot as SnapshotFrom<TMachine>));
      return () => subscription.unsubscribe();
    },
    stop: async () => {
      await dispatcher.close();
      actor.stop();
    },
  };

  actor.start();
  if (folded !== undefined) options.onRestore?.(actor.getSnapshot() as SnapshotFrom<TMachine>, gate);
  return gate;
};
