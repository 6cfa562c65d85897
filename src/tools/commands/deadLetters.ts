/**
 * Dead letters: retain jobs the server refused for good (400/422), kept with its reason.
 * `list` shows them (job id, bank, status, when, reason; never the retained text), `requeue ID`
 * puts one back in the queue (after the cause is fixed), `drop ID` removes it for good.
 * `all` works in place of an ID. Shared by `/memory dead-letters` and `agent-memory dead-letters`.
 */
import { redact } from '../../config/redact.js';
import { piQueueCommands, type CommandReport, type QueueCommands } from './commandContext.js';

export interface DeadLetterView {
  readonly job: { readonly jobId: string; readonly bankId: string; readonly documentId: string };
  readonly reason: string;
  readonly status: number | null;
  readonly at: number;
}

/** The part of the retain queue these commands use (its public API). */
export interface DeadLetterQueue {
  deadLetters(): Promise<readonly DeadLetterView[]>;
  requeueDeadLetters(ids?: readonly string[]): Promise<number>;
  dropDeadLetters(ids?: readonly string[]): Promise<number>;
}

export const DEAD_LETTERS_USAGE = 'dead-letters [list | requeue ID|all | drop ID|all]';

/** A dead letter as a person reads it: ids, the server's status and its reason, redacted. */
export const describeDeadLetter = (d: DeadLetterView) => ({
  jobId: d.job.jobId,
  bankId: d.job.bankId,
  documentId: d.job.documentId,
  status: d.status,
  at: new Date(d.at).toISOString(),
  reason: redact(d.reason),
});

const list = async (queue: DeadLetterQueue, commands: QueueCommands): Promise<CommandReport> => {
  const dead = (await queue.deadLetters()).map(describeDeadLetter);
  if (dead.length === 0) return { level: 'info', text: 'No dead letters.', details: { deadLetters: [] } };
  // Each command on a line of its own, never wrapped: a person copies it whole.
  const lines = dead.flatMap((d) => [
    `  ${d.jobId}  bank ${d.bankId}  ${d.status === null ? 'no status' : `HTTP ${d.status}`}  ${d.at}  ${d.reason}`,
    `    requeue: ${commands.requeue(d.jobId)}`,
    `    drop:    ${commands.drop(d.jobId)}`,
  ]);
  return {
    level: 'warning',
    text: [
      `${dead.length} dead letter(s) (the server refused them for good):`,
      ...lines,
      'Fix the cause, then requeue (every one at once:',
      `  ${commands.requeue('all')}`,
      'and deliver now with',
      `  ${commands.flush}`,
      'or drop one for good.',
    ].join('\n'),
    details: { deadLetters: dead },
  };
};

const change = async (queue: DeadLetterQueue, verb: 'requeue' | 'drop', id: string | undefined, commands: QueueCommands): Promise<CommandReport> => {
  if (id === undefined) return { level: 'error', text: `Usage: ${DEAD_LETTERS_USAGE} (${verb} needs a job id from list, or all).`, details: { error: 'missing id' } };
  const ids = id === 'all' ? undefined : [id];
  const known = (await queue.deadLetters()).map((d) => d.job.jobId);
  if (ids !== undefined && !known.includes(id)) {
    return { level: 'error', text: `No dead letter ${JSON.stringify(redact(id).slice(0, 80))}; list shows ${known.length === 0 ? 'none' : known.join(', ')}.`, details: { error: 'unknown id', known } };
  }
  const count = verb === 'requeue' ? await queue.requeueDeadLetters(ids) : await queue.dropDeadLetters(ids);
  const text = verb === 'requeue' ? `Requeued ${count} dead letter(s); they are delivered with the queue (to send them now: ${commands.flush}).` : `Dropped ${count} dead letter(s); they will not be retained.`;
  return { level: 'info', text, details: { [verb === 'requeue' ? 'requeued' : 'dropped']: count } };
};

/** Runs `dead-letters [list|requeue ID|drop ID]`; `args` are the words after `dead-letters`. */
export const deadLettersCommand = async (queue: DeadLetterQueue | undefined, args: readonly string[], commands: QueueCommands = piQueueCommands): Promise<CommandReport> => {
  if (queue === undefined) {
    return { level: 'error', text: 'The retain queue is not open in this session (memory is disabled or the queue failed to open); run /memory doctor.', details: { error: 'no queue' } };
  }
  const [verb, id] = args;
  switch (verb) {
    case undefined:
    case 'list':
      return list(queue, commands);
    case 'requeue':
    case 'drop':
      return change(queue, verb, id, commands);
    default:
      return { level: 'error', text: `Usage: ${DEAD_LETTERS_USAGE} (got ${JSON.stringify(redact(verb).slice(0, 40))}).`, details: { error: 'unknown action' } };
  }
};
