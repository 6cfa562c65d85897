/**
 * A document an async retain writes holds the text its operation's record already put in the
 * log (the acknowledged request's payload): on disk its `document.put` may name that payload's
 * item instead of copying the text, so the text is written once. Replay reads it back from the
 * operation as the state holds it at that point of the log, which is why a reference is only
 * written when nothing between the state it was checked against and its own line can change
 * that operation (`textRefFor`).
 */
import type { Mutation, OperationRecord } from './model.js';

/** Where a document's text is: item `item` of operation `operationId`'s payload (same bank). */
export interface TextSource {
  readonly operationId: string;
  readonly item: number;
}

/** On disk, in place of `original_text`. */
export interface TextRef {
  readonly operation_id: string;
  readonly item: number;
}

/** The content of item `item` of an operation's retain payload (`{ items: [{ content }] }`), if it has one. */
export const operationItemText = (operation: OperationRecord | undefined, item: number): string | undefined => {
  const payload = operation?.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const items = payload['items'];
  if (!Array.isArray(items)) return undefined;
  const entry = items[item];
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const content = entry['content'];
  return typeof content === 'string' ? content : undefined;
};

/** Whether `m` could change or remove operation `operationId` of bank `bankId`. */
const touches = (m: Mutation, bankId: string, operationId: string): boolean =>
  (m.type === 'operation.put' && m.operation.id === operationId) ||
  (m.type === 'operation.delete' && m.operation_id === operationId) ||
  (m.type === 'bank.delete' && m.bank_id === bankId);

/**
 * The reference to write for `mutations[index]`, or undefined to write its text. `operation`
 * is the operation as the applied state holds it; `unapplied` are the commits queued to the log
 * and not yet applied (any of them may land before this one). The reference is written only if
 * the operation's item holds exactly the document's text and no mutation that may come before
 * this one in the log (unapplied, or earlier in the same commit) touches the operation: replay
 * then finds the same text where this found it.
 */
export const textRefFor = (
  mutations: readonly Mutation[],
  index: number,
  source: TextSource | undefined,
  operation: OperationRecord | undefined,
  unapplied: Iterable<readonly Mutation[]>,
): TextRef | undefined => {
  const m = mutations[index];
  if (source === undefined || m === undefined || m.type !== 'document.put') return undefined;
  const text = m.document.original_text;
  if (text === null || operation === undefined || operation.bank_id !== m.bank_id) return undefined;
  if (operationItemText(operation, source.item) !== text) return undefined;
  for (let i = 0; i < index; i += 1) {
    const before = mutations[i];
    if (before !== undefined && touches(before, m.bank_id, source.operationId)) return undefined;
  }
  for (const commit of unapplied) {
    if (commit.some((before) => touches(before, m.bank_id, source.operationId))) return undefined;
  }
  return { operation_id: source.operationId, item: source.item };
};
