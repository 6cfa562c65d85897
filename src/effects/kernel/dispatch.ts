/**
 * The one way an input reaches a running gate: decode -> journal (durable) -> send.
 * Over a journal that appends synchronously (or none), a dispatch is done when the call
 * returns; over an async-only journal, dispatches are chained. Either way the journal order is
 * exactly the order the actor sees.
 */
import * as E from 'fp-ts/lib/Either.js';
import { decodeError, type DecodeError } from '../../codecs/decode.js';
import type { JsonValue } from '../../codecs/codecs.js';
import type { ClockPort } from '../ports/clock.js';
import type { JournalPort } from '../ports/journal.js';
import type { TraceKind } from '../ports/trace.js';
import { toJson } from './trace.js';

export interface DispatcherOptions<TEvent extends { readonly type: string }, TSnapshot> {
  readonly source: string;
  readonly decode: (input: unknown) => E.Either<DecodeError, TEvent>;
  readonly journal: JournalPort | undefined;
  readonly clock: ClockPort;
  readonly trace: (kind: TraceKind, data: JsonValue) => void;
  readonly send: (event: TEvent) => void;
  readonly snapshot: () => TSnapshot;
}

export interface Dispatcher<TSnapshot> {
  /**
   * Resolves to the snapshot after the event, or to the decode error (state untouched).
   * Rejects only when the journal cannot store the event: then it was not sent either.
   */
  dispatch(input: unknown): Promise<E.Either<DecodeError, TSnapshot>>;
  /**
   * `dispatch`, done when it returns: for a host hook that is never awaited (pi's `agent_end`).
   * Throws when the journal cannot store the event (then it was not sent either), or when the
   * journal only appends asynchronously.
   */
  dispatchSync(input: unknown): E.Either<DecodeError, TSnapshot>;
  /** Refuses further input and waits for what is already queued. */
  close(): Promise<void>;
}

export const createDispatcher = <TEvent extends { readonly type: string }, TSnapshot>(
  options: DispatcherOptions<TEvent, TSnapshot>,
): Dispatcher<TSnapshot> => {
  const { source, decode, journal, clock, trace, send, snapshot } = options;
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;

  const appendSync = journal === undefined ? () => undefined : journal.appendSync?.bind(journal);

  /** Decodes and checks the gate is running; the event, or the refusal (already traced). */
  const admit = (input: unknown): E.Either<DecodeError, TEvent> => {
    const decoded = decode(input);
    if (E.isLeft(decoded)) {
      trace('rejected', { error: decoded.left.message });
      return decoded;
    }
    if (closed) {
      const error = decodeError(source, [{ path: 'type', expected: 'a running gate', actual: 'stopped' }]);
      trace('rejected', { error: error.message });
      return E.left(error);
    }
    return decoded;
  };

  const deliver = (event: TEvent, payload: JsonValue): E.Either<DecodeError, TSnapshot> => {
    trace('event', payload);
    send(event);
    return E.right(snapshot());
  };

  const entryOf = (event: TEvent, payload: JsonValue) => [{ type: event.type, at: new Date(clock.now()).toISOString(), payload }];

  const dispatchSync = (input: unknown): E.Either<DecodeError, TSnapshot> => {
    if (appendSync === undefined) throw new Error(`${source}: this gate's journal appends asynchronously; use dispatch`);
    const admitted = admit(input);
    if (E.isLeft(admitted)) return admitted;
    // One JSON copy serves the journal and the trace.
    const payload = toJson(admitted.right);
    appendSync(entryOf(admitted.right, payload));
    return deliver(admitted.right, payload);
  };

  return {
    dispatchSync,
    dispatch: (input) => {
      if (appendSync !== undefined) {
        try {
          return Promise.resolve(dispatchSync(input));
        } catch (error) {
          return Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
      const admitted = admit(input);
      if (E.isLeft(admitted)) return Promise.resolve(admitted);
      const event = admitted.right;
      const step = tail.then(async () => {
        const payload = toJson(event);
        if (journal !== undefined) await journal.append(entryOf(event, payload));
        return deliver(event, payload);
      });
      tail = step.catch(() => undefined);
      return step;
    },
    close: async () => {
      closed = true;
      await tail;
    },
  };
};
