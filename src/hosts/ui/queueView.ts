/**
 * The retain queue of a project as the browser shows it: read-only, by the same pure fold of
 * its journal a start-up does (`foldQueueJournal`, as `inspectQueue`), but keeping the jobs: each pending one, whether
 * the queue is backing off (and until when, and why), and each dead letter with its reason.
 * Never the retained text. Requeue and drop open the real queue (`openRetainQueue`), the one
 * path every process writes it through, then deliver at once so the result shows.
 */
import path from 'node:path';
import { ownerMark, readOwnerKey, setAsideNotice, setAsideQueueFiles } from '../../adapters/queue/queueOwner.js';
import { readOnlyJournal } from '../../adapters/queue/readJournal.js';
import { createMemoryServer } from '../../adapters/server/client.js';
import type { LoadedConfig } from '../../config/load.js';
import { resolveApiKey } from '../../config/trust.js';
import { foldQueueJournal } from '../../effects/retainDelivery/inspect.js';
import { openRetainQueue } from '../../effects/retainDelivery/queue.js';
import { describeDeadLetter } from '../../tools/commands/deadLetters.js';
import { statusOf, type QueueStatus } from '../../effects/retainDelivery/status.js';
import { pendingJobs } from '../../machines/retainDelivery/context.js';
import { fileRetainQueuePorts } from '../retainQueueStore.js';
import { cliTakeBack } from '../cli/selfCommand.js';

export interface QueueView {
  readonly path: string;
  readonly status: QueueStatus;
  readonly pending: readonly { readonly jobId: string; readonly bankId: string; readonly documentId: string; readonly enqueuedAt: string }[];
  readonly deadLetters: readonly { readonly jobId: string; readonly bankId: string; readonly documentId: string; readonly status: number | null; readonly at: string; readonly reason: string }[];
  /**
   * Queue files memory set aside as not written by this user, each with what to do: their jobs
   * wait outside the queue shown, which read "pending 0" while status and the doctor said "!".
   */
  readonly setAside: readonly string[];
}

export const readQueueView = async (loaded: LoadedConfig): Promise<QueueView> => {
  const { config } = loaded;
  const { snapshot, damaged } = await foldQueueJournal(readOnlyJournal(config.queuePath), config.retainDelivery);
  const context = snapshot.context;
  return {
    path: config.queuePath,
    status: statusOf(snapshot.value, context, damaged),
    pending: pendingJobs(context).map((job) => ({ jobId: job.jobId, bankId: job.bankId, documentId: job.documentId, enqueuedAt: job.enqueuedAt })),
    deadLetters: context.deadLetters.map(describeDeadLetter),
    // Served by the CLI's `ui`: its own command line delivers a queue moved back.
    setAside: setAsideQueueFiles(config.queuePath).map((file) => setAsideNotice(file, cliTakeBack(loaded.cwd))),
  };
};

export interface QueueChange {
  readonly changed: number;
  readonly delivered: number;
  readonly remaining: number;
  readonly deadLettered: number;
  readonly stoppedBecause?: string;
}

/** Requeues (then delivers) or drops one dead letter through the project's real queue. */
export const changeDeadLetter = async (loaded: LoadedConfig, env: NodeJS.ProcessEnv, verb: 'requeue' | 'drop', jobId: string): Promise<QueueChange> => {
  const { config } = loaded;
  const key = resolveApiKey(loaded, env);
  const server = createMemoryServer({ baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, ...(key._tag === 'key' ? { apiKey: key.key } : {}) });
  const queue = await openRetainQueue({
    ...fileRetainQueuePorts({ queuePath: config.queuePath, owner: { mark: ownerMark(readOwnerKey(path.dirname(loaded.files.user.path)), config.queuePath), trust: false } }),
    server,
    mode: config.retainDelivery,
    flushIntervalMs: config.retainFlushIntervalMs,
    async: config.retainAsync,
    onWarning: () => undefined,
  });
  try {
    const target = (await queue.deadLetters()).find((d) => d.job.jobId === jobId)?.job.jobId;
    if (target === undefined) throw new Error(`no dead letter ${jobId} in ${config.queuePath}; reload the queue`);
    if (verb === 'drop') return { changed: await queue.dropDeadLetters([target]), delivered: 0, remaining: queue.status().depth, deadLettered: 0 };
    const changed = await queue.requeueDeadLetters([target]);
    const report = await queue.flush({ force: true });
    return {
      changed,
      delivered: report.delivered,
      remaining: report.remaining,
      deadLettered: report.deadLettered,
      ...(report.stoppedBecause === undefined ? {} : { stoppedBecause: report.stoppedBecause }),
    };
  } finally {
    await queue.close({ flush: false });
  }
};
