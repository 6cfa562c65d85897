/**
 * What `agent-memory status` and `doctor` look at, opened read-only: config, scope, a server
 * client with no shared breaker file, the queue folded from its journal without a lock, and
 * the state dir checked with lstat and access(2). Nothing here creates, writes, enqueues or
 * delivers, so both commands work on a read-only, locked, symlinked or damaged state dir.
 */
import { homedir } from 'node:os';
import { createMemoryServer } from '../../adapters/server/client.js';
import { checkStateDir, type StateDirReport } from '../../adapters/fs/stateDirCheck.js';
import { trackedFilesUnder, trackedRefusal } from '../../adapters/git/trackedFiles.js';
import { readOnlyJournal } from '../../adapters/queue/readJournal.js';
import { readRetainFailing } from '../../adapters/queue/retainHealth.js';
import * as path from 'node:path';
import { loadConfig } from '../../config/load.js';
import { cliCommand, cliTakeBack } from './selfCommand.js';
import { redact } from '../../config/redact.js';
import { resolveApiKey, trustNotice } from '../../config/trust.js';
import { createBlockedServer } from '../../adapters/server/blocked.js';
import { inspectQueue } from '../../effects/retainDelivery/inspect.js';
import type { QueueStatus } from '../../effects/retainDelivery/status.js';
import type { ToolRetainQueue } from '../../effects/ports/toolQueue.js';
import type { RuntimeStatusView, ToolContext } from '../../tools/context.js';
import { setAsideNotice, setAsideQueueFiles } from '../../adapters/queue/queueOwner.js';
import { importStatusOf } from '../importer.js';
import { createToolContext } from '../toolContext.js';

export interface Inspection {
  readonly tools: ToolContext;
  readonly stateDir: StateDirReport;
  /** Why the queue could not be read (a link, EACCES, ...); its status is then unknown. */
  readonly queueProblem?: string;
  /** Why turns are not being saved (disk full, read-only), from the runtime's record or the disk itself. */
  readonly retainFailing?: string;
  /** Queue files set aside as not written by this user's memory (`queueOwner.ts`), each with what to do. */
  readonly setAside: readonly string[];
}

const unknownQueue: QueueStatus = { depth: 0, deadLetters: 0, state: 'idle', damaged: 0 };

/** A queue that answers status only: status and doctor never enqueue or deliver. */
const statusOnlyQueue = (status: QueueStatus, problem: string | undefined, retainFailing: string | undefined): ToolRetainQueue => ({
  enqueue: () => Promise.reject(new Error('read-only inspection: nothing can be queued here')),
  flush: () => Promise.resolve({ delivered: 0, remaining: status.depth, deadLettered: 0, stoppedBecause: `read-only inspection; run ${cliCommand(['flush'])} to deliver` }),
  status: () => ({ ...status, ...(problem === undefined ? {} : { lastError: problem }), ...(retainFailing === undefined ? {} : { retainFailing }) }),
});

export const openInspection = async (cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Inspection> => {
  const home = env['HOME'] ?? homedir();
  const loaded = loadConfig({ cwd, home, env });
  const { config } = loaded;
  const checked = checkStateDir(loaded.stateDir, config.queuePath, [{ file: config.importCheckpoint, field: 'import.checkpointPath' }, { file: config.importManifest, field: 'import.manifestPath' }]);
  // The runtime refuses a state dir git tracks files in (`trackedFiles.ts`); the doctor says so.
  const tracked = await trackedFilesUnder(checked.memoryDir);
  const stateDir: StateDirReport =
    tracked.length === 0 ? checked : { ...checked, findings: [...checked.findings, { kind: 'unsafe', file: checked.memoryDir, reason: trackedRefusal(checked.memoryDir, cwd, tracked) }] };
  const key = resolveApiKey(loaded, env);
  // An origin the user does not trust is never contacted, not even by the read-only doctor.
  const distrust = trustNotice(loaded.trust);
  const server =
    distrust !== undefined
      ? createBlockedServer(config.baseUrl, distrust)
      : createMemoryServer({ baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, ...(key._tag === 'key' ? { apiKey: key.key } : {}) });
  let queue = unknownQueue;
  let queueProblem: string | undefined;
  try {
    queue = await inspectQueue(readOnlyJournal(config.queuePath), config.retainDelivery);
    if (queue.damaged > 0) queueProblem = `${queue.damaged} damaged record(s) in ${config.queuePath}; the next process that opens the queue moves them to its quarantine file`;
  } catch (error) {
    queueProblem = `the retain queue could not be read: ${redact(error instanceof Error ? error.message : String(error))}`;
  }
  // The import gate's state is read from its checkpoint (read-only), as the runtime shows it.
  const importView = await importStatusOf(config.importCheckpoint);
  const status = (): RuntimeStatusView => (importView === undefined ? {} : { import: importView });
  // Read-only: the runtime's record of a failing retain, or a state dir that cannot take a write now.
  const retainFailing = config.enabled ? readRetainFailing(path.join(loaded.stateDir, 'memory')) : undefined;
  const tools = await createToolContext({ cwd, server, queue: statusOnlyQueue(queue, queueProblem, retainFailing), env, home, status });
  let setAside: readonly string[] = [];
  try {
    setAside = setAsideQueueFiles(config.queuePath).map((file) => setAsideNotice(file, cliTakeBack(loaded.cwd)));
  } catch (error) {
    queueProblem ??= `the retain queue's directory could not be listed: ${redact(error instanceof Error ? error.message : String(error))}`;
  }
  return { tools, stateDir, setAside, ...(queueProblem === undefined ? {} : { queueProblem }), ...(retainFailing === undefined ? {} : { retainFailing }) };
};
