/**
 * The session's shutdown: wait (bounded) for the runs being handed off, then, when the process
 * ends, a bounded best-effort flush of the queue (its jobs are already durable either way).
 */
import { sessionEvents } from '../../machines/session/events.js';
import type { ClockPort } from '../ports/clock.js';
import type { SessionQueue } from '../ports/sessionQueue.js';
import type { InFlight } from './inFlight.js';
import type { SessionGate } from './types.js';

export interface ShutdownDeps {
  readonly clock: ClockPort;
  readonly queue: SessionQueue | undefined;
  readonly gate: () => SessionGate;
  readonly inFlight: InFlight;
  /** Bound of the flush: shutdown never blocks the host for long. */
  readonly flushMs: number;
  /** False when the session is replaced and the process goes on: hand-offs only, no delivery wait. */
  readonly flushQueue: boolean;
}

const noop = (): void => undefined;

export const flushOnShutdown = async (deps: ShutdownDeps): Promise<void> => {
  const { clock, queue, inFlight } = deps;
  const gate = deps.gate();
  const deadline = clock.now() + deps.flushMs;
  const bounded = <T>(p: Promise<T>): Promise<T | undefined> =>
    Promise.race([p, new Promise<undefined>((resolve) => clock.setTimer(deadline, () => resolve(undefined)))]);
  await bounded(Promise.allSettled(inFlight.current()));
  if (deps.flushQueue && queue !== undefined && queue.status().depth > 0) await bounded(queue.flush({ deadline }).catch(noop));
  await gate.dispatch(sessionEvents.shutdownFinished({ at: clock.now() }));
};
