/** The retain-delivery machine's tests build events and fold them as the runtime does. */
import * as E from 'fp-ts/lib/Either.js';
import { transition, type SnapshotFrom } from 'xstate';
import { retainDeliveryMachine } from '../../../src/machines/retainDelivery/machine.js';
import { RetainDeliveryEvent } from '../../../src/machines/retainDelivery/events.js';
import { decodeWith } from '../../../src/codecs/decode.js';

export type Snapshot = SnapshotFrom<typeof retainDeliveryMachine>;

/** The gate's decoder, named `test event` in its messages. */
export const decodeEvent = decodeWith(RetainDeliveryEvent, 'test event');

/** Builds an event through its codec, as the runtime does: a test cannot send what a host could not. */
export const ev = (input: unknown): RetainDeliveryEvent => {
  const decoded = decodeEvent(input);
  if (E.isLeft(decoded)) throw new Error(decoded.left.message);
  return decoded.right;
};

/** The snapshot after `events`, through the pure `transition()` (actions returned and dropped). */
export const run = (snapshot: Snapshot, ...events: RetainDeliveryEvent[]): Snapshot => events.reduce((s, e) => transition(retainDeliveryMachine, s, e)[0], snapshot);
