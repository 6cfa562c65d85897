/**
 * Set-aside queue journals that hold nothing to deliver. A journal an earlier version of this
 * package wrote has no owner mark, so its first start sets it aside as it would a planted one
 * (`adapters/queue/queueOwner.ts`). When its fold has no job waiting, no dead letter and no
 * damage, nothing of the user's memory is in it: it is removed rather than reported at every
 * start. A set-aside journal with anything to deliver, an unreadable one and a set-aside
 * dead-letter log stay where they are, and are reported.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { readOnlyJournal } from '../../adapters/queue/readJournal.js';
import { inspectQueue } from '../../effects/retainDelivery/inspect.js';
import type { DeliveryMode } from '../../machines/retainDelivery/context.js';

/** Whether `file` is a set-aside journal of the queue at `journalPath` (not its dead-letter log). */
const isSetAsideJournal = (journalPath: string, file: string): boolean =>
  path.basename(file).startsWith(`${path.basename(journalPath).replace(/\.jsonl$/, '')}.untrusted-`);

/** Removes the drained set-aside journals among `files`; returns the ones kept. */
export const dropDrainedSetAside = async (journalPath: string, files: readonly string[], mode: DeliveryMode): Promise<readonly string[]> => {
  const kept: string[] = [];
  for (const file of files) {
    if (isSetAsideJournal(journalPath, file)) {
      const status = await inspectQueue(readOnlyJournal(file), mode).catch(() => undefined);
      if (status !== undefined && status.depth === 0 && status.deadLetters === 0 && status.damaged === 0) {
        rmSync(file, { force: true });
        continue;
      }
    }
    kept.push(file);
  }
  return kept;
};
