/**
 * pi's hook payloads, decoded where they arrive: each hook reads its event through one of these
 * codecs, so a pi line that changes a field's shape is a warning that names the field, never a
 * crash deeper in. Messages stay pi's own objects (`unknown` here, the same array pi passed):
 * the session effects read them defensively, and the recall block is inserted among them.
 */
import type * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { decodeWith, type DecodeError } from '../../codecs/decode.js';
import { StartReason } from '../../machines/session/events.js';

export const SessionStartPayload = t.type({ reason: StartReason });

export const ContextPayload = t.type({ messages: t.array(t.unknown) });

/** `willRetry`: pi 0.80+ says a failed attempt will be retried (the run is not over). */
export const AgentEndPayload = t.intersection([t.type({ messages: t.array(t.unknown) }), t.partial({ willRetry: t.boolean })]);

/** `reason` is read leniently: a reason this library does not know is treated as `quit`. */
export const SessionShutdownPayload = t.partial({ reason: t.string, targetSessionFile: t.string });

/** pi 0.80.3+: the session's new name; absent when it was cleared. */
// Exact: pi's event carries its own `type`, which must not reach the gate's event.
export const SessionInfoChangedPayload = t.exact(t.partial({ name: t.string }));

/** Decodes one hook's payload; the error names the hook and the field. */
export const decodeHook = <A>(codec: t.Type<A, unknown, unknown>, hook: string, payload: unknown): E.Either<DecodeError, A> => decodeWith(codec, `pi ${hook} event`)(payload);
