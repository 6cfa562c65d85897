/**
 * The server a runtime uses when memory is off for the project by the trust rule: every call
 * fails at once with `blocked` and the reason, and nothing touches the network. The real
 * client is never built for an untrusted origin, so no code path (probe, doctor, a tool, a
 * queue flush) can reach it.
 */
import * as TE from 'fp-ts/lib/TaskEither.js';
import type { BreakerState, MemoryServer, ServerFailure } from '../../effects/ports/memoryServer.js';

const CLOSED: BreakerState = { state: 'closed', failures: 0 };
// Not calls: a Promise-like or JSON probe of the object must not see a function here.
const NOT_CALLS = new Set(['then', 'toJSON', 'constructor']);

export const createBlockedServer = (baseUrl: string, reason: string): MemoryServer => {
  const failure: ServerFailure = { _tag: 'blocked', reason };
  const refuse = () => TE.left(failure);
  const fixed: Partial<MemoryServer> = {
    baseUrl,
    breaker: () => CLOSED,
    subscribeBreaker: () => () => undefined,
  };
  // Every other member is a call: answered with the refusal, whatever its name.
  return new Proxy(fixed, {
    get: (target, key) => (key in target ? target[key as keyof MemoryServer] : typeof key === 'string' && !NOT_CALLS.has(key) ? refuse : undefined),
  }) as MemoryServer;
};
