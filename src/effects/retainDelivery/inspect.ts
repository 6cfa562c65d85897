/**
 * The retain queue's status from its journal alone, by the same pure fold a start-up does,
 * with no actor, no lease and no effect: `status` and `doctor` look without delivering.
 */
import * as E from 'fp-ts/lib/Either.js';
import { initialTransition, transition } from 'xstate';
import { decodeWith } from '../../codecs/decode.js';
import type { DeliveryMode } from '../../machines/retainDelivery/context.js';
import type { BackoffPolicy } from '../../machines/retainDelivery/decide.js';
import { RetainDeliveryEvent, sharedEventTypes } from '../../machines/retainDelivery/events.js';
import { retainDeliveryMachine } from '../../machines/retainDelivery/machine.js';
import type { JournalPort } from '../ports/journal.js';
import { statusOf, type QueueStatus } from './status.js';

const decodeEvent = decodeWith(RetainDeliveryEvent, 'retainDelivery event');

/** The queue's snapshot folded from its journal; damaged or undecodable records are counted, not fatal. */
export const foldQueueJournal = async (journal: JournalPort, mode: DeliveryMode, backoff?: BackoffPolicy) => {
  const loaded = await journal.load();
  let [snapshot] = initialTransition(retainDeliveryMachine, { mode, ...(backoff === undefined ? {} : { backoff }) });
  let damaged = loaded.damage.length;
  for (const record of loaded.records) {
    // The same fold as a start-up: one process's own events are not folded.
    if (!sharedEventTypes.has(record.type)) continue;
    const event = decodeEvent(record.payload);
    if (E.isLeft(event)) {
      damaged += 1;
      continue;
    }
    [snapshot] = transition(retainDeliveryMachine, snapshot, event.right);
  }
  return { snapshot, damaged };
};

/** The queue's status from its journal alone. */
export const inspectQueue = async (journal: JournalPort, mode: DeliveryMode, backoff?: BackoffPolicy): Promise<QueueStatus> => {
  const { snapshot, damaged } = await foldQueueJournal(journal, mode, backoff);
  return statusOf(snapshot.value, snapshot.context, damaged);
};
