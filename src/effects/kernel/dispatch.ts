/**
 * The one way an input reaches a running gate: decode -> journal (durable) -> send.
 * Dispatches are chained, so the journal order is exactly the order the actor sees.
 */
import * as E from 'fp-ts/lib/Either.js';
import { decodeError, type DecodeError } from '../../machines/shared/decode.js';
import type { JsonValue } from '../../machines/shared/codecs.js';
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
  /** Refuses further input and waits for what is already queued. */
  close(): Promise<void>;
}

export const createDispatcher = <TEvent extends { readonly type: string }, TSnapshot>(
  options: DispatcherOptions<TEvent, TSnapshot>,
): Dispatcher<TSnapshot> => {
  const { source, decode, journal, clock, trace, send, snapshot } = options;
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;

  return {
    dispatch: (input) => {
      const decoded = decode(input);
      if (E.isLeft(decoded)) {
        trace('rejected', { error: decoded.left.message });
        return Promise.resolve(E.left(decoded.left));
      }
      if (closed) {
        const error = decodeError(source, [{ path: 'type', expected: 'a running gate', actual: 'stopped' }]);
        trace('rejected', { error: error.message });
        return Promise.resolve(E.left(error));
      }
      const event = decoded.right;
      const step = tail.then(async () => {
        // One JSON copy serves the journal and the trace.
        const payload = toJson(event);
        if (journal !== undefined) {
          await journal.append([{ type: event.type, at: new Date(clock.now()).toISOString(), payload }]);
        }
        trace('event', payload);
        send(event);
        return E.right(snapshot());
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
