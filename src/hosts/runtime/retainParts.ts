/**
 * The retain side a runtime opens: the file queue and the retain cursor. Either may fail to
 * open (a full or read-only disk, a refused state dir); the runtime then goes on without
 * automatic retain and says why, and the turns wait behind the cursor for a later session.
 */
import { ownerMark, readOwnerKey } from '../../adapters/queue/queueOwner.js';
import { openRetainCursor } from '../../adapters/queue/retainCursor.js';
import type { MemoryConfig } from '../../config/fields.js';
import { redact } from '../../config/redact.js';
import type { ClockPort } from '../../effects/ports/clock.js';
import type { MemoryServer } from '../../effects/ports/memoryServer.js';
import type { RetainCursor } from '../../effects/ports/retainCursor.js';
import type { TracePort } from '../../effects/ports/trace.js';
import { openRetainQueue, type RetainQueue } from '../../effects/retainDelivery/queue.js';
import { fileRetainQueuePorts } from '../retainQueueStore.js';
import { refusingCursor } from './standIns.js';

export interface RetainPartsOptions {
  readonly config: MemoryConfig;
  readonly memoryDir: string;
  /** Why the state dir is refused: then nothing opens under it. */
  readonly refusal: string | undefined;
  readonly server: MemoryServer;
  readonly clock: ClockPort;
  readonly trace: TracePort | undefined;
  /** Problems for status and doctor, already redacted. */
  readonly onProblem: (text: string) => void;
  /** pi's agent dir, where this user's queue key lives (`queueOwner.ts`). */
  readonly agentDir: string;
  /** Mark the journal as it is as this user's (the CLI's `flush --trust-queue`). */
  readonly trustQueue?: boolean;
  /** Why a new file at the journal's path must not be read (a git pull wrote it). */
  readonly refuseNewJournal?: () => string | undefined;
}

export interface RetainParts {
  /** Undefined when memory is off, the state dir is refused, or the queue could not open. */
  readonly queue: RetainQueue | undefined;
  readonly cursor: RetainCursor;
}

const reasonOf = (error: unknown): string => redact(error instanceof Error ? error.message : String(error));

export const openRetainParts = async (o: RetainPartsOptions): Promise<RetainParts> => {
  const { config } = o;
  let queue: RetainQueue | undefined;
  if (config.enabled && o.refusal === undefined) {
    try {
      queue = await openRetainQueue({
        // Job keys live in a journal other processes read: always SHA-256, never a twin's digest.
        ...fileRetainQueuePorts({ queuePath: config.queuePath, owner: { mark: ownerMark(readOwnerKey(o.agentDir), config.queuePath), trust: o.trustQueue === true }, ...(o.refuseNewJournal === undefined ? {} : { refuseNewFile: o.refuseNewJournal }) }),
        server: o.server,
        mode: config.retainDelivery,
        flushIntervalMs: config.retainFlushIntervalMs,
        clock: o.clock,
        async: config.retainAsync,
        onWarning: (message) => o.onProblem(redact(message)),
        ...(o.trace === undefined ? {} : { trace: o.trace }),
      });
    } catch (error) {
      o.onProblem(`retain queue could not open (${reasonOf(error)}); automatic retain is off until it can; each turn's messages wait behind the retain cursor and the next turn after a restart carries them`);
    }
  }
  if (o.refusal !== undefined) return { queue, cursor: refusingCursor(o.memoryDir, redact(o.refusal)) };
  try {
    return { queue, cursor: openRetainCursor(o.memoryDir) };
  } catch (error) {
    const reason = reasonOf(error);
    o.onProblem(`the retain cursor could not open (${reason}); automatic retain is off in this session`);
    return { queue, cursor: refusingCursor(o.memoryDir, reason) };
  }
};
