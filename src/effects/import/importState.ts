/**
 * The import state a checkpoint records, folded through the machine's pure `transition()`:
 * what status and doctor show without starting the gate (no effect runs, nothing is written).
 */
import * as E from 'fp-ts/lib/Either.js';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { decodeWith } from '../../codecs/decode.js';
import { ImportEvent } from '../../machines/import/events.js';
import { importMachine, type ImportMachine } from '../../machines/import/machine.js';
import type { JournalPort } from '../ports/journal.js';

const decode = decodeWith(ImportEvent, 'import checkpoint record');

export const readImportState = async (journal: JournalPort): Promise<SnapshotFrom<ImportMachine>> => {
  const loaded = await journal.load();
  let [snapshot] = initialTransition(importMachine);
  for (const record of loaded.records) {
    const event = decode(record.payload);
    if (E.isRight(event)) [snapshot] = transition(importMachine, snapshot, event.right);
  }
  return snapshot;
};
